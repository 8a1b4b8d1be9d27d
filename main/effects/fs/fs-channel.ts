// The files channel: checkpoints around each action, the effect it recorded, the reverse plan in words
// and in machine form. Every checkpoint also compares the folder with the last one Posthoc took: what
// differs was edited outside Posthoc and is recorded as an external change, which no undo reverts.
// Undo, redo and rewind are in fs-revert.ts.
import type { FsEffect, ReversePlan, WorkspaceGrant } from '../../../shared/domain';
import type { UndoStore } from '../../store/undo-store';
import { CheckpointStore, type Checkpoint, type CheckpointOptions } from './checkpoint-store';
import { FolderLocks } from './folder-lock';
import { summarize } from './tree-diff';
import type { NotCovered } from './tree-model';

export type Checkpointed = { grant: WorkspaceGrant; store: CheckpointStore; commit: string; checkpoint: Checkpoint; taskId: string | null };

export type FsChannelOptions = CheckpointOptions & {
  /** The storage budget (bytes of large files) of a folder's checkpoints. */
  budgetFor?: (folder: string) => number;
};

export const DEFAULT_BUDGET_BYTES = 1024 * 1024 * 1024;
const SAVE_CACHE_AFTER_MS = 2000;

export class FsChannel {
  readonly locks = new FolderLocks();
  private readonly stores = new Map<string, Promise<CheckpointStore>>();
  private saveTimer: NodeJS.Timeout | undefined;
  private gate: ((folders: string[]) => Promise<unknown>) | null = null;

  constructor(
    private readonly checkpointsDir: string,
    readonly history: UndoStore,
    private readonly options: FsChannelOptions = {},
  ) {}

  storeFor(hostPath: string): Promise<CheckpointStore> {
    let store = this.stores.get(hostPath);
    if (!store) {
      store = CheckpointStore.open(hostPath, this.checkpointsDir, this.options);
      this.stores.set(hostPath, store);
      store.catch(() => this.stores.delete(hostPath));
    }
    return store;
  }

  /** Runs before an action's checkpoints of these folders: the undo engine finishes interrupted restores there. */
  setGate(gate: (folders: string[]) => Promise<unknown>): void {
    this.gate = gate;
  }

  budgetFor(folder: string): number {
    return this.options.budgetFor?.(folder) ?? DEFAULT_BUDGET_BYTES;
  }

  /** Runs `fn` holding the locks of these folders (sorted, so two callers never deadlock). */
  async withFolders<T>(folders: string[], fn: (stores: CheckpointStore[]) => Promise<T>): Promise<T> {
    const stores = await Promise.all(folders.map((f) => this.storeFor(f)));
    return this.locks.with(
      stores.map((s) => s.gitdir),
      () => fn(stores),
    );
  }

  /** Checkpoints every writable granted folder before an action. */
  async before(actionId: string, grants: WorkspaceGrant[], taskId: string | null = null): Promise<Checkpointed[]> {
    const out: Checkpointed[] = [];
    const writable = grants.filter((g) => !g.readOnly);
    await this.gate?.(writable.map((g) => g.hostPath));
    for (const grant of writable) {
      const checkpoint = await this.withFolders([grant.hostPath], async ([store]) => {
        const cp = await this.observe(store!, taskId, `before action ${actionId}`, actionId);
        await store!.pin(`actions/${actionId}/before`, cp.commit);
        return cp;
      });
      out.push({ grant, store: await this.storeFor(grant.hostPath), commit: checkpoint.commit, checkpoint, taskId });
    }
    return out;
  }

  /** Checkpoints the same folders after the action, records what it changed and returns its effects. */
  async after(actionId: string, befores: Checkpointed[]): Promise<Array<{ effect: FsEffect; after: Checkpointed }>> {
    const out: Array<{ effect: FsEffect; after: Checkpointed }> = [];
    for (const b of befores) {
      const folder = b.grant.hostPath;
      const result = await this.withFolders([folder], async ([store]) => {
        const cp = await store!.snapshot(`after action ${actionId}`, { parent: b.commit, budgetBytes: this.budgetFor(folder) });
        const changes = store!.diff(b.checkpoint.tree, cp.tree);
        const summary = summarize(changes);
        this.history.transaction(() => {
          if (changes.length > 0) {
            this.history.addChange({
              folder,
              kind: 'action',
              actionId,
              taskId: b.taskId,
              journalId: null,
              fromCommit: b.commit,
              toCommit: cp.commit,
              paths: changes.map((c) => c.path),
              summary,
            });
          }
          this.history.setHead(folder, cp.commit);
        });
        await store!.pin(`actions/${actionId}/after`, cp.commit);
        await store!.pin('head', cp.commit);
        this.scheduleSave();
        const touched = new Set([...summary.modified, ...summary.deleted, ...summary.renamed.map((r) => r.from)]);
        const effect: FsEffect = {
          channel: 'fs',
          workspace: b.grant.name,
          added: summary.added,
          modified: summary.modified,
          deleted: summary.deleted,
          renamed: summary.renamed,
          checkpointBefore: b.commit,
          checkpointAfter: cp.commit,
          notCovered: notCoveredOf(b.checkpoint.notCovered, cp.notCovered, touched),
        };
        return { effect, cp };
      });
      out.push({ effect: result.effect, after: { ...b, commit: result.cp.commit, checkpoint: result.cp } });
    }
    return out;
  }

