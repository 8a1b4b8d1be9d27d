// How a task reads: action cards placed after the reply that produced them, assistant text split into
// prose and code, and what an action card says about changes and undo.
import { describe, expect, it } from 'vitest';
import type { Action, Message, UndoResult } from '../../shared/domain';
import { canKeep, canUndo, describeExit, describeUndo, listChanges } from '../../renderer/src/model/action-summary';
import { buildConversation, findAnswerMessageId, splitFences } from '../../renderer/src/model/conversation';

const at = (second: number): string => new Date(Date.UTC(2025, 0, 1, 10, 0, second)).toISOString();

function message(id: string, seq: number, role: Message['role'], second: number): Message {
  return { id, taskId: 't1', seq, role, content: id, createdAt: at(second) };
}

function action(id: string, seq: number, second: number, overrides: Partial<Action> = {}): Action {
  return {
    id,
    taskId: 't1',
    seq,
    kind: 'code',
    language: 'python',
    source: 'print(1)',
    status: 'done',
    output: { stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false },
    effects: [],
    reverse: { state: 'ready', folders: 0, steps: [], irreversible: [], takenBack: [] },
    messageId: null,
    confinement: { level: 'reversible', reason: 'r' },
    startedAt: at(second),
    finishedAt: at(second),
    undoneAt: null,
    ...overrides,
  };
}

const order = (items: ReturnType<typeof buildConversation>): string[] =>
  items.map((item) => (item.kind === 'message' ? item.message.id : item.action.id));

describe('buildConversation', () => {
  it('puts each action after the assistant reply that produced it, before the observation', () => {
    const messages = [
      message('user', 1, 'user', 0),
      message('reply1', 2, 'assistant', 1),
      message('obs1', 3, 'observation', 4),
      message('reply2', 4, 'assistant', 5),
      message('obs2', 5, 'observation', 7),
      message('final', 6, 'assistant', 8),
    ];
    const actions = [action('a3', 3, 6, { messageId: 'reply2' }), action('a1', 1, 2, { messageId: 'reply1' }), action('a2', 2, 3, { messageId: 'reply1' })];
    expect(order(buildConversation(messages, actions))).toEqual([
      'user',
      'reply1',
      'a1',
      'a2',
      'obs1',
      'reply2',
      'a3',
      'obs2',
      'final',
    ]);
  });

  it('places an action by its message id, whatever the clocks say', () => {
    // Same millisecond everywhere, and an action stamped before its own reply (a clock that went back).
    const messages = [message('user', 1, 'user', 0), message('reply', 2, 'assistant', 0), message('obs', 3, 'observation', 0), message('reply2', 4, 'assistant', 9)];
    const actions = [action('a1', 1, 0, { messageId: 'reply' }), action('a2', 2, 1, { messageId: 'reply2' })];
    expect(order(buildConversation(messages, actions))).toEqual(['user', 'reply', 'a1', 'obs', 'reply2', 'a2']);
  });

  it('shows an action with no recorded message (or one not loaded) at the end, in the order they ran', () => {
    const messages = [message('user', 1, 'user', 5), message('reply', 2, 'assistant', 6)];
    expect(order(buildConversation(messages, [action('a2', 2, 1), action('a1', 1, 7, { messageId: 'gone' })]))).toEqual(['user', 'reply', 'a1', 'a2']);
  });

  it('finds the final reply that the answer block replaces', () => {
    const items = buildConversation([message('user', 1, 'user', 0), message('final', 2, 'assistant', 1)], []);
    expect(findAnswerMessageId(items)).toBe('final');
    const withAction = buildConversation([message('user', 1, 'user', 0), message('reply', 2, 'assistant', 1)], [action('a1', 1, 2, { messageId: 'reply' })]);
    expect(findAnswerMessageId(withAction)).toBeNull();
  });
});

