// Typed access to tasks, messages, actions and their effects. Tasks and messages are parsed back through
// the shared zod schemas; an action is parsed when it is saved and read back as written (toAction), and the
// contract parses every answer before it reaches a front end, so a corrupt row still fails loudly there.
import { randomUUID } from 'node:crypto';
import { reversePlanOf } from '../../shared/undo/reverse-plan';
import {
  Action,
  Effect,
  Message,
  Task,
  type ActionFigure,
  type ActionStatus,
  type DatabaseGrant,
  type MessageRole,
  type PlanItem,
  type Usage,
  type WorkspaceGrant,
} from '../../shared/domain';
import type { AppDatabase } from './database';
import { listTaskRows, TASK_ROW, toTask, type TaskRow } from './task-rows';
import { figuresReader, listFigures } from './figure-store';
import { KeptActions } from './kept-reads';
import { thisProcess, type ProcessOwner } from '../platform/process-owner';

const now = (): string => new Date().toISOString();

type ActionRow = {
  id: string; task_id: string; seq: number; kind: string; language: string; source: string; status: string;
  output_json: string; confinement_json: string; started_at: string;
  finished_at: string | null; undone_at: string | null;
  owner_pid: number | null; owner_start: string | null; message_id: string | null;
};

/** An action as its runner records it: the reverse plan is derived from the rest, so it is not an input. */
export type ActionRecord = Omit<Action, 'reverse'> & { reverse?: unknown };

export class TaskStore {
  constructor(private readonly db: AppDatabase) {}

  createTask(input: { title: string; workspaces: WorkspaceGrant[]; services?: string[]; databases?: DatabaseGrant[]; model: string; provider?: string | null; mcp?: string[] }): Task {
    const at = now();
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO tasks (id, title, status, workspaces_json, services_json, databases_json, model, answer, error, created_at, updated_at, owner_pid, owner_start, provider, mcp_json)
         VALUES (?, ?, 'running', ?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id, input.title, JSON.stringify(input.workspaces), JSON.stringify(input.services ?? []), JSON.stringify(input.databases ?? []), input.model, at, at,
        thisProcess().pid, thisProcess().start, input.provider ?? null, input.mcp?.length ? JSON.stringify(input.mcp) : null,
      );
    return this.getTask(id)!;
  }

  getTask(id: string): Task | undefined {
    const row = this.db.prepare(`${TASK_ROW} WHERE id = ?`).get(id) as TaskRow | undefined;
    return row && toTask(row);
  }

  listTasks(): Task[] {
    return listTaskRows(this.db);
  }

  updateTask(id: string, patch: Partial<Pick<Task, 'status' | 'answer' | 'error' | 'model' | 'title'>>): Task {
    const task = this.getTask(id);
    if (!task) throw new Error(`No task ${id}`);
    const next = { ...task, ...patch, updatedAt: now() };
    this.db
      .prepare('UPDATE tasks SET status = ?, answer = ?, error = ?, model = ?, title = ?, updated_at = ? WHERE id = ?')
      .run(next.status, next.answer, next.error, next.model, next.title, next.updatedAt, id);
    // Whoever sets a task running again (a follow-up) owns that run.
    if (patch.status === 'running') this.db.prepare('UPDATE tasks SET owner_pid = ?, owner_start = ? WHERE id = ?').run(thisProcess().pid, thisProcess().start, id);
    return next;
  }

