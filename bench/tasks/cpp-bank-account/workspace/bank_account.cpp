#include "bank_account.h"

namespace Bankaccount {}