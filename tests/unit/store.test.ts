// The app database against a real better-sqlite3 file in a temporary folder.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { migrations } from '../../main/store/migrations';
import { TaskStore } from '../../main/store/task-store';
import type { Action, FsEffect, WorkspaceGrant } from '../../shared/domain';
import { reversePlanOf } from '../../shared/undo/reverse-plan';

let dir: string;
const open: AppDatabase[] = [];

function openDb(): AppDatabase {
  const db = openDatabase(dir);
  open.push(db);
  return db;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'posthoc-store-'));
});

afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const grant: WorkspaceGrant = { name: 'project', hostPath: '/home/ada/project', mountPath: '/workspace', readOnly: false };

const effect = (n: number): FsEffect => ({
  channel: 'fs',
  workspace: `/workspace/w${n}`,
  added: [`a${n}.txt`],
  modified: [`m${n}.txt`],
  deleted: [],
  checkpointBefore: `before-${n}`,
  checkpointAfter: `after-${n}`,
});

/** An action as the store reads it back: its reverse plan derived from the rest. */
const derived = (a: Omit<Action, 'reverse'>): Action => ({ ...a, reverse: reversePlanOf(a) });

function action(taskId: string, seq: number, patch: Partial<Action> = {}): Action {
  return derived({
    id: `action-${taskId}-${seq}`,
    taskId,
    seq,
    kind: 'code',
    language: 'python',
    source: 'print("hi")',
    status: 'running',
    output: { stdout: '', stderr: '', exitCode: null, timedOut: false, truncated: false },
    effects: [],
    messageId: null,
    // Every stored action lists its figures (none here).
    figures: [],
    confinement: { level: 'reversible', reason: 'No network.' },
    startedAt: '2025-01-01T00:00:00.000Z',
    finishedAt: null,
    undoneAt: null,
    ...patch,
  });
}

