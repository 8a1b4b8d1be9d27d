// What a finished task's answer shows of the work (components/answer-results.tsx): the pictures its run drew
// or wrote, each once; the tables it wrote; the numbers it printed; the files it made; each with the action
// that made it. Pure; no React. The pictures' bytes are read by the component; only their SHA-256 and
// dimensions come here.
import type { Action, ActionFigure } from '../../../shared/domain';
import { isGitInternal } from '../../../shared/undo/git-internals';
import { listChanges, type Change } from './action-summary';
import type { ConversationItem } from './conversation';

/** A picture an action drew (its figure) or wrote (an image file), with what is known of its bytes. */
export type PictureCandidate =
  | { kind: 'figure'; actionId: string; seq: number; figure: ActionFigure }
  | {
      kind: 'file';
      actionId: string;
      seq: number;
      change: Change;
      /** Null until the file's bytes were read (or when they cannot be). */
      sha256: string | null;
      width: number | null;
      height: number | null;
    };

export const PICTURE_FILE = /\.(png|jpe?g|gif|webp|svg)$/i;
export const TABLE_FILE = /\.(csv|xlsx)$/i;
/** Aspect ratios within this share of each other may be the same figure saved with other settings (dpi, a tight box). */
const ASPECT_TOLERANCE = 0.15;

/**
 * The actions whose work the answer reports: those of the last run (after the person's last message) whose
 * changes stand (done or kept), in the order they ran.
 */
export function answerActions(items: readonly ConversationItem[]): Action[] {
  let start = 0;
  items.forEach((item, index) => {
    if (item.kind === 'message' && item.message.role === 'user') start = index + 1;
  });
  return items.slice(start).flatMap((item) => (item.kind === 'action' && (item.action.status === 'done' || item.action.status === 'kept') ? [item.action] : []));
}

/** The files an action added, changed or renamed that the card and the answer preview as pictures. */
export function pictureFiles(changes: readonly Change[]): Change[] {
  return changes.filter((c) => c.channel === 'fs' && c.mark !== 'deleted' && PICTURE_FILE.test(c.path));
}

