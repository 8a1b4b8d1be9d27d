// Which undo, redo and rewind the history of a folder allows, before any file is looked at. Pure.
//
// A folder's history is its changes in order: actions that ran, undos, redos, and edits made outside
// Posthoc. A change is "in effect" while it shapes the folder: an outside edit always (no undo reverts
// it), an action's run or redo while the action is applied. An undo only puts back what the folder held
// before its action, so it never stands in the way of another undo or redo.
//
//  - Undo X: refused when a change in effect that came after X's latest application touches the same
//    paths (the same path, or a folder one of them created or removed).
//  - Rewind X: undo X and every later applied action of its task, newest first; each of them checked as
//    above, ignoring the ones the rewind itself undoes first.
//  - Redo X: refused when a change in effect that came after X's undo touches the same paths, except
//    changes of actions that ran before X (redoing those first is how a rewind is replayed).
//
// Edits made by others while X ran are an outside edit recorded just after X's run: in effect over it.
// A path X wrote that someone changed again after X's last write is in both, so undo of X refuses there.
//
// An undo asked to keep the person's edits as copies records, before its own change, an outside change
// that creates the copies and sets aside the edited paths: an outside edit of such a path made before it
// no longer stands in the way there (its content lives on in the copy); the copies themselves are outside
// edits like any other.
import { ancestorsOf, PathSet } from './tree-model';

export type HistoryEvent = {
  id: number;
  kind: 'action' | 'undo' | 'redo' | 'external';
  actionId: string | null;
  paths: readonly string[];
  /** Outside edits made while an action ran: that action. */
  during?: string | null;
  /** With `during`: the paths that action also wrote. */
  ambiguous?: readonly string[];
  /** External: paths whose earlier outside edits this change set aside (kept as copies, its own paths). */
  setAside?: readonly string[];
};

/** Whether an action is applied (anything but undone) or undone. */
export type ActionStateOf = (actionId: string) => 'applied' | 'undone';

export type HistoryBlocker = { path: string; event: HistoryEvent };

type Marks = { origin?: number; apply?: number; undo?: number };

export class FolderHistory {
  private readonly marks = new Map<string, Marks>();
  private readonly byId = new Map<number, HistoryEvent>();
  /** For each set-aside path, the latest change that set it aside. */
  private readonly asideAt = new Map<string, number>();
  private index: PathIndex | undefined;

  constructor(
    readonly events: readonly HistoryEvent[],
    private readonly stateOf: ActionStateOf,
  ) {
    for (const e of events) {
      this.byId.set(e.id, e);
      for (const p of e.setAside ?? []) this.asideAt.set(p, Math.max(this.asideAt.get(p) ?? 0, e.id));
      if (!e.actionId) continue;
      const m = this.marks.get(e.actionId) ?? {};
      if (e.kind === 'action') {
        m.origin ??= e.id;
        m.apply = e.id;
      } else if (e.kind === 'redo') m.apply = e.id;
      else if (e.kind === 'undo') m.undo = e.id;
      this.marks.set(e.actionId, m);
    }
  }

  /** The change that last applied the action here (its run or latest redo), if it changed this folder. */
  lastApplied(actionId: string): HistoryEvent | undefined {
    const id = this.marks.get(actionId)?.apply;
    return id === undefined ? undefined : this.byId.get(id);
  }

  lastUndone(actionId: string): HistoryEvent | undefined {
    const id = this.marks.get(actionId)?.undo;
    return id === undefined ? undefined : this.byId.get(id);
  }

  origin(actionId: string): number {
    return this.marks.get(actionId)?.origin ?? Number.POSITIVE_INFINITY;
  }

  /** Whether a change still shapes the folder in a way an undo or redo must not overwrite. */
  inEffect(e: HistoryEvent): boolean {
    if (e.kind === 'external' || e.actionId === null) return true;
    if (e.kind === 'undo') return false;
    return this.stateOf(e.actionId) === 'applied' && this.marks.get(e.actionId)?.apply === e.id;
  }

  /** What stops undoing `actionId` here; `ignoring` holds actions undone before it in the same operation. */
  undoBlockers(actionId: string, ignoring: ReadonlySet<string> = new Set()): HistoryBlocker[] {
    const applied = this.lastApplied(actionId);
    if (!applied) return [];
    return this.blockersAfter(applied.id, new PathSet(applied.paths), (e) => e.actionId !== actionId && !(e.actionId && ignoring.has(e.actionId)));
  }

  /**
   * The events with a path that overlaps `paths` (the same path, one inside, or one holding it), in order:
   * the only ones `blockersAfter` can report. Found through an index of the events by path, built on first
   * use, so a timeline that asks about every action does not scan the whole history for each (issue 27).
   */
  private touching(paths: PathSet): HistoryEvent[] {
    const index = (this.index ??= indexByPath(this.events));
    const found = new Set<number>();
    const add = (list: readonly number[] | undefined) => list?.forEach((i) => found.add(i));
    for (const p of paths) {
      add(index.exact.get(p));
      add(index.inside.get(p));
      for (const a of ancestorsOf(p)) add(index.exact.get(a));
    }
    return [...found].sort((a, b) => a - b).map((i) => this.events[i]!);
  }

  redoBlockers(actionId: string): HistoryBlocker[] {
    const undone = this.lastUndone(actionId);
    if (!undone) return [];
    const origin = this.origin(actionId);
    return this.blockersAfter(
      undone.id,
      new PathSet(undone.paths),
      (e) => e.actionId !== actionId && !(e.actionId !== null && e.kind !== 'external' && this.origin(e.actionId) < origin),
    );
  }

  private blockersAfter(after: number, paths: PathSet, counts: (e: HistoryEvent) => boolean): HistoryBlocker[] {
    const out: HistoryBlocker[] = [];
    for (const e of this.touching(paths)) {
      if (e.id <= after || !counts(e) || !this.inEffect(e)) continue;
      for (const path of paths.overlapping(e.paths)) {
        // An outside edit kept as a copy by a later undo no longer holds the path.
        if (e.kind === 'external' && (this.asideAt.get(path) ?? 0) > e.id) continue;
        out.push({ path, event: e });
      }
    }
    return out;
  }
}

/** Each event's position in the history by the paths it touched (`exact`) and by the folders holding them (`inside`). */
type PathIndex = { exact: Map<string, number[]>; inside: Map<string, number[]> };

function indexByPath(events: readonly HistoryEvent[]): PathIndex {
  const exact = new Map<string, number[]>();
  const inside = new Map<string, number[]>();
  const put = (map: Map<string, number[]>, key: string, i: number) => {
    const list = map.get(key);
    if (!list) map.set(key, [i]);
    else if (list[list.length - 1] !== i) list.push(i);
  };
  events.forEach((e, i) => {
    for (const p of e.paths) {
      put(exact, p, i);
      for (const a of ancestorsOf(p)) put(inside, a, i);
    }
  });
  return { exact, inside };
}