describe('openDatabase and migrations', () => {
  it('creates the database and sets user_version to the number of migrations', () => {
    const db = openDb();
    expect(migrations.length).toBeGreaterThan(0);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(['tasks', 'messages', 'actions', 'effects', 'settings']));
    expect(tables).not.toContain('checkpoints');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('opens an existing database again without re-running migrations or losing data', () => {
    const first = openDb();
    const created = new TaskStore(first).createTask({ title: 'keep me', workspaces: [], model: 'm' });
    first.close();
    const second = openDb();
    expect(second.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(new TaskStore(second).getTask(created.id)).toEqual(created);
    second.close();
    expect(() => openDb().close()).not.toThrow();
  });

  it('migrates a data folder written before plans were derived: the checkpoints table and reverse_json go, actions read back whole', () => {
    // The schema as it was before the migration that derives the plan, with an action as that schema stored it.
    const old = migrations.findIndex((m) => m.includes('DROP TABLE checkpoints'));
    expect(old).toBeGreaterThan(0);
    const raw = new Database(join(dir, 'posthoc.sqlite3'));
    for (const m of migrations.slice(0, old)) raw.exec(m);
    raw.pragma(`user_version = ${old}`);
    raw.prepare(`INSERT INTO tasks (id, title, status, workspaces_json, model, created_at, updated_at) VALUES ('t', 'old', 'done', '[]', 'm', 'x', 'x')`).run();
    raw.prepare(`INSERT INTO messages (id, task_id, seq, role, content, created_at) VALUES ('m1', 't', 1, 'assistant', 'hi', 'x')`).run();
    raw
      .prepare(
        `INSERT INTO actions (id, task_id, seq, kind, language, source, status, output_json, reverse_json, confinement_json, started_at)
         VALUES ('a', 't', 1, 'code', 'python', 'print(1)', 'done', ?, ?, ?, 'x')`,
      )
      .run(
        JSON.stringify({ stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false }),
        JSON.stringify({ summary: 'Delete a1.txt (checkpoint before-1).', steps: [{ channel: 'fs', workspace: 'w', restoreCheckpoint: 'before-1', remove: ['a1.txt'], restore: [] }], verified: true }),
        JSON.stringify({ level: 'reversible', reason: 'r' }),
      );
    raw.prepare(`INSERT INTO effects (action_id, seq, channel, data_json) VALUES ('a', 0, 'fs', ?)`).run(JSON.stringify(effect(1)));
    raw.prepare(`INSERT INTO checkpoints (commit_id, repo_path, workspace_path, action_id, phase, created_at) VALUES ('before-1', '/r', '/w', 'a', 'before', 'x')`).run();
    raw.close();

    const db = openDb();
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
    expect(tables).not.toContain('checkpoints');
    const columns = (db.prepare('PRAGMA table_info(actions)').all() as Array<{ name: string }>).map((c) => c.name);
    expect(columns).not.toContain('reverse_json');
    expect(columns).toContain('message_id');
    const read = new TaskStore(db).getAction('a')!;
    // Its message: the last assistant reply of its task from no later than it started.
    expect(read).toMatchObject({ status: 'done', messageId: 'm1', effects: [effect(1)] });
    expect(read.reverse).toEqual({
      state: 'ready',
      folders: 1,
      steps: [{ channel: 'fs', workspace: '/workspace/w1', remove: ['a1.txt'], restore: ['m1.txt'], moveBack: [], leave: [], ambiguous: [] }],
      irreversible: [],
      takenBack: [],
    });
  });

  it('folds the context windows saved a key per model into the declared map, and leaves the other settings alone', () => {
    const at = migrations.findIndex((m) => m.includes("'agent.contextWindows'"));
    expect(at).toBeGreaterThan(0);
    const raw = new Database(join(dir, 'posthoc.sqlite3'));
    for (const m of migrations.slice(0, at)) raw.exec(m);
    raw.pragma(`user_version = ${at}`);
    const put = raw.prepare('INSERT INTO settings (key, value_json) VALUES (?, ?)');
    put.run('agent.contextWindow.qwen2.5-coder:7b', '32768');
    put.run('agent.contextWindow.llama3', '8192');
    put.run('agent.maxSteps', '9');
    raw.close();
    const db = openDb();
    const store = new TaskStore(db);
    expect(store.getSetting('agent.contextWindows')).toEqual({ 'qwen2.5-coder:7b': 32768, llama3: 8192 });
    expect(store.getSetting('agent.contextWindow.llama3')).toBeUndefined();
    expect(store.getSetting('agent.maxSteps')).toBe(9);
    expect((db.prepare("SELECT count(*) AS n FROM settings WHERE key LIKE 'agent.contextWindow%'").get() as { n: number }).n).toBe(1);
  });

  it('adds no context-window map where none was saved', () => {
    expect(new TaskStore(openDb()).getSetting('agent.contextWindows')).toBeUndefined();
  });

  it('keeps the assistant message an action came from, and forgets it when the message goes', () => {
    const db = openDb();
    const store = new TaskStore(db);
    const task = store.createTask({ title: 't', workspaces: [], model: 'm' });
    const reply = store.addMessage(task.id, 'assistant', '```python\nprint(1)\n```');
    const saved = store.saveAction(action(task.id, 1, { messageId: reply.id }));
    expect(store.getAction(saved.id)!.messageId).toBe(reply.id);
    db.prepare('DELETE FROM messages WHERE id = ?').run(reply.id);
    expect(store.getAction(saved.id)!.messageId).toBeNull();
  });

  it('refuses a database written by a newer schema, saying what to do', () => {
    openDb().close();
    const raw = new Database(join(dir, 'posthoc.sqlite3'));
    raw.pragma(`user_version = ${migrations.length + 1}`);
    raw.close();
    expect(() => openDb()).toThrow(/newer Posthoc/);
    expect(() => openDb()).toThrow(/Update Posthoc or use another --data-dir/);
  });
});

describe('TaskStore: tasks', () => {
  it('round-trips createTask, getTask, listTasks and updateTask', async () => {
    const store = new TaskStore(openDb());
    const a = store.createTask({ title: 'First', workspaces: [grant], model: 'gpt-test' });
    expect(a).toMatchObject({ title: 'First', status: 'running', workspaces: [grant], model: 'gpt-test', answer: null, error: null });
    expect(store.getTask(a.id)).toEqual(a);
    expect(store.getTask('missing')).toBeUndefined();

    await new Promise((r) => setTimeout(r, 5));
    const b = store.createTask({ title: 'Second', workspaces: [], model: 'gpt-test' });
    expect(store.listTasks().map((t) => t.id)).toEqual([b.id, a.id]);

    await new Promise((r) => setTimeout(r, 5));
    const updated = store.updateTask(a.id, { status: 'done', answer: '42' });
    expect(updated).toMatchObject({ id: a.id, status: 'done', answer: '42', error: null, title: 'First' });
    expect(updated.updatedAt > a.updatedAt).toBe(true);
    expect(updated.createdAt).toBe(a.createdAt);
    expect(store.getTask(a.id)).toEqual(updated);
  });

  it('refuses to update a task that does not exist', () => {
    const store = new TaskStore(openDb());
    expect(() => store.updateTask('nope', { status: 'failed' })).toThrow(/No task nope/);
  });
});

describe('TaskStore: messages', () => {
  it('numbers messages per task, starting at 1', () => {
    const store = new TaskStore(openDb());
    const t1 = store.createTask({ title: 'one', workspaces: [], model: 'm' });
    const t2 = store.createTask({ title: 'two', workspaces: [], model: 'm' });
    expect(store.addMessage(t1.id, 'user', 'hello').seq).toBe(1);
    expect(store.addMessage(t1.id, 'assistant', 'hi').seq).toBe(2);
    expect(store.addMessage(t2.id, 'user', 'other').seq).toBe(1);
    expect(store.addMessage(t1.id, 'observation', 'exit code 0').seq).toBe(3);
    expect(store.listMessages(t1.id).map((m) => [m.seq, m.role, m.content])).toEqual([
      [1, 'user', 'hello'],
      [2, 'assistant', 'hi'],
      [3, 'observation', 'exit code 0'],
    ]);
    expect(store.listMessages(t2.id)).toHaveLength(1);
  });

  it('refuses a message for a task that does not exist (foreign key)', () => {
    const store = new TaskStore(openDb());
    expect(() => store.addMessage('ghost', 'user', 'x')).toThrow();
  });
});

describe('TaskStore: actions', () => {
  it('saves an action and reads back an equal one, effects included and in order', () => {
    const store = new TaskStore(openDb());
    const task = store.createTask({ title: 't', workspaces: [grant], model: 'm' });
    const saved = action(task.id, 1, {
      status: 'done',
      output: { stdout: 'out', stderr: 'err', exitCode: 0, timedOut: false, truncated: true },
      effects: [effect(3), effect(1), effect(2)],
      finishedAt: '2025-01-01T00:00:02.000Z',
    });
    expect(store.saveAction(saved)).toEqual(saved);
    const read = store.getAction(saved.id);
    expect(read).toEqual(saved);
    // The plan is derived on read, one step per folder in the effects' order; nothing of it is stored.
    expect(read!.reverse).toMatchObject({ state: 'ready', folders: 3, steps: [{ channel: 'fs', workspace: '/workspace/w3', remove: ['a3.txt'], restore: ['m3.txt'] }, {}, {}] });
    expect(read!.effects.map((e) => (e.channel === 'fs' ? e.workspace : e.channel))).toEqual(['/workspace/w3', '/workspace/w1', '/workspace/w2']);
    expect(store.getAction('missing')).toBeUndefined();
  });

  it('updates status and output on a second save and replaces the effects', () => {
    const store = new TaskStore(openDb());
    const task = store.createTask({ title: 't', workspaces: [], model: 'm' });
    const first = action(task.id, 1, { effects: [effect(1), effect(2)] });
    store.saveAction(first);
    const second = {
      ...first,
      status: 'failed' as const,
      output: { stdout: 'partial', stderr: 'Traceback', exitCode: 1, timedOut: false, truncated: false },
      effects: [effect(9)],
      finishedAt: '2025-01-01T00:00:05.000Z',
    };
    store.saveAction(second);
    expect(store.getAction(first.id)).toEqual(derived(second));
    expect(store.listActions(task.id)).toHaveLength(1);
  });

  it('lists a task’s actions by seq', () => {
    const store = new TaskStore(openDb());
    const task = store.createTask({ title: 't', workspaces: [], model: 'm' });
    const other = store.createTask({ title: 'o', workspaces: [], model: 'm' });
    store.saveAction(action(task.id, 2));
    store.saveAction(action(task.id, 1));
    store.saveAction(action(other.id, 1));
    expect(store.listActions(task.id).map((a) => a.seq)).toEqual([1, 2]);
    expect(store.nextActionSeq(task.id)).toBe(3);
    expect(store.nextActionSeq(other.id)).toBe(2);
    expect(store.listActions()).toHaveLength(3);
  });

  it('refuses an action that does not match the schema, writing nothing', () => {
    const store = new TaskStore(openDb());
    const task = store.createTask({ title: 't', workspaces: [], model: 'm' });
    const bad = { ...action(task.id, 1), language: 'ruby' } as unknown as Action;
    expect(() => store.saveAction(bad)).toThrow();
    expect(store.listActions(task.id)).toEqual([]);
  });

  it("setActionStatus('undone') sets undoneAt; another status keeps it", () => {
    const store = new TaskStore(openDb());
    const task = store.createTask({ title: 't', workspaces: [], model: 'm' });
    const saved = store.saveAction(action(task.id, 1, { status: 'done', effects: [effect(1)] }));
    expect(saved.undoneAt).toBeNull();

    const undone = store.setActionStatus(saved.id, 'undone');
    expect(undone.status).toBe('undone');
    expect(undone.undoneAt).not.toBeNull();
    expect(Number.isNaN(Date.parse(undone.undoneAt!))).toBe(false);
    expect(store.getAction(saved.id)).toEqual(undone);
    expect(undone.effects).toEqual(saved.effects);

    const kept = store.setActionStatus(saved.id, 'kept');
    expect(kept.undoneAt).toBe(undone.undoneAt);
    expect(store.getAction(saved.id)!.status).toBe('kept');
  });

  it('does not set undoneAt for other statuses', () => {
    const store = new TaskStore(openDb());
    const task = store.createTask({ title: 't', workspaces: [], model: 'm' });
    const saved = store.saveAction(action(task.id, 1, { status: 'done' }));
    expect(store.setActionStatus(saved.id, 'kept').undoneAt).toBeNull();
    expect(() => store.setActionStatus('missing', 'kept')).toThrow(/No action missing/);
  });
});

describe('TaskStore: settings', () => {
  it('gets, sets, overwrites and deletes (null removes) settings as JSON values', () => {
    const store = new TaskStore(openDb());
    expect(store.getSetting('provider.model')).toBeUndefined();
    store.setSetting('provider.model', 'gpt-test');
    expect(store.getSetting<string>('provider.model')).toBe('gpt-test');
    store.setSetting('provider.model', 'other');
    expect(store.getSetting<string>('provider.model')).toBe('other');
    store.setSetting('agent.maxSteps', 7);
    expect(store.getSetting<number>('agent.maxSteps')).toBe(7);
    store.setSetting('complex', { a: [1, 2], b: false });
    expect(store.getSetting('complex')).toEqual({ a: [1, 2], b: false });
    store.setSetting('provider.model', null);
    expect(store.getSetting('provider.model')).toBeUndefined();
    store.setSetting('agent.maxSteps', undefined);
    expect(store.getSetting('agent.maxSteps')).toBeUndefined();
    expect(store.getSetting('complex')).toEqual({ a: [1, 2], b: false });
  });

  it('keeps settings across reopening', () => {
    const db = openDb();
    new TaskStore(db).setSetting('k', 'v');
    db.close();
    expect(new TaskStore(openDb()).getSetting('k')).toBe('v');
  });
});