/** The file names (last path segment) the source passes to savefig(…), in the order they appear. */
export function savedFigureNames(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/savefig\(\s*(?:f|r|rf|fr)?(['"])(.*?)\1/g)) names.push(basename(m[2]!));
  return names;
}

function basename(path: string): string {
  return path.split('/').filter((p) => p !== '').at(-1) ?? path;
}

function aspectsAgree(a: { width: number; height: number }, b: { width: number | null; height: number | null }): boolean {
  if (b.width === null || b.height === null || b.width <= 0 || b.height <= 0) return true;
  const ra = a.width / a.height;
  const rb = b.width / b.height;
  return Math.abs(ra - rb) / Math.max(ra, rb) <= ASPECT_TOLERANCE;
}

/**
 * Each picture once. Two candidates are the same picture when their bytes are the same (SHA-256), across
 * actions too, or when an action both saved a figure to a file (savefig names it) and showed it (plt.show()
 * hands the figure over as well): its figures pair with its saved files in order, when their shapes agree.
 * The file is kept (it has a name and is in the folder); of equal bytes, the first made.
 */
export function dedupePictures(candidates: readonly PictureCandidate[], sources: ReadonlyMap<string, string>): PictureCandidate[] {
  const dropped = new Set<PictureCandidate>();
  // Saved and shown, within one action.
  const byAction = new Map<string, PictureCandidate[]>();
  for (const c of candidates) byAction.set(c.actionId, [...(byAction.get(c.actionId) ?? []), c]);
  for (const [actionId, list] of byAction) {
    const saved = savedFigureNames(sources.get(actionId) ?? '');
    if (saved.length === 0) continue;
    const files = list.filter((c): c is Extract<PictureCandidate, { kind: 'file' }> => c.kind === 'file');
    const savedFiles = saved.flatMap((name) => files.filter((f) => basename(f.change.path) === name));
    const figures = list.filter((c): c is Extract<PictureCandidate, { kind: 'figure' }> => c.kind === 'figure');
    let next = 0;
    for (const file of new Set(savedFiles)) {
      const match = figures.slice(next).findIndex((f) => !dropped.has(f) && aspectsAgree(f.figure, file));
      if (match < 0) continue;
      dropped.add(figures[next + match]!);
      next += match + 1;
    }
  }
  // The same bytes, anywhere: the file before the figure, else the first.
  const firstByHash = new Set<string>();
  const hashOf = (c: PictureCandidate): string | null => (c.kind === 'figure' ? c.figure.sha256 : c.sha256);
  const ordered = [...candidates].sort((a, b) => Number(a.kind === 'figure') - Number(b.kind === 'figure'));
  for (const c of ordered) {
    const hash = hashOf(c);
    if (hash === null || dropped.has(c)) continue;
    if (firstByHash.has(hash)) dropped.add(c);
    else firstByHash.add(hash);
  }
  return candidates.filter((c) => !dropped.has(c));
}

/** A number the action printed as "label: value" or "label = value" (a line of its own, or comma-separated). */
export type KeyNumber = { label: string; value: string; actionId: string; seq: number };

const NUMBER_LINE = /^\s*([A-Za-z][\w ()^²³.\-/']{0,39}?)\s*[:=]\s*(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?\s?%?)\s*$/;
/** At most this many numbers in one answer. */
export const MAX_NUMBERS = 8;

export function keyNumbers(actions: readonly Action[]): KeyNumber[] {
  const found = new Map<string, KeyNumber>();
  for (const action of actions) {
    for (const line of action.output.stdout.split('\n')) {
      if (line.length > 160) continue;
      const parts = line.split(/[,;\t](?=\s*[A-Za-z])/);
      const matches = parts.map((p) => NUMBER_LINE.exec(p));
      if (matches.some((m) => m === null)) continue;
      for (const m of matches) {
        const label = m![1]!.trim();
        // A later print of the same name is the newer value; it keeps its first place.
        const key = label.toLowerCase();
        const value = m![2]!.trim();
        const existing = found.get(key);
        if (existing !== undefined) found.set(key, { ...existing, value, actionId: action.id, seq: action.seq });
        else found.set(key, { label, value, actionId: action.id, seq: action.seq });
      }
    }
  }
  return [...found.values()].slice(0, MAX_NUMBERS);
}

/** A file the run made or changed, once (the last action that touched it), in the order first made. */
export type MadeFile = { change: Change; actionId: string; seq: number };

/** Folders whose files are a tool's own bookkeeping, never what the person asked for (a repository's internals: its card says what happened to it). */
const BOOKKEEPING = new Set(['node_modules', '__pycache__', '.venv', '.pytest_cache', '.mypy_cache', '.ipynb_checkpoints']);

/** A folder (the checkpoint names one with a trailing slash: its files are listed apart) or bookkeeping. */
function leftOut(path: string): boolean {
  return path.endsWith('/') || isGitInternal(path.replace(/\/$/, '')) || path.split('/').some((segment) => BOOKKEEPING.has(segment));
}

export function madeFiles(actions: readonly Action[]): MadeFile[] {
  const files = new Map<string, MadeFile>();
  for (const action of actions) {
    for (const change of listChanges(action.effects)) {
      if (change.channel !== 'fs' || leftOut(change.path)) continue;
      const key = `${change.where}\u0000${change.path}`;
      if (change.mark === 'deleted') {
        files.delete(key);
        continue;
      }
      const earlier = files.get(key);
      files.set(key, { change: earlier !== undefined && earlier.change.mark === 'added' ? { ...change, mark: 'added' } : change, actionId: action.id, seq: action.seq });
    }
  }
  return [...files.values()];
}

/** At most this many tables (CSV, XLSX) in one answer. */
export const MAX_TABLES = 3;

/** The tables among the files made, previewed in the answer. */
export function answerTables(files: readonly MadeFile[]): MadeFile[] {
  return files.filter((f) => TABLE_FILE.test(f.change.path)).slice(0, MAX_TABLES);
}

/** The query results the run's actions hold, one entry per action with rows to show (they stay on its card). */
export type QueryRows = { actionId: string; seq: number; database: string; rowCount: number };

export function queryRows(actions: readonly Action[]): QueryRows[] {
  const out: QueryRows[] = [];
  for (const action of actions) {
    for (const effect of action.effects) {
      if (effect.channel !== 'db') continue;
      const results = effect.statements.flatMap((s) => (s.result !== null ? [s.result] : []));
      const last = results.at(-1);
      if (last !== undefined) out.push({ actionId: action.id, seq: action.seq, database: effect.database, rowCount: last.rowCount });
    }
  }
  return out;
}

/** PNG width and height from its IHDR (bytes 16–23), or null when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
