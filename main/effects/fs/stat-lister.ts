// Lists folders with the stat fields of every entry (readdir + lstat, never following a link), in this
// thread or spread over worker threads. On a large folder almost all of a checkpoint's time is these
// system calls, so two cores list it in a little over half the time. The workers only read; hashing,
// writing objects and building trees stay in the calling thread.
import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import { WorkerPool } from './worker-pool';

export type Listing = {
  rel: string;
  /** Entry names joined by NUL (which no name contains). */
  names: string;
  /** Per entry: 0 folder, 1 regular file, 2 symbolic link, 3 other (socket, pipe, device), 4 vanished. */
  kinds: Uint8Array;
  /** Per entry: size, mtimeMs, ctimeMs, ino, mode. */
  stats: Float64Array;
  error: string | null;
};
export type ListJob = { rel: string; recursive: boolean };

export const KIND_DIR = 0;
export const KIND_FILE = 1;
export const KIND_LINK = 2;
export const KIND_OTHER = 3;
export const KIND_GONE = 4;

/**
 * Lists the jobs' folders (and, for recursive jobs, every folder below). Self-contained on purpose: the
 * worker threads run it from its source text, so it may use only its arguments.
 */
export function listFolders(fsm: typeof fs, root: string, jobs: ListJob[]): Listing[] {
  const out: Listing[] = [];
  const visit = (rel: string, recursive: boolean): void => {
    const abs = rel === '' ? root : `${root}/${rel}`;
    let dirents: fs.Dirent[];
    try {
      dirents = fsm.readdirSync(abs, { withFileTypes: true });
    } catch (error) {
      out.push({ rel, names: '', kinds: new Uint8Array(0), stats: new Float64Array(0), error: String((error as Error).message) });
      return;
    }
    const n = dirents.length;
    const kinds = new Uint8Array(n);
    const stats = new Float64Array(n * 5);
    const names: string[] = new Array<string>(n);
    const subdirs: string[] = [];
    for (let i = 0; i < n; i++) {
      const d = dirents[i]!;
      names[i] = d.name;
      if (d.isDirectory()) {
        kinds[i] = 0;
      } else if (d.isFile() || d.isSymbolicLink()) {
        let st: fs.Stats | undefined;
        try {
          st = fsm.lstatSync(`${abs}/${d.name}`, { throwIfNoEntry: false });
        } catch {
          st = undefined; // replaced while listing (a folder on the way became a file)
        }
        if (!st) {
          kinds[i] = 4;
          continue;
        }
        kinds[i] = st.isDirectory() ? 0 : st.isSymbolicLink() ? 2 : st.isFile() ? 1 : 3;
        const o = i * 5;
        stats[o] = st.size;
        stats[o + 1] = st.mtimeMs;
        stats[o + 2] = st.ctimeMs;
        stats[o + 3] = st.ino;
        stats[o + 4] = st.mode;
      } else {
        kinds[i] = 3;
      }
      if (kinds[i] === 0) subdirs.push(rel === '' ? d.name : `${rel}/${d.name}`);
    }
    out.push({ rel, names: names.join('\0'), kinds, stats, error: null });
    if (recursive) for (const sub of subdirs) visit(sub, true);
  };
  for (const job of jobs) visit(job.rel, job.recursive);
  return out;
}

const WORKER_SOURCE = `
var __name = (f) => f; // esbuild's keepNames helper, when the source text comes from a transformed module
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const listFolders = ${listFolders.toString()};
parentPort.on('message', ({ id, root, jobs }) => {
  try {
    const listings = listFolders(fs, root, jobs);
    parentPort.postMessage({ id, listings }, listings.flatMap((l) => [l.kinds.buffer, l.stats.buffer]));
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

/** A few long-lived worker threads (one less than the cores, at most 3), started on first use. */
const pool = new WorkerPool<{ id: number; listings?: Listing[]; error?: string }>(WORKER_SOURCE, () => Math.max(0, Math.min(3, availableParallelism() - 1)), 'a listing worker');

function runLister(index: number, root: string, jobs: ListJob[]): Promise<Listing[]> {
  return pool.run(index, { root, jobs }).then((m) => {
    if (m.listings) return m.listings;
    throw new Error(m.error ?? 'listing failed');
  });
}

/** How many threads (besides this one) can list in parallel. */
export function listerThreads(): number {
  return pool.size;
}

/**
 * Lists `bins[0]` in this thread and each other bin in a worker, all at once. If a worker fails, its bin
 * is listed here instead.
 */
export async function listInParallel(root: string, bins: ListJob[][]): Promise<Listing[]> {
  const remote = bins.slice(1).map((jobs, i) => (jobs.length > 0 ? runLister(i, root, jobs) : Promise.resolve([])));
  const local = listFolders(fs, root, bins[0] ?? []);
  const out = [...local];
  for (const [i, p] of remote.entries()) {
    try {
      out.push(...(await p));
    } catch {
      out.push(...listFolders(fs, root, bins[i + 1]!));
    }
  }
  return out;
}
