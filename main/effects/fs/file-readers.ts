// Reads, hashes and deflates a first checkpoint's files in worker threads, ahead of the walk that needs
// them (folder-scanner.ts): on a large folder almost all of a first checkpoint's time is opening and reading
// files and deflating them, and two threads do it side by side while the walk builds trees and packs.
//
// A worker opens each file beneath the folder's handle with the addon's openBeneath (no link followed,
// exactly as GrantedFolder.openFile), fstats the handle and hands back its stat fields, the blob's id and its
// content deflated for a pack (pack-file.ts). Anything else — a link, a folder, a file gone or unreadable — is
// handed back as not read, and the walk reads that path itself as before, with every check it makes.
//
// The walk asks for files in the order it visits them; the plan is that order, predicted from the listings.
// Up to WINDOW batches are read ahead. A path the walk asks for out of order (the plan was wrong) is read by
// the walk itself.
import { availableParallelism } from 'node:os';
import { WorkerPool } from './worker-pool';

/** What a worker read: the handle's stat fields, the blob's id, its size and (unless the worker deflated the same blob before) its deflated content. */
export type ReadAhead = { ino: number; size: number; mtimeMs: number; ctimeMs: number; mode: number; oid: string; length: number; deflated: Buffer | null };
export type WorkerAccess = { rootFd: number; addonPath: string };

const BATCH_FILES = 1024;
/** A batch closes at this many bytes of files (by the listing's sizes), so read-ahead holds about WINDOW of them. */
const BATCH_BYTES = 4 * 1024 * 1024;
const WINDOW = 8;
/** A worker remembers this many blobs it deflated (per walk) and sends no content for them again. */
const SEEN_LIMIT = 100_000;

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { createHash } = require('node:crypto');
const { deflateSync } = require('node:zlib');
const FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK || 0);
// Each file is opened by the addon, not by fs, so Node warns at every close in a worker thread: not a mistake here.
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) => {
  if (!String(warning).includes('closed but not opened in unmanaged mode')) emitWarning.call(process, warning, ...rest);
};
let addon = null;
let walk = -1;
let seen = new Set();
parentPort.on('message', ({ id, walkId, addonPath, rootFd, rels }) => {
  try {
    addon = addon || require(addonPath);
    if (walkId !== walk || seen.size > ${SEEN_LIMIT}) seen = new Set();
    walk = walkId;
    const results = [];
    const parts = [];
    let bytes = 0;
    for (const rel of rels) {
      let fd;
      try {
        fd = addon.openBeneath(rootFd, rel, FLAGS, 0);
      } catch {
        results.push(null);
        continue;
      }
      try {
        const st = fs.fstatSync(fd);
        if (!st.isFile()) {
          results.push(null);
          continue;
        }
        const content = fs.readFileSync(fd);
        const oid = createHash('sha1').update('blob ' + content.length + '\\0').update(content).digest('hex');
        let start = -1;
        if (!seen.has(oid)) {
          seen.add(oid);
          const data = deflateSync(content, { level: 1 });
          parts.push(data);
          start = bytes;
          bytes += data.length;
        }
        results.push({ ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, mode: st.mode, oid, length: content.length, start, end: bytes });
      } catch {
        results.push(null);
      } finally {
        fs.closeSync(fd);
      }
    }
    const data = Buffer.concat(parts, bytes);
    const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.length);
    parentPort.postMessage({ id, results, buffer }, [buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

type Raw = Omit<ReadAhead, 'deflated'> & { start: number; end: number };
type Answer = { id: number; results?: Array<Raw | null>; buffer?: ArrayBuffer; error?: string };

/** Two long-lived worker threads (one on a single core), started on first use, never keeping the process alive. */
const pool = new WorkerPool<Answer>(WORKER_SOURCE, () => Math.max(1, Math.min(2, availableParallelism())), 'a file reader');
let walks = 0;

type Batch = { rels: string[]; cursor: number; answer: Promise<Array<ReadAhead | null> | null> };

/** The files of one walk, read ahead in the order `plan` gives. */
export class ReadAheadQueue {
  private readonly queue: Batch[] = [];
  private readonly walkId = ++walks;
  private next = 0;
  private done = false;

  constructor(
    private readonly access: WorkerAccess,
    /** Paths in the walk's order, each with its size when listed. */
    private readonly plan: Iterator<{ rel: string; size: number }>,
  ) {
    this.fill();
  }

  /** Whether reading ahead is possible here (workers start and stay up). */
  static available(): boolean {
    return pool.size > 0;
  }

  /** What a worker read at `rel`, or null: not planned there, not a regular file, or not read (the caller reads it). */
  async take(rel: string): Promise<ReadAhead | null> {
    for (;;) {
      const head = this.queue[0];
      if (!head) return null;
      if (head.cursor >= head.rels.length) {
        this.queue.shift();
        this.fill();
        continue;
      }
      // The plan may name paths the walk skips: look on in this batch and the next.
      const at = head.rels.indexOf(rel, head.cursor);
      if (at < 0) {
        if (this.queue[1]?.rels.includes(rel)) {
          head.cursor = head.rels.length;
          continue;
        }
        return null;
      }
      head.cursor = at + 1;
      const answer = await head.answer;
      return answer?.[at] ?? null;
    }
  }

  /**
   * Stops reading ahead and waits for the batches under way (dropped when they arrive): the caller closes
   * the folder's handle next, and a worker must not open a path under a descriptor number reused meanwhile.
   */
  async close(): Promise<void> {
    this.done = true;
    const under = this.queue.map((b) => b.answer);
    this.queue.length = 0;
    await Promise.allSettled(under);
  }

  private fill(): void {
    while (!this.done && this.queue.length < WINDOW) {
      const rels: string[] = [];
      let bytes = 0;
      while (rels.length < BATCH_FILES && bytes < BATCH_BYTES) {
        const step = this.plan.next();
        if (step.done) {
          this.done = true;
          break;
        }
        rels.push(step.value.rel);
        bytes += step.value.size;
      }
      if (rels.length === 0) return;
      const index = this.next++ % Math.max(1, pool.size);
      const answer = pool
        .run(index, { walkId: this.walkId, addonPath: this.access.addonPath, rootFd: this.access.rootFd, rels })
        .then(unpack, () => null);
      this.queue.push({ rels, cursor: 0, answer });
    }
  }
}

function unpack(m: Answer): Array<ReadAhead | null> | null {
  if (!m.results || !m.buffer) return null;
  const data = Buffer.from(m.buffer);
  return m.results.map((r) => {
    if (!r) return null;
    const { start, end, ...rest } = r;
    return { ...rest, deflated: start < 0 ? null : data.subarray(start, end) };
  });
}
