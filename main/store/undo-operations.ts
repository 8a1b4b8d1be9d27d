// The record of every undo, redo and rewind across channels (the undo saga in
// main/services/undo-service.ts): what was asked, how it ended, and each channel's step with its result,
// for the timeline. Written once, when the operation has ended (refused, done or partial).
import type { UndoStep } from '../../shared/domain';
import type { AppDatabase } from './database';

export type UndoOperationRecord = {
  id: number;
  taskId: string;
  operation: 'undo' | 'redo' | 'rewind';
  actionIds: string[];
  outcome: 'done' | 'refused' | 'partial';
  steps: UndoStep[];
  /** Records the steps wrote elsewhere ("journal:ID" for the files' restore journal). */
  refs: string[];
  message: string | null;
  at: string;
};

type Row = {
  id: number;
  task_id: string;
  operation: UndoOperationRecord['operation'];
  action_ids_json: string;
  outcome: UndoOperationRecord['outcome'];
  steps_json: string;
  refs_json: string;
  message: string | null;
  at: string;
};

export class UndoOperations {
  constructor(private readonly db: AppDatabase) {}

  add(op: Omit<UndoOperationRecord, 'id' | 'at'>): UndoOperationRecord {
    const at = new Date().toISOString();
    const result = this.db
      .prepare('INSERT INTO undo_operations (task_id, operation, action_ids_json, outcome, steps_json, refs_json, message, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(op.taskId, op.operation, JSON.stringify(op.actionIds), op.outcome, JSON.stringify(op.steps), JSON.stringify(op.refs), op.message, at);
    return { ...op, id: Number(result.lastInsertRowid), at };
  }

  forTask(taskId: string): UndoOperationRecord[] {
    return (this.db.prepare('SELECT * FROM undo_operations WHERE task_id = ? ORDER BY id').all(taskId) as Row[]).map(toRecord);
  }

  /**
   * The restore journals of operations that did not go through (refused or partial): their local steps were
   * applied and then put back, so a file change they journaled re-applied nothing of the person's choosing.
   */
  putBackJournals(taskId: string): Set<number> {
    return putBackJournalsOf(this.forTask(taskId));
  }

  /** When each action of the task was last redone (ISO time), by id. */
  lastRedone(taskId: string): Map<string, string> {
    return lastRedoneOf(this.forTask(taskId));
  }
}

/** `putBackJournals` of a task's operations already read. */
export function putBackJournalsOf(operations: readonly UndoOperationRecord[]): Set<number> {
  const out = new Set<number>();
  for (const op of operations) {
    if (op.outcome === 'done') continue;
    for (const ref of op.refs) if (ref.startsWith('journal:')) out.add(Number(ref.slice('journal:'.length)));
  }
  return out;
}

/** `lastRedone` of a task's operations already read. */
export function lastRedoneOf(operations: readonly UndoOperationRecord[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const op of operations) {
    if (op.operation !== 'redo' || op.outcome !== 'done') continue;
    for (const id of op.actionIds) out.set(id, op.at);
  }
  return out;
}

/** Operations recorded before the channels had one id said their channel in words: read as the id. */
const LEGACY_CHANNEL_WORDS: Partial<Record<string, UndoStep['channel']>> = { files: 'fs', databases: 'db', services: 'rest', tools: 'mcp' };

function toRecord(r: Row): UndoOperationRecord {
  return {
    id: r.id,
    taskId: r.task_id,
    operation: r.operation,
    actionIds: JSON.parse(r.action_ids_json) as string[],
    outcome: r.outcome,
    steps: (JSON.parse(r.steps_json) as UndoStep[]).map((s) => ({ ...s, channel: LEGACY_CHANNEL_WORDS[s.channel] ?? s.channel })),
    refs: JSON.parse(r.refs_json) as string[],
    message: r.message,
    at: r.at,
  };
}
