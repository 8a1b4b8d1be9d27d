#include "all_your_base.h"
