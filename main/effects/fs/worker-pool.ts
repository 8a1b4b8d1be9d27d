// A few long-lived worker threads running one source text, started on first use, that never keep the
// process alive while idle: the stat listers (stat-lister.ts) and the file readers (file-readers.ts).
// Each request carries an id and the worker answers with it. If a worker fails or exits, the pool is broken
// for good (size 0): every answer due is rejected and callers fall back to doing the work in this thread.
import { Worker } from 'node:worker_threads';

export class WorkerPool<Answer extends { id: number }> {
  private workers: Worker[] = [];
  private readonly pending = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private broken = false;

  constructor(
    private readonly source: string,
    /** How many workers while the pool works. */
    private readonly threads: () => number,
    /** What the error says when a worker stops. */
    private readonly what: string,
  ) {}

  get size(): number {
    return this.broken ? 0 : this.threads();
  }

  /** Sends `message` (with an id added) to worker `index`; resolves with its answer. */
  run(index: number, message: object): Promise<Answer> {
    if (this.broken) return Promise.reject(new Error(`${this.what} stopped`));
    const worker = this.worker(index);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Keep the process alive while an answer is due; idle workers never do.
      worker.ref();
      worker.postMessage({ id, ...message });
    });
  }

  private worker(index: number): Worker {
    let w = this.workers[index];
    if (!w) {
      w = new Worker(this.source, { eval: true });
      w.on('message', (m: Answer) => {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (this.pending.size === 0) for (const x of this.workers) x?.unref();
        p.resolve(m);
      });
      w.on('error', (error) => this.fail(error));
      w.on('exit', () => this.fail(new Error(`${this.what} stopped`)));
      // After the listeners: adding a 'message' listener refs the port again. Never keeps the process alive.
      w.unref();
      this.workers[index] = w;
    }
    return w;
  }

  private fail(error: Error): void {
    // Never again: the callers do the work in this thread, slower but the same.
    this.broken = true;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}
