// The CLI's side of the contract: a session is the typed PosthocApi over one data folder (the same calls
// and events as the app and the web host, see main/ipc/local-client.ts), and this file is the one place
// that turns a contract error into an exit code.
import type { ContractError, PosthocApi, Result } from '../../shared/contract';

/** Exit codes: 0 success; 1 failed; 2 usage or configuration; 3 refused (conflict); 4 partly done; 130 interrupted. */
export const EXIT = { ok: 0, failed: 1, usage: 2, conflict: 3, partial: 4, interrupted: 130 } as const;

/** The API over one data folder, what its start closed (one line each), and how to close it. */
export type Session = { api: PosthocApi; ready: Promise<string[]>; close(): Promise<void> };
export type OpenSession = (dataDir: string | undefined) => Session | Promise<Session>;

/** A call the contract answered with an error, or input the CLI refused before calling: its code decides the exit. */
export class CliFailure extends Error {
  constructor(
    readonly code: ContractError['code'],
    message: string,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}

/** The value of a call, or its contract error thrown as a CliFailure. */
export async function value<T>(result: Promise<Result<T>> | Result<T>): Promise<T> {
  const answer = await result;
  if (answer.ok) return answer.value;
  throw new CliFailure(answer.error.code, answer.error.message);
}

/**
 * A missing model, Docker, image, folder, task or action, or input the contract refused, is usage or
 * configuration; anything else (already undone, kept, a refused origin, a broken answer) is a failure.
 */
export function exitCodeOf(code: ContractError['code']): number {
  switch (code) {
    case 'invalid-input':
    case 'not-found':
    case 'unavailable':
      return EXIT.usage;
    case 'conflict':
    case 'forbidden':
    case 'internal':
      return EXIT.failed;
  }
}
