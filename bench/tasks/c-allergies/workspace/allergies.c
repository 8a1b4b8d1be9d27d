#include "allergies.h"
