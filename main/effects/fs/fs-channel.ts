// The files channel: checkpoints around each action and the effect it recorded (its reverse plan is
// derived from that effect: shared/undo/reverse-plan.ts). Every checkpoint also compares the folder with
// the last one Posthoc took: what differs was edited outside Posthoc and is recorded as an external
// change, which no undo reverts.
// One action at a time holds a folder (its lease, folder-lease.ts), and what changed while it ran is split
// between the action and the rest by what its processes claimed to write (attribution.ts).
// Undo, redo and rewind are in fs-revert.ts.
import type { FsEffect, WorkspaceGrant } from '../../../shared/domain';
import type { UndoStore } from '../../store/undo-store';
import { attribute, claimsFor, type Attribution, type WriteClaims } from './attribution';
import { GrantedFolder } from './beneath';
import { attributeByKernel } from './kernel-attribution';
import { CheckpointStore, type Checkpoint, type CheckpointOptions } from './checkpoint-store';
import { FolderLocks } from './folder-lock';
import { describeHolder, FolderBusy, FolderLeases, type LeaseHolder, type LeaseLabel } from './folder-lease';
import { summarize, type Change } from './tree-diff';
import { ancestorsOf, type NotCovered } from './tree-model';

export type Checkpointed = { grant: WorkspaceGrant; store: CheckpointStore; commit: string; checkpoint: Checkpoint; taskId: string | null };

export type FsChannelOptions = CheckpointOptions & {
  /** The storage budget (bytes of large files) of a folder's checkpoints. */
  budgetFor?: (folder: string) => number;
  /** How long an action waits for another action's lease on a folder before it is refused (default 60 s). */
  leaseWaitMs?: number;
  /** How long an undo, redo or rewind waits for a running action's lease (default 10 s). */
  idleWaitMs?: number;
};

export const DEFAULT_BUDGET_BYTES = 1024 * 1024 * 1024;
const SAVE_CACHE_AFTER_MS = 2000;
const LEASE_WAIT_MS = 60_000;
const IDLE_WAIT_MS = 10_000;
const LEASE_POLL_MS = 100;

export class FsChannel {
  readonly locks = new FolderLocks();
  readonly leases: FolderLeases;
  private readonly stores = new Map<string, Promise<CheckpointStore>>();
  private saveTimer: NodeJS.Timeout | undefined;
  private gate: ((folders: string[]) => Promise<unknown>) | null = null;

  constructor(
    private readonly checkpointsDir: string,
    readonly history: UndoStore,
    private readonly options: FsChannelOptions = {},
  ) {
    this.leases = new FolderLeases(checkpointsDir);
  }

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

  /**
   * Takes the lease of every writable granted folder for an action, so no other action (of any task, in
   * any process) runs on them until its checkpoint after is taken. Waits for another action's lease up to
   * `leaseWaitMs`, then refuses with FolderBusy naming the folder and who holds it. The lease ends with
   * after() (or a before() that fails), or with the function returned.
   */
  async lease(actionId: string, taskId: string | null, grants: WorkspaceGrant[], label: LeaseLabel = {}): Promise<() => void> {
    const folders = [...new Set(grants.filter((g) => !g.readOnly).map((g) => g.hostPath))].sort();
    const waitMs = this.options.leaseWaitMs ?? LEASE_WAIT_MS;
    const deadline = Date.now() + waitMs;
    const holder = { taskId, actionId, taskTitle: label.taskTitle ?? null, actionSeq: label.actionSeq ?? null };
    try {
      for (const folder of folders) {
        for (;;) {
          // Taken under the folder's lock: an undo checks under it too (withIdleFolders).
          const other = await this.withFolders([folder], async ([store]) => this.leases.take(store!.gitdir, holder, folder));
          if (!other) break;
          if (Date.now() >= deadline) {
            throw new FolderBusy(
              `${folder} is in use by ${describeHolder(other)}${onOther(other, folder)}. One action at a time may change a folder, so that each action's changes are told apart; this one waited ${seconds(waitMs)} for it and was not run. Run it again when that action has finished, or stop it.`,
              folder,
              other,
            );
          }
          await sleep(LEASE_POLL_MS);
        }
      }
    } catch (error) {
      this.endLease(actionId);
      throw error;
    }
    return () => this.endLease(actionId);
  }

