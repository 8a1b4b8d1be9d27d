// The reference model's undo rules: a history of changes (actions, undos, redos, outside edits) with the
// path sets that differ, and what undo, redo and rewind are allowed to do with it. Written from the
// issue's rules, independently of main/effects/fs, and checked against it by the property tests.
import { changed, overlaps, parent, sameNode, under, type Node, type State } from './fs-model';

/** `setAside`: an undo that kept the person's edits as copies (its `paths`) set these paths' earlier outside edits aside. */
type Event = { id: number; kind: 'action' | 'undo' | 'redo' | 'external'; action: number | null; paths: string[]; setAside?: string[] };
export type ModelAction = {
  status: 'done' | 'failed' | 'undone' | 'kept';
  before: State;
  after: State;
  paths: string[];
  fails: boolean;
  /** Write-counter times of its latest application and latest undo. */
  appliedAt: number;
  undoneAt: number;
};
export type Decision = { ok: true; copies: Array<{ path: string; copy: string }> } | { ok: false; why: string };
/** What stands in the way at a path: an outside edit or changed content (a copy can keep it), or something else. */
type Blocker = { path: string; personal: boolean; why: string };

const clone = (s: State): State => new Map(s);

export class UndoModel {
  state: State = new Map();
  readonly actions: ModelAction[] = [];
  readonly events: Event[] = [];
  externals = 0;
  /** Paths an outside edit removed (net, as a checkpoint saw it), and when. */
  readonly removedOutside = new Map<string, number>();
  private lastCheckpoint: State = new Map();
  private nextId = 1;

  constructor(private readonly clock: () => number) {}

  /**
   * A checkpoint: whatever changed since the last one was edited outside Posthoc. Who wrote a node is
   * settled here too, at the checkpoint's granularity: an outside write that changed nothing in the end
   * (written, then written back) is no edit.
   */
  checkpoint(): void {
    const paths = changed(this.lastCheckpoint, this.state);
    const at = this.clock();
    for (const [p, n] of this.state) {
      const old = this.lastCheckpoint.get(p);
      if (old && sameNode(old, n)) this.state.set(p, old);
    }
    for (const p of paths) {
      const n = this.state.get(p);
      if (n) {
        this.state.set(p, { ...n, by: 'person', at });
        this.removedOutside.delete(p);
      } else this.removedOutside.set(p, at);
    }
    if (paths.length > 0 && this.actions.length + this.events.length > 0) {
      this.events.push({ id: this.nextId++, kind: 'external', action: null, paths });
      this.externals++;
    }
    this.lastCheckpoint = clone(this.state);
  }

  startAction(): State {
    this.checkpoint();
    return clone(this.state);
  }

  finishAction(before: State, fails: boolean, at: number): number {
    const after = clone(this.state);
    const paths = changed(before, after);
    for (const p of paths) if (!after.has(p)) this.removedOutside.delete(p);
    const index = this.actions.length;
    this.actions.push({ status: fails ? 'failed' : 'done', before, after, paths, fails, appliedAt: at, undoneAt: 0 });
    if (paths.length > 0) this.events.push({ id: this.nextId++, kind: 'action', action: index, paths });
    this.lastCheckpoint = clone(after);
    return index;
  }

  applied(i: number): boolean {
    return this.actions[i]!.status !== 'undone';
  }

  /** Rewind order: latest applied first. */
  rewindSet(i: number): number[] {
    const later = this.actions.map((_, j) => j).filter((j) => j >= i && this.actions[j]!.status !== 'undone');
    const order = (j: number) => Math.max(0, ...this.events.filter((e) => e.action === j && (e.kind === 'action' || e.kind === 'redo')).map((e) => e.id));
    return later.sort((a, b) => order(b) - order(a) || b - a);
  }

