// Approvals from another process: `posthoc approve ID` / `posthoc reject ID` in a second terminal, for a
// run that has none (or an app that is open). What waits for approval (a SQL action over its rows limit, a
// call the rules hold) lives in the memory of the process running the task, so the other process hands
// the decision over through the data folder: it writes DATA/approvals/ID.request, the running process
// (which looks for a request for each thing it holds, every RELAY_POLL_MS) claims it by renaming it,
// decides as if the person had clicked, and writes ID.answer, which the asking process reads and removes.
// Nobody claims it in time: nothing waits on that id in any running Posthoc, and the request is withdrawn.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Action } from '../../shared/domain';
import type { RestHold } from '../../shared/domain/connections';
import { ServiceError } from './service-error';

export const RELAY_POLL_MS = 200;

/** How a request is answered: the thing decided (an action or a hold, as the contract shapes it), or why not. */
export type RelayAnswer = { ok: true; value: unknown } | { ok: false; code: ServiceError['code']; message: string };

/** Ids are uuids: anything else could name a file outside the folder, and is refused before any file is touched. */
const ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,99}$/;

export class ApprovalRelay {
  private timer: NodeJS.Timeout | null = null;
  private readonly claimToken = `${process.pid}-${randomUUID()}`;

  constructor(
    private readonly dir: string,
    /** The ids this process holds for the person right now, and how it decides one. */
    private readonly local: { waiting(): string[]; decide(id: string, approve: boolean): unknown },
    private readonly claimTimeoutMs = 5_000,
  ) {}

  /** Starts looking for requests for what this process holds. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.serve(), RELAY_POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One pass: every request for an id held here is claimed, decided and answered. */
  serve(): void {
    const ids = this.local.waiting();
    if (ids.length === 0) return;
    for (const id of ids) {
      if (!ID.test(id)) continue;
      const claimed = join(this.dir, `${id}.claimed-${this.claimToken}`);
      try {
        renameSync(join(this.dir, `${id}.request`), claimed);
      } catch {
        continue; // no request for it (the usual case)
      }
      let answer: RelayAnswer;
      try {
        const request = JSON.parse(readFileSync(claimed, 'utf8')) as { approve?: unknown };
        answer = { ok: true, value: this.local.decide(id, request.approve === true) };
      } catch (error) {
        answer = error instanceof ServiceError ? { ok: false, code: error.code, message: error.message } : { ok: false, code: 'internal', message: error instanceof Error ? error.message : String(error) };
      }
      rmSync(claimed, { force: true });
      writeAtomically(join(this.dir, `${id}.answer`), JSON.stringify(answer));
    }
  }

  /**
   * Asks whichever running Posthoc holds `id` to decide it. Resolves with its answer, or null when no
   * process claimed the request within the timeout (nothing waits on that id anywhere).
   */
  async ask(id: string, approve: boolean): Promise<RelayAnswer | null> {
    if (!ID.test(id)) throw new ServiceError('invalid-input', `"${id}" is not an action or call id. List them with "posthoc actions".`);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const request = join(this.dir, `${id}.request`);
    const answerPath = join(this.dir, `${id}.answer`);
    rmSync(answerPath, { force: true });
    writeAtomically(request, JSON.stringify({ approve, from: process.pid }));
    const deadline = Date.now() + this.claimTimeoutMs;
    for (;;) {
      const answer = readAnswer(answerPath);
      if (answer) return answer;
      if (Date.now() > deadline) {
        // Withdrawn, unless it was claimed meanwhile: then its answer is on its way.
        try {
          rmSync(request);
          return null;
        } catch {
          const late = await waitFor(() => readAnswer(answerPath), this.claimTimeoutMs);
          return late ?? null;
        }
      }
      await sleep(RELAY_POLL_MS / 2);
    }
  }
}

function readAnswer(path: string): RelayAnswer | null {
  try {
    const answer = JSON.parse(readFileSync(path, 'utf8')) as RelayAnswer;
    rmSync(path, { force: true });
    return answer;
  } catch {
    return null;
  }
}

async function waitFor<T>(probe: () => T | null, ms: number): Promise<T | null> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = probe();
    if (value !== null) return value;
    await sleep(RELAY_POLL_MS / 2);
  }
  return probe();
}

function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The parts that hold things for approval in this process (app-services joins them). */
export type ApprovalParts = {
  sql: { waitingIds(): string[]; approve(id: string): Action; reject(id: string): Action };
  holds: { waiting(): RestHold[] };
  connections: { approveHold(id: string): RestHold; cancelHold(id: string): RestHold };
  store: { getAction(id: string): Action | undefined };
};

/**
 * action:approve|reject and hold:approve|cancel: decided here when this process holds it, else handed to
 * the process that does; when none does, the local answer says why (already decided, not found).
 */
export function approvalDoors(dir: string, parts: ApprovalParts, claimTimeoutMs?: number) {
  const holdsHere = (id: string) => parts.holds.waiting().some((h) => h.id === id && h.state === 'waiting');
  const decideHere = (id: string, approve: boolean): Action | RestHold =>
    parts.sql.waitingIds().includes(id)
      ? approve ? parts.sql.approve(id) : parts.sql.reject(id)
      : approve ? parts.connections.approveHold(id) : parts.connections.cancelHold(id);
  const relay = new ApprovalRelay(dir, { waiting: () => [...parts.sql.waitingIds(), ...parts.holds.waiting().filter((h) => h.state === 'waiting').map((h) => h.id)], decide: decideHere }, claimTimeoutMs);
  const relayed = <T>(answer: RelayAnswer): T => {
    if (answer.ok) return answer.value as T;
    throw new ServiceError(answer.code, answer.message);
  };
  return {
    relay,
    async action(id: string, approve: boolean): Promise<Action> {
      if (!parts.sql.waitingIds().includes(id) && parts.store.getAction(id)?.status === 'awaiting-approval') {
        const answer = await relay.ask(id, approve);
        if (answer) return relayed<Action>(answer);
      }
      return approve ? parts.sql.approve(id) : parts.sql.reject(id);
    },
    async hold(id: string, approve: boolean): Promise<RestHold> {
      if (!holdsHere(id)) {
        const answer = await relay.ask(id, approve);
        if (answer) return relayed<RestHold>(answer);
      }
      return approve ? parts.connections.approveHold(id) : parts.connections.cancelHold(id);
    },
  };
}
