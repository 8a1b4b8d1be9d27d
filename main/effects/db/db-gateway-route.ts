// The sandbox's way to the granted databases: POST $POSTHOC_GATEWAY/db/NAME/query with
// {"sql": "...", "params": [...]} answers {"columns", "rows", "rowCount", "truncated", ...} as JSON. The
// gateway mounts it at /db/; each request runs through the same channel as a ```sql block (capture,
// confinement, undo) and is recorded as a DbEffect on the running action. Databases not granted to the
// task answer 403 with a message the agent can act on.
import type { DatabaseGrant, Effect } from '../../../shared/domain';
import type { DbChannel } from './db-channel';

export type DbGatewayContext = { taskId: string; actionId: string | null; recordEffect(effect: Effect): void };
export type DbGatewayAnswer = { status: number; body: unknown };

type TaskDatabases = { channel: DbChannel; grants: DatabaseGrant[]; timeoutMs: number };

/** Rows one request answers; more would be one huge JSON body. */
export const GATEWAY_ROWS = 50_000;

/**
 * The gateway's /db route, with the databases of each task that can run code now, found by task id alone.
 * One per app, made by the composition root: the task's grants attach while it runs, the gateway asks.
 */
export class DbGatewayRoute {
  private readonly tasks = new Map<string, TaskDatabases>();

  /** A task's grants while it can run code. Returns the detach. */
  register(taskId: string, entry: TaskDatabases): () => void {
    this.tasks.set(taskId, entry);
    return () => {
      if (this.tasks.get(taskId) === entry) this.tasks.delete(taskId);
    };
  }

  /** The gateway's route shape (mounted at /db): POST /NAME/query with the JSON body. */
  readonly route = async (
    ctx: { task: { id: string }; actionId: string | null; recordEffect(effect: Effect): void },
    req: { method: string; path: string; body: Buffer },
  ): Promise<{ status: number; body: object }> => {
    const match = /^\/([^/]+)\/query\/?$/.exec(req.path);
    if (!match) return { status: 404, body: { error: `No database route ${req.path}; use POST $POSTHOC_GATEWAY/db/NAME/query with {"sql": "...", "params": [...]}.` } };
    if (req.method !== 'POST') return { status: 405, body: { error: 'Use POST, with {"sql": "...", "params": [...]} as the JSON body.' } };
    const answer = await this.handle({ taskId: ctx.task.id, actionId: ctx.actionId, recordEffect: (e) => ctx.recordEffect(e) }, decodeURIComponent(match[1]!), req.body);
    return { status: answer.status, body: answer.body as object };
  };

  async handle(ctx: DbGatewayContext, name: string, body: unknown): Promise<DbGatewayAnswer> {
    const entry = this.tasks.get(ctx.taskId);
    const grants = entry?.grants ?? [];
    const grant = grants.find((g) => g.name === name);
    if (!entry || !grant) {
      const granted = grants.map((g) => g.name);
      return {
        status: 403,
        body: {
          error: `The database "${name}" is not granted to this task. ${granted.length ? `Granted: ${granted.join(', ')} (POST $POSTHOC_GATEWAY/db/NAME/query).` : 'No database is granted; ask the person to grant one.'}`,
        },
      };
    }
    if (ctx.actionId === null) {
      return { status: 409, body: { error: 'No action of this task is running; the gateway only answers code while it runs.' } };
    }
    const request = parseBody(body);
    if ('error' in request) return { status: 400, body: { error: request.error } };
    // Code gets every row of the last statement that returned rows (up to a cap); the card keeps the first ones.
    const answered: { statement: number; rows: Array<Array<string | null>>; cut: boolean } = { statement: -1, rows: [], cut: false };
    const onRow = (statement: number, row: Array<string | null>) => {
      if (statement !== answered.statement) Object.assign(answered, { statement, rows: [], cut: false });
      if (answered.rows.length < GATEWAY_ROWS) answered.rows.push(row);
      else answered.cut = true;
    };
    const result = await entry.channel.run({
      taskId: ctx.taskId,
      actionId: ctx.actionId,
      grant,
      sql: request.sql,
      params: request.params,
      via: 'gateway',
      approved: false,
      timeoutMs: entry.timeoutMs,
      onRow,
      onRestart: () => Object.assign(answered, { statement: -1, rows: [], cut: false }),
    });
    ctx.recordEffect(result.effect);
    if (result.status !== 'done') {
      const status = result.status === 'awaiting-approval' ? 409 : 422;
      const hint = result.status === 'awaiting-approval' ? ' Ask the person to approve it by running the same statement as a ```sql block, or split the work into smaller changes they agree to.' : '';
      return { status, body: { error: `${result.stderr.trim()}${hint}`, statements: result.effect.statements.length } };
    }
    const last = [...result.effect.statements].reverse().find((s) => s.result !== null) ?? null;
    return {
      status: 200,
      body: {
        columns: last?.result?.columns ?? [],
        rows: last ? answered.rows : [],
        rowCount: last?.result?.rowCount ?? 0,
        truncated: answered.cut,
        ...(answered.cut ? { note: `Only the first ${GATEWAY_ROWS} rows are answered; page with LIMIT and OFFSET.` } : {}),
        rowsAffected: result.effect.rowsAffected,
        statements: result.effect.statements.map((s) => ({ kind: s.kind, rowsAffected: s.rowsAffected })),
        ...(result.effect.heldUntil ? { heldUntil: result.effect.heldUntil } : {}),
      },
    };
  }
}

function parseBody(body: unknown): { sql: string; params: unknown[] | null } | { error: string } {
  let value = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      value = JSON.parse(body.toString());
    } catch {
      return { error: 'The body must be JSON: {"sql": "SELECT …", "params": [ … ]}.' };
    }
  }
  if (typeof value !== 'object' || value === null || typeof (value as { sql?: unknown }).sql !== 'string') {
    return { error: 'Send {"sql": "SELECT …", "params": [ … ]} with a "sql" string.' };
  }
  const { sql, params } = value as { sql: string; params?: unknown };
  if (sql.trim() === '') return { error: '"sql" is empty.' };
  if (params !== undefined && params !== null && !Array.isArray(params)) return { error: '"params" must be an array of values (or left out).' };
  const bad = (params as unknown[] | undefined)?.find((p) => p !== null && !['string', 'number', 'boolean'].includes(typeof p));
  if (bad !== undefined) return { error: '"params" may hold strings, numbers, booleans and null only.' };
  return { sql, params: (params as unknown[] | undefined) ?? null };
}
