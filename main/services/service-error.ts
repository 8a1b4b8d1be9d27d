// Errors the services raise on purpose; each carries the contract error code the front ends show.
import type { ContractError } from '../../shared/contract';

export class ServiceError extends Error {
  constructor(
    readonly code: ContractError['code'],
    message: string,
  ) {
    super(message);
  }
}