  addMessage(taskId: string, role: MessageRole, content: string): Message {
    const seq = (this.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM messages WHERE task_id = ?').get(taskId) as { n: number }).n;
    const message: Message = { id: randomUUID(), taskId, seq, role, content, createdAt: now() };
    this.db
      .prepare('INSERT INTO messages (id, task_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(message.id, taskId, seq, role, content, message.createdAt);
    return message;
  }

  /** Adds one reply's usage to the task's totals (costUsd stays null once any part had no price). */
  addTaskUsage(taskId: string, usage: Usage): Task {
    const task = this.getTask(taskId);
    if (!task) throw new Error(`No task ${taskId}`);
    const total = sumUsage(task.usage ?? null, usage);
    this.db.prepare('UPDATE tasks SET usage_json = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(total), now(), taskId);
    return this.getTask(taskId)!;
  }

  /** The agent's plan, as its last <plan> tag said. */
  setTaskPlan(taskId: string, plan: PlanItem[]): Task {
    this.db.prepare('UPDATE tasks SET plan_json = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(plan), now(), taskId);
    const task = this.getTask(taskId);
    if (!task) throw new Error(`No task ${taskId}`);
    return task;
  }

  /** The usage of the reply an assistant message is; the actions of that reply carry it. */
  setMessageUsage(messageId: string, usage: Usage): void {
    this.db.prepare('UPDATE messages SET usage_json = ? WHERE id = ?').run(JSON.stringify(usage), messageId);
  }

  listMessages(taskId: string): Message[] {
    const rows = this.db.prepare('SELECT * FROM messages WHERE task_id = ? ORDER BY seq').all(taskId) as Array<{
      id: string; task_id: string; seq: number; role: string; content: string; created_at: string;
    }>;
    return rows.map((r) => Message.parse({ id: r.id, taskId: r.task_id, seq: r.seq, role: r.role, content: r.content, createdAt: r.created_at }));
  }

  nextActionSeq(taskId: string): number {
    return (this.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM actions WHERE task_id = ?').get(taskId) as { n: number }).n;
  }

  /** Inserts or replaces an action with its effects, in one transaction; returns it as read back (its reverse plan derived). */
  saveAction(record: ActionRecord): Action {
    const parsed = Action.parse({ ...record, reverse: reversePlanOf(record) });
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO actions (id, task_id, seq, kind, language, source, status, output_json,
             confinement_json, started_at, finished_at, undone_at, owner_pid, owner_start, message_id)
           VALUES (@id, @taskId, @seq, @kind, @language, @source, @status, @output, @confinement,
             @startedAt, @finishedAt, @undoneAt, @ownerPid, @ownerStart, @messageId)
           ON CONFLICT(id) DO UPDATE SET status = excluded.status, output_json = excluded.output_json,
             confinement_json = excluded.confinement_json,
             finished_at = excluded.finished_at, undone_at = excluded.undone_at`,
        )
        .run({
          id: parsed.id,
          taskId: parsed.taskId,
          seq: parsed.seq,
          kind: parsed.kind,
          language: parsed.language,
          source: parsed.source,
          status: parsed.status,
          startedAt: parsed.startedAt,
          finishedAt: parsed.finishedAt,
          undoneAt: parsed.undoneAt,
          messageId: parsed.messageId,
          output: JSON.stringify(parsed.output),
          confinement: JSON.stringify(parsed.confinement),
          // The process that first saves an action runs it; later saves (its end, a recovery) keep that owner.
          ownerPid: thisProcess().pid,
          ownerStart: thisProcess().start,
        });
      this.db.prepare('DELETE FROM effects WHERE action_id = ?').run(parsed.id);
      const insert = this.db.prepare('INSERT INTO effects (action_id, seq, channel, data_json) VALUES (?, ?, ?, ?)');
      parsed.effects.forEach((effect, index) => insert.run(parsed.id, index, effect.channel, JSON.stringify(effect)));
    })();
    return { ...parsed, figures: listFigures(this.db, parsed.id), ...this.usageOf(parsed.messageId) };
  }

  /** Rewrites an action's effects alone (what undo marks on a call it took back), leaving its row as it is: its status is the saga's. */
  saveEffects(action: Pick<Action, 'id' | 'effects'>): void {
    const effects = action.effects.map((e) => Effect.parse(e));
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM effects WHERE action_id = ?').run(action.id);
      const insert = this.db.prepare('INSERT INTO effects (action_id, seq, channel, data_json) VALUES (?, ?, ?, ?)');
      effects.forEach((effect, index) => insert.run(action.id, index, effect.channel, JSON.stringify(effect)));
    })();
  }

  setActionStatus(id: string, status: ActionStatus): Action {
    const action = this.getAction(id);
    if (!action) throw new Error(`No action ${id}`);
    const undoneAt = status === 'undone' ? now() : action.undoneAt;
    this.db.prepare('UPDATE actions SET status = ?, undone_at = ? WHERE id = ?').run(status, undoneAt, id);
    const next = { ...action, status, undoneAt };
    return { ...next, reverse: reversePlanOf(next) };
  }

  /** Writes the status of an action the caller has just read (no second read), and returns it as written. */
  writeActionStatus(action: Action, status: ActionStatus): Action {
    const undoneAt = status === 'undone' ? now() : action.undoneAt;
    this.db.prepare('UPDATE actions SET status = ?, undone_at = ? WHERE id = ?').run(status, undoneAt, action.id);
    const next = { ...action, status, undoneAt };
    return { ...next, reverse: reversePlanOf(next) };
  }

  getAction(id: string): Action | undefined {
    const row = this.db.prepare('SELECT * FROM actions WHERE id = ?').get(id) as ActionRow | undefined;
    return row && this.actionOf(row);
  }

  /**
   * The task's actions (or every action), in one pass: their rows, then the effects, figures and reply usage
   * of all of them in one query each, however many actions there are (issue 27).
   */
  listActions(taskId?: string): Action[] {
    return taskId ? actionReader(this.db, 'WHERE task_id = ?', 'seq')([taskId]) : actionReader(this.db, '', 'started_at, seq')([]);
  }

  /**
   * The task's actions as listActions reads them, kept on this connection across reads and re-read only where
   * something wrote to them since (store/kept-reads.ts): what the timeline reads. Shared: not to be mutated.
   */
  keptActions(taskId: string): readonly Action[] {
    // Inside a transaction the rows may hold writes a rollback takes back: read afresh, keep nothing.
    if (this.db.inTransaction) return this.listActions(taskId);
    let kept = keptActions.get(this.db);
    if (!kept) {
      kept = new KeptActions(this.db, (scope) => actionReader(this.db, scope, 'seq'));
      keptActions.set(this.db, kept);
    }
    return kept.of(taskId);
  }

  /**
   * Actions no process will finish: running or waiting for approval, with their owner; and interrupted ones
   * whose changes are not on the record yet (the checkpoint after them failed).
   */
  unfinishedActions(): Array<{ action: Action; owner: ProcessOwner }> {
    const rows = this.db
      .prepare(
        `SELECT * FROM actions WHERE status IN ('running', 'awaiting-approval')
           OR (status = 'interrupted' AND json_extract(output_json, '$.interrupted.recorded') = 0)
         ORDER BY started_at, seq`,
      )
      .all() as ActionRow[];
    return rows.map((r) => ({ action: this.actionOf(r), owner: { pid: r.owner_pid, start: r.owner_start } }));
  }

  /**
   * Makes this process the owner of an action if its owner is still the one given (compare and set), so
   * of two processes starting at once only one closes an action a crash left behind.
   */
  claimAction(id: string, from: ProcessOwner): boolean {
    const me = thisProcess();
    const result = this.db
      .prepare('UPDATE actions SET owner_pid = ?, owner_start = ? WHERE id = ? AND owner_pid IS ? AND owner_start IS ?')
      .run(me.pid, me.start, id, from.pid, from.start);
    return result.changes === 1;
  }

  /** Tasks marked running, with the process that runs them. */
  runningTasks(): Array<{ task: Task; owner: ProcessOwner }> {
    const rows = this.db.prepare(`SELECT * FROM tasks WHERE status = 'running' ORDER BY created_at`).all() as TaskRow[];
    return rows.map((r) => ({ task: toTask(r), owner: { pid: r.owner_pid, start: r.owner_start } }));
  }

  getSetting<T>(key: string): T | undefined {
    const row = this.db.prepare('SELECT value_json FROM settings WHERE key = ?').get(key) as { value_json: string } | undefined;
    return row ? (JSON.parse(row.value_json) as T) : undefined;
  }

  setSetting(key: string, value: unknown): void {
    if (value === undefined || value === null) {
      this.db.prepare('DELETE FROM settings WHERE key = ?').run(key);
      return;
    }
    this.db
      .prepare('INSERT INTO settings (key, value_json) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json')
      .run(key, JSON.stringify(value));
  }

  /** One action from its row, its effects, figures and usage read for it alone. */
  private actionOf(row: ActionRow): Action {
    const effects = this.db.prepare('SELECT data_json FROM effects WHERE action_id = ? ORDER BY seq').all(row.id) as Array<{ data_json: string }>;
    return toAction(row, effects.map((e) => e.data_json), listFigures(this.db, row.id), this.usageJsonOf(row.message_id));
  }

  /** The usage of the reply an action came from, when its message has one (else no `usage` key at all). */
  private usageOf(messageId: string | null): { usage?: Usage } {
    const json = this.usageJsonOf(messageId);
    return json ? { usage: JSON.parse(json) as Usage } : {};
  }

  /** The usage JSON of a message: undefined without a message, null when it has no usage. */
  private usageJsonOf(messageId: string | null): string | null | undefined {
    if (!messageId) return undefined;
    const row = this.db.prepare('SELECT usage_json FROM messages WHERE id = ?').get(messageId) as { usage_json: string | null } | undefined;
    return row?.usage_json ?? null;
  }
}

/**
 * An action from its row and what was read beside it (the effects' JSON in order, its figures, its reply's
 * usage JSON), its reverse plan derived. No zod parse here (issue 27): the store reads back only what it
 * wrote, and saveAction parsed every action before writing it (its output, effects and confinement are
 * stored as that parse left them); where an action crosses to a front end, the contract parses the answer
 * again (main/ipc/register-contract.ts). Its keys are in the schema's order, as a parse would give them
 * (tests/integration/timeline-read-path.test.ts compares the two). JSON that does not parse still throws.
 */
function toAction(row: ActionRow, effects: readonly string[], figures: ActionFigure[], usageJson: string | null | undefined): Action {
  const fields = {
    id: row.id,
    taskId: row.task_id,
    seq: row.seq,
    kind: row.kind as Action['kind'],
    language: row.language as Action['language'],
    source: row.source,
    status: row.status as Action['status'],
    output: JSON.parse(row.output_json) as Action['output'],
    effects: effects.map((e) => JSON.parse(e) as Action['effects'][number]),
    confinement: JSON.parse(row.confinement_json) as Action['confinement'],
    messageId: row.message_id,
    figures,
    ...(usageJson ? { usage: JSON.parse(usageJson) as Usage } : {}),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    undoneAt: row.undone_at,
  };
  // The reverse plan is derived from the rest and added last (as it always was).
  return Object.assign(fields, { reverse: reversePlanOf(fields) });
}

/**
 * A reader of the actions `scope` (a WHERE clause over `actions`, taking the reader's `args`) selects, in
 * `order`: their rows, then the effects, figures and usage of all of them in one query each. Its statements
 * are prepared once, when it is made: the keep makes its readers once (store/kept-reads.ts).
 */
function actionReader(db: AppDatabase, scope: string, order: string): (args: readonly unknown[]) => Action[] {
  const ofActions = `SELECT id FROM actions ${scope}`;
  const rows = db.prepare(`SELECT * FROM actions ${scope} ORDER BY ${order}`);
  const effects = db.prepare(`SELECT action_id, data_json FROM effects WHERE action_id IN (${ofActions}) ORDER BY action_id, seq`);
  const figures = figuresReader(db, ofActions);
  const usage = db.prepare(`SELECT id, usage_json FROM messages WHERE usage_json IS NOT NULL AND id IN (SELECT message_id FROM actions ${scope})`);
  return (args) => {
    const found = rows.all(...args) as ActionRow[];
    if (found.length === 0) return [];
    const effectsOf = groupBy(effects.all(...args) as Array<{ action_id: string; data_json: string }>);
    const figuresOf = figures(args);
    const usageOf = new Map((usage.all(...args) as Array<{ id: string; usage_json: string }>).map((m) => [m.id, m.usage_json]));
    return found.map((r) => toAction(r, effectsOf.get(r.id) ?? [], figuresOf.get(r.id) ?? [], r.message_id === null ? undefined : (usageOf.get(r.message_id) ?? null)));
  };
}

/** Each connection's kept actions (one per connection: what it keeps was read on it). */
const keptActions = new WeakMap<AppDatabase, KeptActions>();

/** Each action's effects' JSON, in the order the rows came (by action, then seq). */
function groupBy(rows: ReadonlyArray<{ action_id: string; data_json: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(r.action_id);
    if (list) list.push(r.data_json);
    else out.set(r.action_id, [r.data_json]);
  }
  return out;
}


/** Two usages added; the cost is known only when both parts' are (a task with no calls yet counts as known). */
export function sumUsage(a: Usage | null, b: Usage): Usage {
  if (!a || a.calls === 0) return b;
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    calls: a.calls + b.calls,
    costUsd: a.costUsd !== null && b.costUsd !== null ? a.costUsd + b.costUsd : null,
    ...(a.estimated || b.estimated ? { estimated: true } : {}),
  };
}
