#if !defined(CIRCULAR_BUFFER_H)
#define CIRCULAR_BUFFER_H

namespace circular_buffer {

}  // namespace circular_buffer

#endif // CIRCULAR_BUFFER_H