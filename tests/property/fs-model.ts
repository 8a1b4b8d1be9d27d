// A simple reference model of a folder and of the undo rules, for the property tests: the folder is a
// map from path to node, an action's change is the set of paths whose node differs before and after it,
// and undo, redo and rewind are decided and applied on those maps alone (no git, no checkpoints).
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type By = 'agent' | 'person';
/** `by` and `at` (a write counter) say who last wrote a node and when; they are not part of the folder. */
export type Node =
  | { type: 'file'; data: Buffer; exec: boolean; by: By; at: number }
  | { type: 'link'; target: string; by: By; at: number }
  | { type: 'dir'; by: By; at: number };
export type State = Map<string, Node>;

export type Content = { kind: 'text'; text: string } | { kind: 'binary'; bytes: number[] } | { kind: 'large'; seed: number; size: number };
export type Op =
  | { op: 'write'; dir: number; name: string; content: Content }
  | { op: 'modify'; file: number; content: Content }
  | { op: 'delete'; entry: number }
  | { op: 'rename'; entry: number; dir: number; name: string }
  | { op: 'chmod'; file: number; exec: boolean }
  | { op: 'symlink'; dir: number; name: string; target: string }
  | { op: 'mkdir'; dir: number; name: string }
  | { op: 'rmdir'; dir: number };

const join2 = (dir: string, name: string) => (dir === '' ? name : `${dir}/${name}`);
const parent = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const under = (p: string, dir: string) => p.startsWith(`${dir}/`);

export function bytesOf(c: Content): Buffer {
  switch (c.kind) {
    case 'text':
      return Buffer.from(c.text, 'utf8');
    case 'binary':
      return Buffer.from(c.bytes);
    case 'large': {
      const out = Buffer.alloc(c.size);
      let x = c.seed | 1;
      for (let i = 0; i < c.size; i++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        out[i] = x & 0xff;
      }
      return out;
    }
  }
}

function pick<T>(list: T[], i: number): T | undefined {
  return list.length === 0 ? undefined : list[i % list.length];
}

/**
 * Applies one operation to the folder on disk and to the model; operations that make no sense here are
 * skipped. Returns the paths it removed.
 */
export function applyOp(root: string, state: State, op: Op, by: By, at: number): string[] {
  const paths = [...state.keys()].sort();
  const dirs = ['', ...paths.filter((p) => state.get(p)!.type === 'dir')];
  const files = paths.filter((p) => state.get(p)!.type === 'file');
  const abs = (p: string) => join(root, p);
  // Writing what is already there changes nothing, so it keeps who wrote it and when.
  const put = (p: string, node: Node) => {
    const old = state.get(p);
    state.set(p, old && sameNode(old, node) ? old : node);
  };
  const free = (p: string) => !state.has(p) && (parent(p) === '' || state.get(parent(p))?.type === 'dir');
  switch (op.op) {
    case 'write': {
      const p = join2(pick(dirs, op.dir)!, op.name);
      const existing = state.get(p);
      if (existing?.type === 'dir' || (!existing && !free(p))) return [];
      if (existing?.type === 'link') unlinkSync(abs(p)); // replace the link, never write through it
      const data = bytesOf(op.content);
      writeFileSync(abs(p), data);
      const exec = existing?.type === 'file' ? existing.exec : false;
      put(p, { type: 'file', data, exec, by, at });
      return [];
    }
    case 'modify': {
      const p = pick(files, op.file);
      if (!p) return [];
      const node = state.get(p) as Extract<Node, { type: 'file' }>;
      const data = bytesOf(op.content);
      writeFileSync(abs(p), data);
      put(p, { ...node, data, by, at });
      return [];
    }
    case 'delete': {
      const p = pick(paths, op.entry);
      if (!p) return [];
      rmSync(abs(p), { recursive: true });
      const gone = paths.filter((q) => q === p || under(q, p));
      for (const q of gone) state.delete(q);
      return gone;
    }
    case 'rename': {
      const from = pick(paths, op.entry);
      if (!from) return [];
      const to = join2(pick(dirs, op.dir)!, op.name);
      const moving = state.get(from)!;
      const target = state.get(to);
      if (to === from || under(to, from) || (!target && !free(to))) return [];
      if (target && (target.type === 'dir' || moving.type === 'dir')) return [];
      renameSync(abs(from), abs(to));
      const moved = paths.filter((q) => q === from || under(q, from));
      const nodes = moved.map((q) => [q, state.get(q)!] as const);
      for (const q of moved) state.delete(q);
      for (const [q, n] of nodes) put(to + q.slice(from.length), { ...n, by, at });
      return moved;
    }
    case 'chmod': {
      const p = pick(files, op.file);
      if (!p) return [];
      chmodSync(abs(p), op.exec ? 0o755 : 0o644);
      const node = state.get(p) as Extract<Node, { type: 'file' }>;
      put(p, { ...node, exec: op.exec, by, at });
      return [];
    }
    case 'symlink': {
      const p = join2(pick(dirs, op.dir)!, op.name);
      if (!free(p)) return [];
      symlinkSync(op.target, abs(p));
      put(p, { type: 'link', target: op.target, by, at });
      return [];
    }
    case 'mkdir': {
      const p = join2(pick(dirs, op.dir)!, op.name);
      if (!free(p)) return [];
      mkdirSync(abs(p));
      put(p, { type: 'dir', by, at });
      return [];
    }
    case 'rmdir': {
      const p = pick(dirs.slice(1), op.dir);
      if (!p || paths.some((q) => under(q, p))) return [];
      rmSync(abs(p), { recursive: true });
      state.delete(p);
      return [p];
    }
  }
}

/** The folder as it is on disk, in the model's terms (provenance unknown: 'agent'). */
export function readDisk(root: string): State {
  const state: State = new Map();
  const walk = (rel: string) => {
    for (const name of readdirSync(rel === '' ? root : join(root, rel))) {
      const p = join2(rel, name);
      const st = lstatSync(join(root, p));
      if (st.isDirectory()) {
        state.set(p, { type: 'dir', by: 'agent', at: 0 });
        walk(p);
      } else if (st.isSymbolicLink()) state.set(p, { type: 'link', target: readlinkSync(join(root, p)), by: 'agent', at: 0 });
      else state.set(p, { type: 'file', data: readFileSync(join(root, p)), exec: (st.mode & 0o100) !== 0, by: 'agent', at: 0 });
    }
  };
  walk('');
  return state;
}

export function sameNode(a: Node | undefined, b: Node | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.type !== b.type) return false;
  if (a.type === 'file' && b.type === 'file') return a.exec === b.exec && a.data.equals(b.data);
  if (a.type === 'link' && b.type === 'link') return a.target === b.target;
  return true;
}

/** Every path whose node differs (files and folders). */
export function changed(a: State, b: State): string[] {
  const out = new Set<string>();
  for (const [p, n] of a) if (!sameNode(n, b.get(p))) out.add(p);
  for (const p of b.keys()) if (!a.has(p)) out.add(p);
  return [...out].sort();
}

export function describeState(s: State): string {
  return [...s]
    .sort(([x], [y]) => (x < y ? -1 : 1))
    .map(([p, n]) => `${JSON.stringify(p)}:${n.type === 'file' ? `${n.exec ? 'x' : ''}${n.data.length}b:${n.data.subarray(0, 12).toString('hex')}` : n.type === 'link' ? `->${n.target}` : 'dir'}`)
    .join(' ');
}

export function overlaps(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  for (const q of b) {
    if (set.has(q)) return true;
    for (const p of a) if (under(p, q) || under(q, p)) return true;
  }
  return false;
}

export { parent, under };
