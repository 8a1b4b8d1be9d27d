// The figures an action drew, from the sandbox to the data folder. The action runner in the container hands
// over the PNG files that matplotlib's backend (main/sandbox/image/posthoc_figures.py) wrote, after every
// process of the action has ended (main/sandbox/action-channel.ts, frame G); nothing of theirs but the bytes
// crosses: no name, no path, no type. Here each is checked again — at most FIGURE_LIMITS, a PNG by its
// signature and IHDR, dimensions read here (png-check.ts) — and stored as DATA/figures/ACTION/N.png with its
// SHA-256 and dimensions recorded (store/figure-store.ts). Reading one checks its hash; keep releases them.
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ActionFigure } from '../../../shared/domain';
import type { FigureStore } from '../../store/figure-store';
import { checkPng, NotAFigure } from './png-check';

/** At most this many figures per action, each at most `bytes`, `totalBytes` together. */
export const FIGURE_LIMITS = { count: 20, bytes: 8 * 1024 * 1024, totalBytes: 64 * 1024 * 1024 } as const;

/** Why a figure cannot be read: none with that number, or keep released it. */
export class FigureUnavailable extends Error {
  constructor(
    message: string,
    readonly reason: 'not-found' | 'released' | 'damaged',
  ) {
    super(message);
  }
}

/** Action ids are UUIDs: anything else never becomes part of a path. */
const SAFE_ID = /^[A-Za-z0-9-]{1,64}$/;

export class Figures {
  constructor(
    /** DATA/figures */
    private readonly dir: string,
    private readonly store: FigureStore,
  ) {}

  /**
   * Checks and stores what the sandbox handed over for an action; returns the figures kept and, for the
   * card, one line per kind of figure that was not (the runner's refusals and the host's own).
   */
  async take(actionId: string, handed: { files: Buffer[]; refused: string[] }): Promise<{ figures: ActionFigure[]; notes: string[] }> {
    const notes = [...handed.refused];
    const kept: Array<{ figure: ActionFigure; bytes: Buffer }> = [];
    let total = 0;
    for (const bytes of handed.files) {
      if (kept.length >= FIGURE_LIMITS.count) {
        notes.push(`more than ${FIGURE_LIMITS.count} figures: the rest were not kept`);
        break;
      }
      if (bytes.length > FIGURE_LIMITS.bytes) {
        notes.push(`a figure over ${FIGURE_LIMITS.bytes / 1024 / 1024} MiB`);
        continue;
      }
      if (total + bytes.length > FIGURE_LIMITS.totalBytes) {
        notes.push(`figures over ${FIGURE_LIMITS.totalBytes / 1024 / 1024} MiB together: the rest were not kept`);
        break;
      }
      let size: { width: number; height: number };
      try {
        size = checkPng(bytes);
      } catch (error) {
        if (!(error instanceof NotAFigure)) throw error;
        notes.push(`a figure that was ${error.message}`);
        continue;
      }
      total += bytes.length;
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      kept.push({ figure: { n: kept.length + 1, mime: 'image/png', bytes: bytes.length, sha256, ...size, released: false }, bytes });
    }
    if (kept.length > 0) {
      const folder = this.folderOf(actionId);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      for (const { figure, bytes } of kept) {
        // 'wx': a new file, never through a link or over an earlier action's figure.
        const file = await open(join(folder, `${figure.n}.png`), 'wx', 0o600);
        try {
          await file.writeFile(bytes);
        } finally {
          await file.close();
        }
      }
      this.store.add(actionId, kept.map((k) => k.figure));
    }
    return { figures: kept.map((k) => k.figure), notes: [...new Set(notes)] };
  }

  /** Figure `n` of the action (from 1) with its bytes, checked against the recorded SHA-256. */
  async read(actionId: string, n: number): Promise<{ figure: ActionFigure; bytes: Buffer }> {
    const figures = this.store.list(actionId);
    const figure = figures.find((f) => f.n === n);
    if (!figure) {
      throw new FigureUnavailable(
        figures.length === 0 ? 'This action drew no figures.' : `No figure ${n}: this action drew ${figures.length} (1 to ${figures.length}).`,
        'not-found',
      );
    }
    if (figure.released) throw new FigureUnavailable(`Figure ${n} was released when the action was kept.`, 'released');
    const bytes = await readFile(join(this.folderOf(actionId), `${n}.png`)).catch(() => null);
    if (!bytes || createHash('sha256').update(bytes).digest('hex') !== figure.sha256) {
      throw new FigureUnavailable(`Figure ${n} is missing from the data folder or was changed there.`, 'damaged');
    }
    return { figure, bytes };
  }

  /**
   * Keep: the action's figure files are deleted; the record says they were released. A delete that fails
   * leaves them listed and readable (never marked released while still on disk), and never fails the keep.
   */
  async release(actionId: string): Promise<void> {
    if (this.store.list(actionId).length === 0) return;
    try {
      await rm(this.folderOf(actionId), { recursive: true, force: true });
    } catch {
      return;
    }
    this.store.markReleased(actionId);
  }

  private folderOf(actionId: string): string {
    if (!SAFE_ID.test(actionId)) throw new FigureUnavailable(`No action ${actionId}.`, 'not-found');
    return join(this.dir, actionId);
  }
}
