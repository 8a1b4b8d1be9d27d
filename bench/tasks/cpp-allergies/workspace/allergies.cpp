#include "allergies.h"

namespace allergies {

}  // namespace allergies