describe('splitFences', () => {
  it('separates prose and action code; other code stays in the markdown around it, as a fence', () => {
    const text = 'Let me look.\n\n```python\nprint("hi")\n```\nThen:\n~~~json\n{"a": 1}\n~~~\nDone.';
    expect(splitFences(text)).toEqual([
      { kind: 'prose', text: 'Let me look.' },
      { kind: 'code', tag: 'python', text: 'print("hi")', isAction: true },
      { kind: 'prose', text: 'Then:\n\n```json\n{"a": 1}\n```\n\nDone.' },
    ]);
  });

  it('writes a fence back longer than the backticks inside it, and leaves an unclosed one open', () => {
    expect(splitFences('<answer>\n````md\n```py\nx\n```\n````\n</answer>')).toEqual([{ kind: 'prose', text: '````md\n```py\nx\n```\n````' }]);
    expect(splitFences('<answer>\nRun:\n```bash\nls')).toEqual([{ kind: 'prose', text: 'Run:\n\n```bash\nls' }]);
  });

  it('folds an executed ```sql block into its card like python (it used to show twice)', () => {
    expect(splitFences('```sql shop\nSELECT 1;\n```')).toEqual([{ kind: 'code', tag: 'sql', text: 'SELECT 1;', isAction: true }]);
  });

  it('runs an unclosed fence (a reply still streaming) to the end', () => {
    expect(splitFences('Now:\n```bash\nls -la\n')).toEqual([
      { kind: 'prose', text: 'Now:' },
      { kind: 'code', tag: 'bash', text: 'ls -la\n', isAction: true },
    ]);
  });

  it('keeps markup as plain text', () => {
    expect(splitFences('<img src=x onerror=alert(1)>')).toEqual([{ kind: 'prose', text: '<img src=x onerror=alert(1)>' }]);
  });
});

describe('action summary', () => {
  const fs = (added: string[], modified: string[], deleted: string[]): Action['effects'][number] => ({
    channel: 'fs',
    workspace: 'notes',
    added,
    modified,
    deleted,
    checkpointBefore: 'c1',
    checkpointAfter: 'c2',
  });

  it('lists added, modified and deleted files', () => {
    expect(listChanges([fs(['a.txt'], ['b.txt'], ['c.txt'])]).map((c) => `${c.mark} ${c.path}`)).toEqual([
      'added a.txt',
      'modified b.txt',
      'deleted c.txt',
    ]);
  });

  it('offers undo only for a finished action that changed something', () => {
    const changed = [fs(['a.txt'], [], [])];
    expect(canUndo(action('a', 1, 0, { effects: changed }))).toBe(true);
    expect(canUndo(action('a', 1, 0, { effects: changed, status: 'failed' }))).toBe(true);
    expect(canUndo(action('a', 1, 0, { effects: [fs([], [], [])] }))).toBe(false);
    expect(canUndo(action('a', 1, 0, { effects: changed, status: 'running' }))).toBe(false);
    expect(canUndo(action('a', 1, 0, { effects: changed, status: 'undone' }))).toBe(false);
    expect(canUndo(action('a', 1, 0, { effects: changed, status: 'kept' }))).toBe(false);
    // Stopped, or closed after a crash: what it changed until then is undone like a finished action's.
    expect(canUndo(action('a', 1, 0, { effects: changed, status: 'interrupted' }))).toBe(true);
    expect(canKeep(action('a', 1, 0, { status: 'interrupted' }))).toBe(true);
    expect(canKeep(action('a', 1, 0, { status: 'kept' }))).toBe(false);
    expect(canKeep(action('a', 1, 0))).toBe(true);
  });

  it('says an interrupted action was stopped, and when its changes are not recorded yet', () => {
    const interrupted = (recorded: boolean) =>
      action('a', 1, 0, { status: 'interrupted', output: { stdout: '', stderr: '', exitCode: 137, timedOut: false, truncated: false, interrupted: { reason: 'Stopped by you.', recorded } } });
    // The header says "stopped": the exit line adds only that the changes are not recorded yet.
    expect(describeExit(interrupted(true))).toBeNull();
    expect(describeExit(interrupted(false))).toBe('changes not recorded yet');
    // Not recorded yet: nothing undo or keep could act on until the next start records it.
    expect(canUndo({ ...interrupted(false), effects: [fs(['a.txt'], [], [])] })).toBe(false);
    expect(canKeep(interrupted(false))).toBe(false);
  });

  it('describes an undo, a conflict and a failure', () => {
    const undone: UndoResult = { outcome: 'undone', action: action('a', 1, 0), removed: ['new.txt'], restored: ['old.txt'] };
    expect(describeUndo({ ok: true, value: undone })).toEqual({
      tone: 'ok',
      text: 'Undone: removed new.txt; restored old.txt',
      paths: [],
    });
    const conflict: UndoResult = { outcome: 'conflict', action: action('a', 1, 0), paths: ['x.txt'], message: 'A later action changed x.txt.' };
    expect(describeUndo({ ok: true, value: conflict })).toEqual({ tone: 'warn', text: 'A later action changed x.txt.', paths: ['x.txt'] });
    expect(describeUndo({ ok: false, error: { code: 'conflict', message: 'nope' } })).toEqual({ tone: 'error', text: 'nope', paths: [] });
  });
});
