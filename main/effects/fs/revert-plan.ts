// What reverting recorded changes would write, checked against what the folder holds now.
//
// Each item is a recorded change of one folder (an action's run or redo, or an undo when redoing), as
// the trees before and after it. Reverting puts every changed path back to its entry before the change,
// and is allowed only where the folder still holds exactly what the change left there: no later edit
// is ever overwritten. Items are given in the order they are reverted (newest first); a path changed by
// several of them goes back to where the oldest found it.
import type { CheckpointStore } from './checkpoint-store';
import type { RestoreOp } from './restore';
import { diffTrees } from './tree-diff';
import { parentOf, sameEntry, type Entry } from './tree-model';

export type RevertItem = { actionId: string; fromTree: string; toTree: string; paths: readonly string[] };

export type ContentConflict = {
  path: string;
  reason: 'changed' | 'added-inside' | 'folder-gone';
  /** The action whose result no longer holds there. */
  actionId: string;
};

export type RevertPlan = {
  paths: string[];
  /** Steps that can be rolled back exactly (the current entry is stored). */
  ops: RestoreOp[];
  /** Steps that replace or remove a file not covered by undo: run last, once nothing can fail. */
  finalOps: RestoreOp[];
  /** Paths whose earlier entry is not stored (over the storage budget): left as they are. */
  notRestored: string[];
  conflicts: ContentConflict[];
  /** The entries the folder holds afterwards, for the checkpoint of the result. */
  changes: Array<{ path: string; to: Entry | null }>;
  /** The entries it holds now, for rolling back. */
  current: Map<string, Entry | null>;
};

/**
 * `setAside`: paths whose current content is the person's edit, kept as a copy by the same restore: they go
 * back whatever they hold now (every other check still applies).
 */
export function planRevert(store: CheckpointStore, currentTree: string, items: readonly RevertItem[], setAside: ReadonlySet<string> = new Set()): RevertPlan {
  const expected = new Map<string, { entry: Entry | null; actionId: string }>();
  const target = new Map<string, Entry | null>();
  for (const item of items) {
    for (const path of item.paths) {
      // The newest change of a path says what must be there now; the oldest says what goes back.
      if (!expected.has(path)) expected.set(path, { entry: store.lookup(item.toTree, path), actionId: item.actionId });
      target.set(path, store.lookup(item.fromTree, path));
    }
  }
  const paths = [...expected.keys()].sort();
  const inPlan = new Set(paths);
  const current = new Map<string, Entry | null>();
  const conflicts: ContentConflict[] = [];

  for (const path of paths) {
    const now = store.lookup(currentTree, path);
    current.set(path, now);
    const want = expected.get(path)!;
    if (!sameEntry(now, want.entry) && !setAside.has(path)) {
      conflicts.push({ path, reason: 'changed', actionId: want.actionId });
      continue;
    }
    const goal = target.get(path) ?? null;
    // A folder that goes away must hold nothing the plan does not remove.
    if (now?.kind === 'dir' && goal?.kind !== 'dir') {
      for (const inside of diffTrees(store.repo, now.oid, null)) {
        const full = `${path}/${inside.path}`;
        if (!inPlan.has(full)) conflicts.push({ path: full, reason: 'added-inside', actionId: want.actionId });
      }
    }
    // Something coming back needs its folder.
    if (goal !== null) {
      const parent = parentOf(path);
      if (parent !== '' && !inPlan.has(parent) && store.lookup(currentTree, parent)?.kind !== 'dir') {
        conflicts.push({ path: parent, reason: 'folder-gone', actionId: want.actionId });
      }
    }
  }

  const ops: RestoreOp[] = [];
  const finalOps: RestoreOp[] = [];
  const notRestored: string[] = [];
  const changes: Array<{ path: string; to: Entry | null }> = [];
  for (const path of paths) {
    const goal = target.get(path) ?? null;
    const now = current.get(path) ?? null;
    if (goal?.kind === 'uncovered') {
      notRestored.push(path);
      continue;
    }
    (now?.kind === 'uncovered' ? finalOps : ops).push({ path, to: goal });
    changes.push({ path, to: goal });
  }
  return { paths, ops, finalOps, notRestored, conflicts: dedupe(conflicts), changes, current };
}

/** The operations that put the folder back as it was before a plan ran (its stored entries only). */
export function rollbackOps(plan: RevertPlan): RestoreOp[] {
  const ops: RestoreOp[] = [];
  for (const path of plan.paths) {
    const was = plan.current.get(path) ?? null;
    if (was?.kind === 'uncovered') continue;
    ops.push({ path, to: was });
  }
  return ops;
}

function dedupe(conflicts: ContentConflict[]): ContentConflict[] {
  const seen = new Set<string>();
  return conflicts.filter((c) => {
    if (seen.has(c.path)) return false;
    seen.add(c.path);
    return true;
  });
}
