// A task's row read back as a Task (parsed by its schema alone, shared/domain/task.ts), and what a command
// that only lists the record asks before it answers (issue 28): whether an earlier run left anything open,
// read from the owners' columns without parsing an action. TaskStore reads tasks through the same functions.
import { Task, type Usage } from '../../shared/domain/task';
import type { ProcessOwner } from '../platform/process-owner';
import type { AppDatabase } from './database';

export type TaskRow = {
  id: string; title: string; status: string; workspaces_json: string; services_json: string; databases_json: string; model: string;
  answer: string | null; error: string | null; created_at: string; updated_at: string;
  owner_pid: number | null; owner_start: string | null; usage_json?: string | null; plan_json?: string | null; provider?: string | null;
  mcp_json?: string | null; prompt?: string | null;
};
/** A task's row with the person's first message (bounded), for the sidebar's search. */
export const TASK_ROW = `SELECT tasks.*, (SELECT substr(m.content, 1, 2000) FROM messages m WHERE m.task_id = tasks.id AND m.role = 'user' ORDER BY m.seq LIMIT 1) AS prompt FROM tasks`;
/** Every task, newest first (TaskStore.listTasks). */
export function listTaskRows(db: AppDatabase): Task[] {
  return (db.prepare(`${TASK_ROW} ORDER BY created_at DESC`).all() as TaskRow[]).map(toTask);
}

/**
 * The actions no process will finish as TaskStore.unfinishedActions finds them (running or waiting for
 * approval, and interrupted ones whose changes are not on the record yet): their status and owner only.
 */
export function unfinishedOwners(db: AppDatabase): Array<{ status: string; owner: ProcessOwner }> {
  const rows = db
    .prepare(
      `SELECT status, owner_pid, owner_start FROM actions WHERE status IN ('running', 'awaiting-approval')
         OR (status = 'interrupted' AND json_extract(output_json, '$.interrupted.recorded') = 0)`,
    )
    .all() as Array<{ status: string; owner_pid: number | null; owner_start: string | null }>;
  return rows.map((r) => ({ status: r.status, owner: { pid: r.owner_pid, start: r.owner_start } }));
}

/** The owners of the tasks marked running (TaskStore.runningTasks, without the tasks). */
export function runningTaskOwners(db: AppDatabase): ProcessOwner[] {
  const rows = db.prepare(`SELECT owner_pid, owner_start FROM tasks WHERE status = 'running'`).all() as Array<{ owner_pid: number | null; owner_start: string | null }>;
  return rows.map((r) => ({ pid: r.owner_pid, start: r.owner_start }));
}

export function toTask(row: TaskRow): Task {
  return Task.parse({
    id: row.id,
    title: row.title,
    status: row.status,
    workspaces: JSON.parse(row.workspaces_json),
    services: JSON.parse(row.services_json),
    databases: JSON.parse(row.databases_json),
    model: row.model,
    provider: row.provider ?? null,
    answer: row.answer,
    error: row.error,
    usage: row.usage_json ? JSON.parse(row.usage_json) : EMPTY_USAGE,
    ...(row.plan_json ? { plan: JSON.parse(row.plan_json) } : {}),
    ...(row.mcp_json ? { mcp: JSON.parse(row.mcp_json) } : {}),
    ...(typeof row.prompt === 'string' ? { prompt: row.prompt } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

const EMPTY_USAGE: Usage = { promptTokens: 0, completionTokens: 0, calls: 0, costUsd: null };
