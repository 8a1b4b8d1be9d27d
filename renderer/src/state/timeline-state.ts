// The renderer's copy of each task's undo timeline, the outcome of the last undo, redo or rewind per
// action, and the diff being viewed. Pure transitions; no I/O in this file.
import type { Result } from '../../../shared/contract';
import type { Action, KeptCopy } from '../../../shared/domain';
import type { FileDiff, Timeline } from '../../../shared/domain/undo';

export type Operation = 'undo' | 'redo' | 'rewind';
export type OperationOutcome = {
  operation: Operation;
  tone: 'ok' | 'warn' | 'error';
  text: string;
  paths: string[];
  canRewind: boolean;
  /** A refusal that the same operation keeping the person's edits as copies would get past. */
  canKeepCopies?: boolean;
  /** With canKeepCopies: the files the person changed, which it would keep as copies. */
  keepCopyPaths?: string[];
  /** The person's edits kept as copies before their files went back. */
  copies?: KeptCopy[];
  /** The action's status after it, when main answered (a card's message stands while it holds). */
  status?: Action['status'];
};
/** keepCopies: the operation keeps the person's edits in its way as copies ("NAME (your edit).ext") first. */
export type Busy = { actionId: string; operation: Operation; keepCopies?: boolean };
/** since: the edits made to the path after the action (what it left against the latest checkpoint). */
export type DiffRequest = { actionId: string; path: string; workspace?: string; since?: boolean };

export type TimelineState = {
  byTask: Readonly<Record<string, { timeline: Timeline | null; error: string | null; loading: boolean }>>;
  /** The last operation on each action, shown under its row until the next one. */
  outcomes: Readonly<Record<string, OperationOutcome>>;
  /** The action an operation is running for right now (one at a time). */
  busy: Busy | null;
  diff: { request: DiffRequest; result: Result<FileDiff> | null } | null;
};

export function getEmptyState(): TimelineState {
  return { byTask: {}, outcomes: {}, busy: null, diff: null };
}

export function applyLoading(state: TimelineState, taskId: string): TimelineState {
  const current = state.byTask[taskId];
  return { ...state, byTask: { ...state.byTask, [taskId]: { timeline: current?.timeline ?? null, error: null, loading: true } } };
}

export function applyLoaded(state: TimelineState, taskId: string, result: Result<Timeline>): TimelineState {
  const current = state.byTask[taskId];
  const next = result.ok
    ? { timeline: result.value, error: null, loading: false }
    : { timeline: current?.timeline ?? null, error: result.error.message, loading: false };
  return { ...state, byTask: { ...state.byTask, [taskId]: next } };
}

export function applyBusy(state: TimelineState, actionId: string, operation: Operation, keepCopies = false): TimelineState {
  const { [actionId]: _cleared, ...outcomes } = state.outcomes;
  return { ...state, busy: keepCopies ? { actionId, operation, keepCopies } : { actionId, operation }, outcomes };
}

export function applyOutcome(state: TimelineState, actionId: string, outcome: OperationOutcome): TimelineState {
  return { ...state, busy: null, outcomes: { ...state.outcomes, [actionId]: outcome } };
}

export function applyDiffOpened(state: TimelineState, request: DiffRequest): TimelineState {
  return { ...state, diff: { request, result: null } };
}

export function applyDiffLoaded(state: TimelineState, request: DiffRequest, result: Result<FileDiff>): TimelineState {
  // A slow answer for a diff that was closed or replaced is dropped.
  if (state.diff === null || state.diff.request !== request) return state;
  return { ...state, diff: { request, result } };
}

export function applyDiffClosed(state: TimelineState): TimelineState {
  return state.diff === null ? state : { ...state, diff: null };
}

export const selectTimeline = (state: TimelineState, taskId: string) => state.byTask[taskId];