  /** Ends an action's leases (after() does it; for callers whose action ends another way). */
  endLease(actionId: string): void {
    for (const gitdir of this.leases.heldBy(actionId)) this.leases.release(gitdir, actionId);
  }

  /**
   * Runs `fn` holding the folders' locks at a moment no action holds a lease on any of them (an undo must
   * not write under a running action's feet, nor take its writes for an edit made outside Posthoc). Waits
   * up to `idleWaitMs`, then refuses with FolderBusy; `what` names the operation in the message.
   */
  async withIdleFolders<T>(folders: string[], what: string, fn: (stores: CheckpointStore[]) => Promise<T>): Promise<T> {
    const waitMs = this.options.idleWaitMs ?? IDLE_WAIT_MS;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const result = await this.withFolders(folders, async (stores): Promise<{ value: T } | { folder: string; holder: LeaseHolder }> => {
        for (const store of stores) {
          const holder = this.leases.holderCovering(store.gitdir, store.workspace);
          if (holder) return { folder: store.workspace, holder };
        }
        return { value: await fn(stores) };
      });
      if ('value' in result) return result.value;
      if (Date.now() >= deadline) {
        throw new FolderBusy(
          `Cannot ${what} now: ${describeHolder(result.holder)} is running on ${result.folder}${onOther(result.holder, result.folder)}, and nothing is undone or redone under a running action. Posthoc waited ${seconds(waitMs)}; try again when it has finished.`,
          result.folder,
          result.holder,
        );
      }
      await sleep(LEASE_POLL_MS);
    }
  }

  /**
   * Waits (without the folders' locks) until no action holds a lease on these folders, up to `idleWaitMs`,
   * then refuses like withIdleFolders. For callers that must know before a step they cannot take back
   * (an undo sends service calls before it touches files); withIdleFolders checks again under the locks.
   */
  async awaitIdle(folders: string[], what: string): Promise<void> {
    await this.withIdleFolders(folders, what, async () => undefined);
  }

  /** Checkpoints every writable granted folder before an action. A failure ends the action's lease. */
  async before(actionId: string, grants: WorkspaceGrant[], taskId: string | null = null): Promise<Checkpointed[]> {
    const out: Checkpointed[] = [];
    const writable = grants.filter((g) => !g.readOnly);
    try {
      await this.gate?.(writable.map((g) => g.hostPath));
      for (const grant of writable) {
        const checkpoint = await this.withFolders([grant.hostPath], async ([store]) => {
          // The folder granted, and no other: a folder replaced since (a link swapped in) is not touched.
          if (grant.identity) store!.expectIdentity(grant.identity);
          const cp = await this.observe(store!, taskId, `before action ${actionId}`, actionId);
          await store!.pin(`actions/${actionId}/before`, cp.commit);
          return cp;
        });
        out.push({ grant, store: await this.storeFor(grant.hostPath), commit: checkpoint.commit, checkpoint, taskId });
      }
    } catch (error) {
      this.endLease(actionId);
      throw error;
    }
    return out;
  }

  /**
   * Checkpoints the same folders after the action, records what it changed and returns its effects. With
   * complete `claims` (what the kernel saw the sandbox's processes change, or what the claim library logged),
   * changes made while it ran that are not its own are recorded as edits made outside Posthoc, after its
   * change, so no undo reverts them; a path both changed is recorded in both, so undo refuses for it.
   * Without them every change in the window is the action's, as before attribution existed. Ends the action's
   * lease on each folder, whatever happens.
   */
  async after(actionId: string, befores: Checkpointed[], claims?: WriteClaims | null): Promise<Array<{ effect: FsEffect; after: Checkpointed }>> {
    const out: Array<{ effect: FsEffect; after: Checkpointed }> = [];
    try {
      for (const b of befores) {
        const { effect, cp } = await this.withFolders([b.grant.hostPath], async ([store]) => {
          const cp = await store!.snapshot(`after action ${actionId}`, { parent: b.commit, budgetBytes: this.budgetFor(b.grant.hostPath) });
          return { effect: await this.record(actionId, b, store!, cp, claims ?? null), cp };
        });
        out.push({ effect, after: { ...b, commit: cp.commit, checkpoint: cp } });
      }
    } finally {
      this.endLease(actionId);
    }
    return out;
  }

  /** Splits one folder's changes between the action and the rest, records both and returns the action's effect. */
  private async record(actionId: string, b: Checkpointed, store: CheckpointStore, cp: Checkpoint, claims: WriteClaims | null): Promise<FsEffect> {
    const folder = b.grant.hostPath;
    const changes = store.diff(b.checkpoint.tree, cp.tree);
    const split = splitChanges(changes, claims, b, store);
    const mine = split ? split.mine : changes;
    const summary = summarize(mine);
    const record = { folder, taskId: b.taskId, journalId: null, fromCommit: b.commit, toCommit: cp.commit };
    this.history.transaction(() => {
      if (mine.length > 0) this.history.addChange({ ...record, kind: 'action', actionId, paths: mine.map((c) => c.path), summary });
      if (split && split.theirs.length > 0) {
        // Recorded after the action's change: it is in effect over it, so an undo of the action never
        // puts back what someone else wrote meanwhile.
        this.history.addChange({
          ...record,
          kind: 'external',
          actionId: null,
          foundBy: actionId,
          during: true,
          ambiguous: split.ambiguous,
          paths: split.theirs.map((c) => c.path),
          summary: summarize(split.theirs),
        });
      }
      this.history.setHead(folder, cp.commit);
    });
    await store.pin(`actions/${actionId}/after`, cp.commit);
    await store.pin('head', cp.commit);
    this.scheduleSave();
    const touched = new Set([...summary.modified, ...summary.deleted, ...summary.renamed.map((r) => r.from)]);
    const owners = restoreOwners(folder, store, [...summary.added, ...summary.modified, ...summary.renamed.map((r) => r.to)]);
    return {
      channel: 'fs',
      workspace: b.grant.name,
      added: summary.added,
      modified: summary.modified,
      deleted: summary.deleted,
      renamed: summary.renamed,
      checkpointBefore: b.commit,
      checkpointAfter: cp.commit,
      notCovered: notCoveredOf(b.checkpoint.notCovered, cp.notCovered, touched),
      ...attributionOf(split, claims),
      ...(owners.length > 0 ? { ownersRestored: owners.slice(0, 50), ownersRestoredCount: owners.length } : {}),
    };
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

  /**
   * Saves every stat cache now (at shutdown, before a CLI command exits, and 2 s after a checkpoint). Never
   * throws: a cache that could not be saved (a full disk, a removed data folder) costs only reading files
   * again at the next start, and the timer's save must not become an unhandled rejection that ends the app.
   */
  async close(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    for (const store of this.stores.values()) {
      const s = await store.catch(() => null);
      try {
        s?.saveCache();
      } catch {
        // Only a cache: see above.
      }
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

/**
 * The changes split by the kernel's account or the claim library's; null without either. A log cut short (the
 * kernel's queue overflowed, a table or the claim log over its size, its file system full) may have lost any
 * record: no change can be told to be the action's alone, so each is both, and undo refuses rather than guess.
 */
function splitChanges(changes: Change[], claims: WriteClaims | null, b: Checkpointed, store: CheckpointStore): Attribution | null {
  if (!claims) return null;
  const folder = b.grant.hostPath;
  if (claims.kind === 'kernel') {
    if (!claims.log.complete || changes.length === 0) return claims.log.complete ? { mine: [], theirs: [], ambiguous: [] } : everyChangeBoth(changes);
    const granted = GrantedFolder.open(folder, store.identity());
    try {
      // Every path the matching asks for, looked up folder by folder first.
      const wanted = new Set<string>(['']);
      for (const c of changes) {
        if (c.after) wanted.add(c.path);
        for (const a of ancestorsOf(c.path)) wanted.add(a);
      }
      const known = granted.handles(wanted);
      return attributeByKernel(changes, claims.log, (rel) => (known.has(rel) ? known.get(rel)! : granted.handle(rel)));
    } finally {
      granted.close();
    }
  }
  if (!claims.complete) return everyChangeBoth(changes);
  return attribute(folder, changes, claimsFor(claims, b.grant.name, folder), (p) => store.lookup(b.checkpoint.tree, p));
}

function everyChangeBoth(changes: Change[]): Attribution {
  return { mine: [...changes], theirs: [...changes], ambiguous: changes.map((c) => c.path) };
}

/**
 * When Posthoc runs as root, a root-owned folder's action is root in its container and may chown (tar -x, cp -a):
 * every path it added or changed, and each folder above one, that is not the folder owner's is given back to
 * the folder's owner, beneath the folder without following links. Returns the paths given back.
 */
function restoreOwners(folder: string, store: CheckpointStore, paths: readonly string[]): string[] {
  if (process.getuid?.() !== 0 || paths.length === 0) return [];
  const granted = GrantedFolder.open(folder, store.identity());
  const given: string[] = [];
  try {
    const owner = granted.withDir('', (dir) => dir?.self() ?? null);
    // Only a root-owned folder's action holds CAP_CHOWN; any other action's files are its own user's.
    if (!owner || owner.uid !== 0 || !granted.beneath) return [];
    const all = new Set<string>();
    for (const p of paths) {
      for (const a of ancestorsOf(p)) all.add(a);
      all.add(p);
    }
    for (const rel of [...all].sort()) {
      const cut = rel.lastIndexOf('/');
      const [parent, name] = cut < 0 ? ['', rel] : [rel.slice(0, cut), rel.slice(cut + 1)];
      try {
        granted.withDir(parent, (dir) => {
          const st = dir?.stat(name);
          if (!dir || !st || (st.uid === owner.uid && st.gid === owner.gid)) return;
          dir.chown(name, owner.uid, owner.gid);
          given.push(rel);
        });
      } catch {
        // A link on the way now, or gone: nothing of it is changed.
      }
    }
  } finally {
    granted.close();
  }
  return given;
}

/** What the effect says about changes made by others while the action ran, or why it cannot say. */
function attributionOf(split: Attribution | null, claims: WriteClaims | null | undefined): Pick<FsEffect, 'whileRunning' | 'unattributed'> {
  if (!split) {
    return {
      unattributed:
        "Posthoc has no log of what the action wrote, so edits made by others while it ran cannot be told apart from the action's: all of them are taken for the action's.",
    };
  }
  if (claims?.kind === 'kernel' && !claims.log.complete) {
    return {
      unattributed: `The kernel's account of what the action wrote is incomplete (${claims.log.why ?? 'events were lost'}), so no change can be told to be the action's alone: undo leaves them all as they are (keep the action, or put files back by hand).`,
      ...(split.theirs.length > 0 ? { whileRunning: { ...summarize(split.theirs), ambiguous: split.ambiguous } } : {}),
    };
  }
  if (claims && claims.kind !== 'kernel' && !claims.complete) {
    return {
      unattributed:
        "The sandbox's log of what the action wrote was cut short, so no change can be told to be the action's alone: undo leaves them all as they are (keep the action, or put files back by hand).",
      ...(split.theirs.length > 0 ? { whileRunning: { ...summarize(split.theirs), ambiguous: split.ambiguous } } : {}),
    };
  }
  if (split.theirs.length === 0) return {};
  return { whileRunning: { ...summarize(split.theirs), ambiguous: split.ambiguous } };
}

/** ", on FOLDER, which contains it" when a lease held on an overlapping folder is what stands in the way. */
function onOther(holder: LeaseHolder, folder: string): string {
  if (!holder.folder || holder.folder === folder) return '';
  return holder.folder.length < folder.length ? ` (on ${holder.folder}, which contains it)` : ` (on ${holder.folder}, which lies inside it)`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
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
