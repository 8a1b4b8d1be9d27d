// Held-transaction mode (GoEx's second option, as a per-grant choice): a task's actions on the database run
// in one open transaction, each inside a savepoint of its own, until the person keeps them (COMMIT) or
// undoes them (ROLLBACK TO the action's savepoint, newest first). Locks stay held meanwhile, so other
// writers wait: the card says so, and after the grant's timeout the transaction is rolled back.
import type { DatabaseGrant, DbStatement } from '../../../shared/domain';
import { DbConflict, DbRefusal, OverRowLimit } from './db-errors';
import type { DbEngines, HeldConnection, RunInput } from './engine';

type Held = { grant: DatabaseGrant; conn: HeldConnection; actions: string[]; until: Date; timer: NodeJS.Timeout };

export type HeldOutcome =
  | { ok: true; statements: DbStatement[]; rowsAffected: number; heldUntil: string; savepoint: string }
  | { ok: false; statements: DbStatement[]; error: string; overLimit: OverRowLimit | null };

export class HeldTransactions {
  private readonly open = new Map<string, Held>();
  constructor(
    private readonly engines: DbEngines,
    /** Called with the action ids whose transaction was rolled back because nobody kept it in time. */
    private readonly onExpired: (actionIds: string[], database: string) => void = () => undefined,
  ) {}

  static key(taskId: string, database: string): string {
    return `${taskId}/${database}`;
  }

  /** Runs an action's statements inside the task's held transaction on this grant, opening it if needed. */
  async run(taskId: string, actionId: string, input: RunInput, timeoutMs: number): Promise<HeldOutcome> {
    const key = HeldTransactions.key(taskId, input.grant.name);
    const held = this.open.get(key) ?? (await this.begin(key, input.grant, timeoutMs));
    const savepoint = savepointOf(actionId);
    // More requests of the same action (code in the sandbox calling the gateway again) share its savepoint.
    const again = held.actions.at(-1) === actionId;
    const inner = again ? `${savepoint}_${held.actions.length}_${Date.now() % 100000}` : savepoint;
    const statements: DbStatement[] = [];
    try {
      await held.conn.exec(`SAVEPOINT ${inner}`);
      const rows = await held.conn.execute(input, statements);
      if (!again) held.actions.push(actionId);
      return { ok: true, statements, rowsAffected: rows, heldUntil: held.until.toISOString(), savepoint };
    } catch (error) {
      await this.rollbackTo(held, inner).catch(() => undefined);
      if (held.actions.length === 0) await this.close(key, 'rollback');
      const message = held.conn.describeError(error);
      return { ok: false, statements, error: message, overLimit: error instanceof OverRowLimit ? error : null };
    }
  }

  /** Rolls back the action's savepoint; only the newest held action of the grant can go. */
  async undo(taskId: string, database: string, actionId: string): Promise<void> {
    const key = HeldTransactions.key(taskId, database);
    const held = this.open.get(key);
    if (!held || !held.actions.includes(actionId)) {
      throw new DbConflict([database], `The transaction held for this action on "${database}" is no longer open (it was kept, timed out, or Posthoc restarted), so there is nothing to roll back.`);
    }
    const later = held.actions.slice(held.actions.indexOf(actionId) + 1);
    if (later.length > 0) {
      throw new DbConflict(later, `Later actions on "${database}" run inside the same held transaction; undo them first (newest first).`);
    }
    await this.rollbackTo(held, savepointOf(actionId));
    held.actions.pop();
    if (held.actions.length === 0) await this.close(key, 'rollback');
  }

  /** Commits the held transaction: every action in it becomes final. Returns their ids. */
  async keep(taskId: string, database: string): Promise<string[]> {
    const key = HeldTransactions.key(taskId, database);
    const held = this.open.get(key);
    if (!held) {
      throw new DbRefusal(`The transaction held on "${database}" is no longer open (it timed out, or Posthoc closed), so it was rolled back and there is nothing to keep. Run the action again to redo it.`);
    }
    const ids = [...held.actions];
    await this.close(key, 'commit');
    return ids;
  }

  isOpen(taskId: string, database: string, actionId: string): boolean {
    return this.open.get(HeldTransactions.key(taskId, database))?.actions.includes(actionId) ?? false;
  }

  /** Shutting down: nothing is committed that the person did not keep; the rolled-back actions are reported like expired ones. */
  async rollbackAll(): Promise<void> {
    for (const [key, held] of [...this.open]) {
      const ids = [...held.actions];
      await this.close(key, 'rollback').catch(() => undefined);
      if (ids.length > 0) this.onExpired(ids, held.grant.name);
    }
  }

  private async begin(key: string, grant: DatabaseGrant, timeoutMs: number): Promise<Held> {
    const conn = await this.engines.get(grant.engine).openHeld(grant, timeoutMs);
    const until = new Date(Date.now() + grant.heldTimeoutSeconds * 1000);
    const timer = setTimeout(() => void this.expire(key), grant.heldTimeoutSeconds * 1000);
    timer.unref();
    const held: Held = { grant, conn, actions: [], until, timer };
    this.open.set(key, held);
    return held;
  }

  private async expire(key: string): Promise<void> {
    const held = this.open.get(key);
    if (!held) return;
    const ids = [...held.actions];
    await this.close(key, 'rollback').catch(() => undefined);
    if (ids.length > 0) this.onExpired(ids, held.grant.name);
  }

  private async rollbackTo(held: Held, savepoint: string): Promise<void> {
    await held.conn.rollbackTo(savepoint);
  }

  private async close(key: string, how: 'commit' | 'rollback'): Promise<void> {
    const held = this.open.get(key);
    if (!held) return;
    this.open.delete(key);
    clearTimeout(held.timer);
    await held.conn.close(how);
  }
}

function savepointOf(actionId: string): string {
  return `posthoc_action_${actionId.replace(/[^A-Za-z0-9]/g, '').slice(0, 32)}`;
}
