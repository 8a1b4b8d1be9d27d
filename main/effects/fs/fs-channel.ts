// The files channel: checkpoints around each action, the effect it recorded, the reverse plan in words
// and in machine form, and undo. Undo is all-or-nothing across the granted folders: every folder is
// checked for conflicts before any is restored.
import type { FsEffect, ReversePlan, WorkspaceGrant } from '../../../shared/domain';
import { CheckpointConflict, CheckpointStore } from './checkpoint-store';

export type Checkpointed = { grant: WorkspaceGrant; store: CheckpointStore; commit: string };

export class FsChannel {
  private readonly stores = new Map<string, Promise<CheckpointStore>>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly checkpointsDir: string) {}

  storeFor(hostPath: string): Promise<CheckpointStore> {
    let store = this.stores.get(hostPath);
    if (!store) {
      store = CheckpointStore.open(hostPath, this.checkpointsDir);
      this.stores.set(hostPath, store);
    }
    return store;
  }

  /** Checkpoints every writable granted folder before an action. */
  async before(actionId: string, grants: WorkspaceGrant[]): Promise<Checkpointed[]> {
    const out: Checkpointed[] = [];
    for (const grant of grants.filter((g) => !g.readOnly)) {
      const store = await this.storeFor(grant.hostPath);
      const commit = await this.serial(grant.hostPath, () => store.snapshot(`before action ${actionId}`));
      await store.pin(`actions/${actionId}/before`, commit);
      out.push({ grant, store, commit });
    }
    return out;
  }

  /** Checkpoints the same folders after the action and returns what changed in each. */
  async after(actionId: string, befores: Checkpointed[]): Promise<Array<{ effect: FsEffect; after: Checkpointed }>> {
    const out: Array<{ effect: FsEffect; after: Checkpointed }> = [];
    for (const b of befores) {
      const commit = await this.serial(b.grant.hostPath, () => b.store.snapshot(`after action ${actionId}`, b.commit));
      await b.store.pin(`actions/${actionId}/after`, commit);
      const change = await b.store.diff(b.commit, commit);
      out.push({
        effect: { channel: 'fs', workspace: b.grant.name, ...change, checkpointBefore: b.commit, checkpointAfter: commit },
        after: { ...b, commit },
      });
    }
    return out;
  }

  reversePlan(effects: FsEffect[], grants: WorkspaceGrant[]): ReversePlan {
    const changed = effects.filter((e) => e.added.length + e.modified.length + e.deleted.length > 0);
    if (changed.length === 0) return { summary: 'Nothing to undo: no file changed.', steps: [], verified: true };
    const words = changed.map((e) => {
      const parts = [
        e.added.length ? `delete ${list(e.added)}` : '',
        e.modified.length ? `restore the previous content of ${list(e.modified)}` : '',
        e.deleted.length ? `bring back ${list(e.deleted)}` : '',
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
        remove: e.added,
        restore: [...e.modified, ...e.deleted],
      })),
      verified: true,
    };
  }

  /** Undoes the effects, or throws CheckpointConflict naming every path that changed since, writing nothing. */
  async undo(effects: FsEffect[], grants: WorkspaceGrant[]): Promise<{ restored: string[]; removed: string[] }> {
    const targets = effects.map((effect) => {
      const grant = grants.find((g) => g.name === effect.workspace);
      if (!grant) throw new Error(`The folder "${effect.workspace}" is no longer granted to this task.`);
      return { effect, grant };
    });
    const conflicts: string[] = [];
    for (const { effect, grant } of targets) {
      const store = await this.storeFor(grant.hostPath);
      const paths = await this.serial(grant.hostPath, () => store.conflicts(effect.checkpointBefore, effect.checkpointAfter));
      conflicts.push(...paths.map((p) => (targets.length > 1 ? `${effect.workspace}/${p}` : p)));
    }
    if (conflicts.length > 0) throw new CheckpointConflict(conflicts);
    const restored: string[] = [];
    const removed: string[] = [];
    for (const { effect, grant } of targets) {
      const store = await this.storeFor(grant.hostPath);
      const r = await this.serial(grant.hostPath, () => store.restore(effect.checkpointBefore, effect.checkpointAfter));
      restored.push(...r.restored);
      removed.push(...r.removed);
    }
    return { restored, removed };
  }

  /** One checkpoint operation at a time per folder. */
  private serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    this.locks.set(key, next.catch(() => undefined));
    return next;
  }
}

function list(paths: string[]): string {
  return paths.length <= 5 ? paths.join(', ') : `${paths.slice(0, 5).join(', ')} and ${paths.length - 5} more`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
