#if !defined(BANK_ACCOUNT_H)
#define BANK_ACCOUNT_H

namespace Bankaccount {
class Bankaccount {};  // class Bankaccount

}  // namespace Bankaccount

#endif  // BANK_ACCOUNT_H