#include "circular_buffer.h"

namespace circular_buffer {

}  // namespace circular_buffer