  /**
   * Decides and, when allowed, performs the operation on the model. `keepCopies` (undo and rewind): a path
   * in the way only because the person changed a file there is copied to "NAME (your edit).ext" and goes
   * back with the rest.
   */
  revert(operation: 'undo' | 'redo' | 'rewind', i: number, at: number, keepCopies = false): Decision {
    const list = operation === 'rewind' ? this.rewindSet(i) : [i];
    const direction = operation === 'redo' ? 'redo' : 'undo';
    this.checkpoint();
    const found: Blocker[] = [];
    for (const [k, j] of list.entries()) {
      found.push(...(direction === 'undo' ? this.undoBlockers(j, new Set(list.slice(0, k))) : this.redoBlockers(j)));
    }
    const expected = new Map<string, Node | undefined>();
    const target = new Map<string, Node | undefined>();
    for (const j of list) {
      const a = this.actions[j]!;
      for (const p of a.paths) {
        if (!expected.has(p)) expected.set(p, direction === 'undo' ? a.after.get(p) : a.before.get(p));
        target.set(p, direction === 'undo' ? a.before.get(p) : a.after.get(p));
      }
    }
    const plan = new Set(expected.keys());
    for (const p of [...plan].sort()) {
      const now = this.state.get(p);
      if (!sameNode(now, expected.get(p))) found.push({ path: p, personal: true, why: `content of ${p}` });
      const goal = target.get(p);
      if (now?.type === 'dir' && goal?.type !== 'dir') {
        for (const q of this.state.keys()) if (under(q, p) && !plan.has(q)) found.push({ path: q, personal: false, why: `${q} inside ${p}` });
      }
      if (goal && parent(p) !== '' && !plan.has(parent(p)) && this.state.get(parent(p))?.type !== 'dir') found.push({ path: parent(p), personal: false, why: `folder of ${p}` });
    }
    if (found.length > 0) {
      const copyable = (p: string) => {
        const now = this.state.get(p);
        return plan.has(p) && (now?.type === 'file' || now?.type === 'link') && found.every((b) => b.path !== p || b.personal);
      };
      if (!(keepCopies && direction === 'undo' && found.every((b) => copyable(b.path)))) return { ok: false, why: found[0]!.why };
    }
    const copies = keepCopies && direction === 'undo' ? this.chooseCopies([...new Set(found.map((b) => b.path))], target, plan) : [];
    for (const c of copies) this.state.set(c.copy, { ...this.state.get(c.path)!, by: 'person', at });
    if (copies.length > 0) {
      this.events.push({ id: this.nextId++, kind: 'external', action: null, paths: copies.map((c) => c.copy), setAside: copies.map((c) => c.path) });
      this.externals++;
    }
    for (const p of plan) {
      const goal = target.get(p);
      if (goal) this.state.set(p, goal);
      else this.state.delete(p);
    }
    for (const j of list) {
      const a = this.actions[j]!;
      if (direction === 'undo') {
        a.status = 'undone';
        a.undoneAt = at;
      } else {
        a.status = a.fails ? 'failed' : 'done';
        a.appliedAt = at;
      }
      if (a.paths.length > 0) this.events.push({ id: this.nextId++, kind: direction, action: j, paths: a.paths });
    }
    this.lastCheckpoint = clone(this.state);
    return { ok: true, copies };
  }

  /** "NAME (your edit).ext", numbered when taken, in the nearest folder the revert keeps. */
  private chooseCopies(paths: string[], target: Map<string, Node | undefined>, plan: Set<string>): Array<{ path: string; copy: string }> {
    const taken = new Set<string>();
    const out: Array<{ path: string; copy: string }> = [];
    for (const path of paths.sort()) {
      let dir = parent(path);
      while (dir !== '' && plan.has(dir) && target.get(dir)?.type !== 'dir') dir = parent(dir);
      const base = path.slice(path.lastIndexOf('/') + 1);
      const dot = base.lastIndexOf('.');
      const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
      for (let n = 1; ; n++) {
        const name = `${stem} (your edit${n === 1 ? '' : ` ${n}`})${ext}`;
        const copy = dir === '' ? name : `${dir}/${name}`;
        if (taken.has(copy) || this.state.has(copy) || (plan.has(copy) && target.get(copy) !== undefined)) continue;
        taken.add(copy);
        out.push({ path, copy });
        break;
      }
    }
    return out;
  }

  private latest(i: number, kinds: Array<Event['kind']>): Event | undefined {
    return this.events.filter((e) => e.action === i && kinds.includes(e.kind)).at(-1);
  }

  private origin(i: number): number {
    return this.events.find((e) => e.action === i && e.kind === 'action')?.id ?? Number.POSITIVE_INFINITY;
  }

  private inEffect(e: Event): boolean {
    if (e.kind === 'external') return true;
    if (e.kind === 'undo') return false;
    return this.applied(e.action!) && this.latest(e.action!, ['action', 'redo'])?.id === e.id;
  }

  /** An outside edit of `path` kept as a copy by a later undo no longer holds it. */
  private setAsideAfter(e: Event, path: string): boolean {
    return e.kind === 'external' && this.events.some((f) => f.id > e.id && (f.setAside ?? []).includes(path));
  }

  private blockersOf(e: Event, paths: string[]): Blocker[] {
    return e.paths
      .filter((q) => overlaps(paths, [q]) && !this.setAsideAfter(e, q))
      .map((q) => ({ path: q, personal: e.kind === 'external', why: `${e.kind} ${e.action ?? ''} touched ${q}` }));
  }

  private undoBlockers(i: number, ignoring: Set<number>): Blocker[] {
    const applied = this.latest(i, ['action', 'redo']);
    if (!applied) return [];
    const out: Blocker[] = [];
    for (const e of this.events) {
      if (e.id <= applied.id || e.action === i || (e.action !== null && ignoring.has(e.action)) || !this.inEffect(e)) continue;
      out.push(...this.blockersOf(e, applied.paths));
    }
    return out;
  }

  private redoBlockers(i: number): Blocker[] {
    const undone = this.latest(i, ['undo']);
    if (!undone) return [];
    const out: Blocker[] = [];
    for (const e of this.events) {
      if (e.id <= undone.id || e.action === i || !this.inEffect(e)) continue;
      if (e.action !== null && e.kind !== 'external' && this.origin(e.action) < this.origin(i)) continue;
      out.push(...this.blockersOf(e, undone.paths));
    }
    return out;
  }
}
