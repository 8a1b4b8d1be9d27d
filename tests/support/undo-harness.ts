// The undo engine's real parts (SQLite store, files channel, shadow repositories, UndoService) around
// folders in a temporary directory, with "actions" that are plain functions instead of Docker runs. Each
// act() follows ActionRunner's sequence: action row, checkpoint before, run, checkpoint after, effects.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { FsChannel, type FsChannelOptions } from '../../main/effects/fs/fs-channel';
import { confinementOf } from '../../main/policy/confinement';
import { EventBus } from '../../main/services/event-bus';
import { filesReverter, undoChannels, type UndoChannelsDeps } from '../../main/services/undo-channels';
import { UndoService } from '../../main/services/undo-service';
import { UndoViews } from '../../main/services/undo-views';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';
import { UndoStore } from '../../main/store/undo-store';
import { UndoOperations } from '../../main/store/undo-operations';
import type { LibraryClaims } from '../../main/sandbox/claims';
import type { Action, Effect, Task, WorkspaceGrant } from '../../shared/domain';
import { tempDirs } from './temp-dir';

export type ActOptions = {
  fails?: boolean;
  task?: Task;
  lease?: boolean;
  claims?: () => LibraryClaims | null | undefined;
  meanwhile?: () => void;
  /** The action's effects on other channels (databases, services), read after `fn`; recorded after its files'. */
  effects?: () => Effect[];
};

export type UndoHarness = {
  dataDir: string;
  /** The granted folders' host paths, in grant order. */
  folders: string[];
  workspace: string;
  db: AppDatabase;
  store: TaskStore;
  fs: FsChannel;
  undo: UndoService;
  views: UndoViews;
  events: EventBus;
  task: Task;
  /**
   * Runs `fn` as one action of the task; `fails` records it as failed (exit 1). With `lease`, the action
   * holds its folders' lease as ActionRunner's do; `claims` is its claim log, read after `fn`; `meanwhile`
   * runs after that, before the checkpoint after (the person's edits while the action ran).
   */
  act(fn: () => unknown, options?: ActOptions): Promise<Action>;
  newTask(title?: string): Task;
  /** Opens a second set of services on the same data folder, as a fresh process would. */
  reopen(options?: { checkpoints?: FsChannelOptions }): Promise<UndoHarness>;
  close(): Promise<void>;
};

export async function startUndoHarness(
  options: {
    checkpoints?: FsChannelOptions;
    folders?: number;
    dataDir?: string;
    workspaces?: string[];
    budgetBytes?: number;
    /** The UndoService's other channels (`db`, `rest`, `tools`, `memory`), as the composition root passes them. */
    channels?: Pick<UndoChannelsDeps, 'db' | 'rest' | 'tools' | 'memory'>;
  } = {},
): Promise<UndoHarness> {
  const dirs = tempDirs();
  const dataDir = options.dataDir ?? dirs.make('posthoc-undo-data-');
  const folders = options.workspaces ?? Array.from({ length: options.folders ?? 1 }, () => dirs.make('posthoc-undo-ws-'));
  for (const f of folders) mkdirSync(f, { recursive: true });
  const db = openDatabase(dataDir);
  const store = new TaskStore(db);
  const events = new EventBus();
  const fs = new FsChannel(join(dataDir, 'checkpoints'), new UndoStore(db), {
    ...options.checkpoints,
    budgetFor: () => options.budgetBytes ?? 1024 * 1024 * 1024,
  });
  const running = new Set<string>();
  const operations = new UndoOperations(db);
  const reverter = filesReverter(store, fs);
  const channels = undoChannels({ store, fs, reverter, ...options.channels });
  const undo = new UndoService(store, fs, events, { isRunning: (id) => running.has(id), operations, channels, reverter });
  const views = new UndoViews(store, fs, undo, (id) => running.has(id), operations);
  await undo.recover();
  const grants: WorkspaceGrant[] = folders.map((hostPath, i) => ({
    name: folders.length > 1 ? `w${i}` : 'workspace',
    hostPath,
    mountPath: folders.length > 1 ? `/workspace/w${i}` : '/workspace',
    readOnly: false,
  }));
  const newTask = (title = 'task') => store.createTask({ title, workspaces: grants, model: 'test' });
  const existing = store.listTasks();
  const task = existing.at(-1) ?? newTask();

  const act = async (fn: () => unknown, opts: ActOptions = {}): Promise<Action> => {
    const t = opts.task ?? task;
    const id = randomUUID();
    const base: Omit<Action, 'reverse'> = {
      id,
      taskId: t.id,
      seq: store.nextActionSeq(t.id),
      kind: 'code',
      language: 'python',
      source: `# test action ${id.slice(0, 8)}`,
      status: 'running',
      output: { stdout: '', stderr: '', exitCode: null, timedOut: false, truncated: false },
      effects: [],
      messageId: null,
      confinement: { level: 'reversible', reason: 'running' },
      startedAt: new Date().toISOString(),
      finishedAt: null,
      undoneAt: null,
    };
    store.saveAction(base);
    if (opts.lease) await fs.lease(id, t.id, t.workspaces, { taskTitle: t.title, actionSeq: base.seq });
    const befores = await fs.before(id, t.workspaces, t.id);
    running.add(t.id);
    let claims: LibraryClaims | null | undefined;
    let others: Effect[] = [];
    try {
      await fn();
      others = opts.effects?.() ?? [];
      claims = opts.claims?.();
      opts.meanwhile?.();
    } finally {
      running.delete(t.id);
    }
    const recorded = await fs.after(id, befores, claims);
    const effects: Effect[] = [...recorded.map((r) => r.effect), ...others];
    return store.saveAction({
      ...base,
      status: opts.fails ? 'failed' : 'done',
      output: { ...base.output, exitCode: opts.fails ? 1 : 0 },
      effects,
      confinement: confinementOf({ network: 'none', writableMountsCheckpointed: true, checkpointsTaken: true }, effects),
      finishedAt: new Date().toISOString(),
    });
  };

  return {
    dataDir,
    folders,
    workspace: folders[0]!,
    db,
    store,
    fs,
    undo,
    views,
    events,
    task,
    act,
    newTask,
    reopen: (o = {}) => startUndoHarness({ ...options, ...o, dataDir, workspaces: folders }),
    async close() {
      await undo.settle();
      await fs.close();
      if (db.open) db.close();
      dirs.cleanup();
    },
  };
}

/** A harness whose restores stop for good after `step` steps, as if the process died there, and a promise that resolves when they do. */
export async function startFreezingUndoHarness(step: number): Promise<{ h: UndoHarness; reached: Promise<void> }> {
  let stopped!: () => void;
  const reached = new Promise<void>((resolve) => (stopped = resolve));
  const h = await startUndoHarness({
    checkpoints: {
      restoreHooks: {
        afterStep: (n) => {
          if (n !== step) return;
          stopped();
          return new Promise<void>(() => undefined); // never continues
        },
      },
    },
  });
  return { h, reached };
}

/**
 * For a test file: `harness()` starts an undo harness, `closing()` takes one started otherwise (a reopened
 * one, a freezing one, a channels harness); all are closed after each test, newest first.
 */
export function undoHarnessesPerTest(): {
  harness(options?: Parameters<typeof startUndoHarness>[0]): Promise<UndoHarness>;
  closing<T extends { close(): Promise<void> }>(opened: T): T;
} {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const h of open.splice(0).reverse()) await h.close();
  });
  const closing = <T extends { close(): Promise<void> }>(opened: T): T => {
    open.push(opened);
    return opened;
  };
  return { harness: async (options) => closing(await startUndoHarness(options)), closing };
}
