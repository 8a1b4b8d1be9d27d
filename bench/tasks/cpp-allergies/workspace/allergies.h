#if !defined(ALLERGIES_H)
#define ALLERGIES_H

namespace allergies {

}  // namespace allergies

#endif // ALLERGIES_H