  /**
   * Checkpoints a folder now and records whatever changed since Posthoc's last checkpoint of it as an
   * external change. Call it holding the folder's lock.
   */
  async observe(store: CheckpointStore, taskId: string | null, message: string, foundBy: string | null = null): Promise<Checkpoint> {
    const folder = store.workspace;
    const cp = await store.snapshot(message, { budgetBytes: this.budgetFor(folder) });
    const head = this.history.head(folder);
    let external: ReturnType<CheckpointStore['diff']> = [];
    if (head !== null && head !== cp.commit) {
      const previous = await store.checkpoint(head).catch(() => null);
      if (previous && previous.tree !== cp.tree) external = store.diff(previous.tree, cp.tree);
    }
    this.history.transaction(() => {
      if (external.length > 0) {
        this.history.addChange({
          folder,
          kind: 'external',
          actionId: null,
          taskId,
          journalId: null,
          foundBy,
          fromCommit: head!,
          toCommit: cp.commit,
          paths: external.map((c) => c.path),
          summary: summarize(external),
        });
      }
      this.history.setHead(folder, cp.commit);
    });
    await store.pin('head', cp.commit);
    this.scheduleSave();
    return cp;
  }

  reversePlan(effects: FsEffect[], grants: WorkspaceGrant[]): ReversePlan {
    const changed = effects.filter((e) => e.added.length + e.modified.length + e.deleted.length + (e.renamed?.length ?? 0) > 0);
    if (changed.length === 0) return { summary: 'Nothing to undo: no file changed.', steps: [], verified: true };
    const words = changed.map((e) => {
      const lost = new Set((e.notCovered ?? []).filter((n) => n.changed).map((n) => n.path));
      const back = [...e.modified, ...e.deleted].filter((p) => !lost.has(p));
      const parts = [
        e.added.length ? `delete ${list(e.added)}` : '',
        e.renamed?.length ? `move ${list(e.renamed.map((r) => `${r.to} back to ${r.from}`))}` : '',
        back.length ? `bring back the previous ${list(back)}` : '',
        lost.size ? `leave ${list([...lost])} as it is (not covered by undo)` : '',
      ].filter(Boolean);
      const where = grants.length > 1 ? ` in ${e.workspace}` : '';
      return `${parts.join(', ')}${where}`;
    });
    return {
      summary: `${capitalize(words.join('; '))} (checkpoint ${changed[0]!.checkpointBefore.slice(0, 8)}).`,
      steps: changed.map((e) => ({
        channel: 'fs' as const,
        workspace: e.workspace,
        restoreCheckpoint: e.checkpointBefore,
        remove: [...e.added, ...(e.renamed ?? []).map((r) => r.to)],
        restore: [...e.modified, ...e.deleted, ...(e.renamed ?? []).map((r) => r.from)],
      })),
      verified: true,
    };
  }

  /** Saves every stat cache now (at shutdown, and before a CLI command exits). */
  async close(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    for (const store of this.stores.values()) {
      const s = await store.catch(() => null);
      s?.saveCache();
    }
  }

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.close();
    }, SAVE_CACHE_AFTER_MS);
    this.saveTimer.unref();
  }
}

/** Not-covered paths of the checkpoints before and after, marking those the action changed. */
export function notCoveredOf(before: NotCovered[], after: NotCovered[], touched: Set<string>): NonNullable<FsEffect['notCovered']> {
  const was = new Map(before.map((n) => [n.path, n]));
  const is = new Map(after.map((n) => [n.path, n]));
  const out: NonNullable<FsEffect['notCovered']> = [];
  for (const [path, n] of was) {
    const later = is.get(path);
    const changed = touched.has(path) || !later || later.size !== n.size;
    out.push({ path, reason: n.reason, size: n.size, when: later ? 'both' : 'before', changed });
  }
  for (const [path, n] of is) if (!was.has(path)) out.push({ path, reason: n.reason, size: n.size, when: 'after', changed: false });
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

function list(paths: string[]): string {
  return paths.length <= 5 ? paths.join(', ') : `${paths.slice(0, 5).join(', ')} and ${paths.length - 5} more`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
