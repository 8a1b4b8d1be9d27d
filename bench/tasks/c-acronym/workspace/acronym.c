#include "acronym.h"
