// Page capture for SQLite: the action's statements run with no capture triggers at all, and the rows that
// differ between two images of the whole file, before and after them, inside the action's transaction, are
// its changes. In a rollback-journal file the image before is the image after with the pages SQLite
// journaled put back (sqlite-journal.ts); in a WAL file it is copied (sqlite3_serialize) before the first
// statement that may write. The C page differ (native/pagediff.c) then names every row whose stored record
// changed, table by table, in rowid order; the row images themselves are read by SQLite (quote() literals,
// as everywhere else), from the two images. Both images are written beside the undo log before COMMIT (the
// one after as the pages that differ), so undo and redo can read every row back. Per-row triggers make
// SQLite update in two passes and copy each row into a log, which costs several times the statement; page
// capture costs about the file's size, so it takes what the journal says is worth it (pageCaptureFits,
// pagesWorthComparing) when the differ is built (POSTHOC_PAGE_DIFFER=0 or POSTHOC_SQLITE_CAPTURE=triggers
// turn it off). An action that changes a WITHOUT ROWID table (rows keyed by their primary key, not compared
// here) or moves rows to other keys (the images cannot tell a moved row from replaced content) is run again
// with triggers; schema changes go through the snapshot path.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { loadAddon } from '../../native-addon';
import type { ImageOpener } from '../engine';
import type { RowEntry, TableLog } from '../row-log';
import type { CaptureTable } from './sqlite-capture';
import { quoteIdent } from '../sql-literals';

/**
 * WAL files up to this size are captured by pages; rollback-journal files of any size are, when the action
 * touched a large enough share of their pages (pagesWorthComparing), and files up to this size always.
 * Page capture costs about the file's size (two images in memory, compared, the one before written out:
 * ~1.5 ms per MiB here), triggers cost per changed row: at 8 MiB an action changing one row costs ~15 ms
 * by pages instead of ~3 by triggers. In a WAL file the image before must be taken before the statements
 * run, so the choice is made by size alone.
 */
export const PAGE_CAPTURE_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Past PAGE_CAPTURE_LIMIT_BYTES, a rollback-journal file is captured by pages when the action touched at
 * least one page in this many: per-row triggers cost ~1 µs per row (~40 rows a page), comparing images
 * ~6 µs per page of the file, and taking the other way means running the statements again
 * (docs/BENCHMARKS.md, "SQLite at any size").
 */
export const PAGE_SHARE = 8;

type Addon = {
  diff(before: Uint8Array, after: Uint8Array, roots: number[]): Array<{ ops: Uint8Array; rowids: BigInt64Array }>;
  sameTree(before: Uint8Array, after: Uint8Array, root: number): boolean;
};

/** The differ's ops, as character codes: 'd', 'u', 'i'. */
const OP = { deleted: 100, updated: 117, inserted: 105 } as const;

let loaded: ReturnType<typeof loadAddon<Addon>> | undefined;

function differ(): Addon | null {
  loaded ??= loadAddon<Addon>(join('main', 'effects', 'db', 'native', 'build', 'Release', 'posthoc_pagediff.node'), 'SQLite page differ', 'POSTHOC_PAGE_DIFFER');
  return loaded.addon;
}

/** POSTHOC_SQLITE_CAPTURE: 'triggers' (never pages), 'pages' (pages wherever they can take the action, whatever the size: tests), or automatic. */
function captureSetting(): 'triggers' | 'pages' | 'auto' {
  const v = process.env.POSTHOC_SQLITE_CAPTURE;
  return v === 'triggers' || v === 'pages' ? v : 'auto';
}

/** Why SQLite actions are captured the way they are (status output, the benchmark). */
export function sqliteCaptureDescription(): string {
  if (captureSetting() === 'triggers') return 'per-row triggers (POSTHOC_SQLITE_CAPTURE=triggers)';
  differ();
  if (!loaded!.addon) return `per-row triggers (${loaded!.reason})`;
  if (captureSetting() === 'pages') return 'page capture at any size (POSTHOC_SQLITE_CAPTURE=pages)';
  return `page capture for files up to ${PAGE_CAPTURE_LIMIT_BYTES / 1048576} MiB and for actions touching 1 page in ${PAGE_SHARE} or more of a larger rollback-journal file, per-row triggers otherwise`;
}

/** Whether page capture may take an action on this file (then it is tried; see PageCaptureUnfit). */
export function pageCaptureFits(fileBytes: number, wal: boolean): boolean {
  const setting = captureSetting();
  if (setting === 'triggers' || differ() === null) return false;
  return setting === 'pages' || !wal || fileBytes <= PAGE_CAPTURE_LIMIT_BYTES;
}

/** Whether comparing images is worth it for an action that touched `touched` of a file's `pages` (rollback journal). */
export function pagesWorthComparing(touched: number, pages: number, pageSize: number): boolean {
  if (captureSetting() === 'pages' || pages * pageSize <= PAGE_CAPTURE_LIMIT_BYTES) return true;
  return touched * PAGE_SHARE >= pages;
}

/** Page capture: the file's images before and after the action, and the table's root page in both (undo log format 3). */
export type PageSource = { engine: 'sqlite-pages'; before: string; after: string; root: number; format?: 3 };

/**
 * Page capture cannot take this action: it changed a WITHOUT ROWID table (whose rows are not compared one
 * by one), or an image has a layout the differ does not know. The action is run again with triggers.
 */
export class PageCaptureUnfit extends Error {}

const KEY_MOVED = 'posthoc: a row moved to another key';

/**
 * Guards that stop the action when an UPDATE moves a row to another rowid (its INTEGER PRIMARY KEY): in the
 * images that is one row's content replaced by another's, and undo must move the row back instead (columns
 * added since travel with it), which the triggers' log records. A trigger limited to UPDATE OF the key
 * column leaves every other UPDATE in SQLite's one pass. Temporary: they end with the action's connection.
 */
export function guardKeyMoves(db: Database.Database, tables: CaptureTable[]): void {
  for (const t of tables) {
    const key = t.info.rowidAlias;
    if (!t.info.rowid || key === null) continue;
    const k = quoteIdent(key);
    db.prepare(
      `CREATE TEMP TRIGGER ${quoteIdent(`posthoc_keymove_${t.index}`)} BEFORE UPDATE OF ${k} ON main.${quoteIdent(t.info.name)} WHEN old.${k} IS NOT new.${k} BEGIN SELECT RAISE(ABORT, '${KEY_MOVED}'); END`,
    ).run();
  }
}

/** Whether an error is one of those guards stopping the action. */
export function keyMoved(error: unknown): boolean {
  return error instanceof Error && error.message.includes(KEY_MOVED);
}

/** Root pages of the tables, as the connection sees them now (page capture runs no schema change, so before = after). */
export function rootPages(db: Database.Database, tables: CaptureTable[]): number[] {
  const roots = new Map(
    (db.prepare("SELECT name, rootpage FROM main.sqlite_schema WHERE type = 'table'").raw(true).all() as Array<[string, number]>).map(([n, r]) => [n, r]),
  );
  return tables.map((t) => roots.get(t.info.name) ?? 0);
}

/**
 * The file's image as SQLite serializes it, marked as a rollback-journal database (a WAL file's image
 * keeps its WAL marks, and opening it would create -wal and -shm files beside it).
 */
export function fileImage(db: Database.Database): Buffer {
  const image = db.serialize();
  if (image.length >= 100) image[18] = image[19] = 1;
  return image;
}

const DELTA_MAGIC = Buffer.from('posthoc page delta 1\0', 'latin1');

function pageSizeOf(image: Uint8Array): number {
  const size = (image[16]! << 8) | image[17]!;
  return size === 1 ? 65536 : size;
}

/**
 * The image after as the pages that differ from the image before (an action that changes one row keeps a few
 * pages instead of a second copy of the file): magic, page size, page count, then page number and page for
 * each page that differs; the whole image when most pages differ. Applied to the image before by applyPageDelta.
 */
export function pageDelta(before: Buffer, after: Buffer): Buffer {
  const size = pageSizeOf(after);
  if (pageSizeOf(before) !== size || after.length % size !== 0) return after;
  const changed: number[] = [];
  for (let at = 0; at < after.length; at += size) {
    if (at + size > before.length || !after.subarray(at, at + size).equals(before.subarray(at, at + size))) changed.push(at);
  }
  // When most pages changed, the whole image is as small and cheaper to write.
  if (changed.length * 2 > after.length / size) return after;
  const head = DELTA_MAGIC.length + 8;
  const delta = Buffer.allocUnsafe(head + changed.length * (4 + size));
  DELTA_MAGIC.copy(delta);
  delta.writeUInt32BE(size, DELTA_MAGIC.length);
  delta.writeUInt32BE(after.length / size, DELTA_MAGIC.length + 4);
  changed.forEach((at, i) => {
    const to = head + i * (4 + size);
    delta.writeUInt32BE(at / size + 1, to);
    after.copy(delta, to + 4, at, at + size);
  });
  return delta;
}

export function isPageDelta(bytes: Buffer): boolean {
  return bytes.subarray(0, DELTA_MAGIC.length).equals(DELTA_MAGIC);
}

/** The image a page delta was made from: the image before with the delta's pages put in. */
export function applyPageDelta(before: Buffer, delta: Buffer): Buffer {
  const damaged = () => new Error('The page delta of this action is damaged, so it cannot be undone exactly.');
  if (delta.length < DELTA_MAGIC.length + 8) throw damaged();
  const size = delta.readUInt32BE(DELTA_MAGIC.length);
  const pages = delta.readUInt32BE(DELTA_MAGIC.length + 4);
  if (before.length < 100 || size !== pageSizeOf(before)) throw new Error('The image of the file before this action, kept for undo, is damaged, so it cannot be undone exactly.');
  // Every page is in the image before or in the delta.
  if (pages > before.length / size + delta.length / (size + 4)) throw damaged();
  const image = Buffer.alloc(size * pages);
  before.copy(image, 0, 0, Math.min(before.length, image.length));
  for (let at = DELTA_MAGIC.length + 8; at < delta.length; at += 4 + size) {
    if (at + 4 + size > delta.length) throw damaged();
    const number = delta.readUInt32BE(at);
    if (number < 1 || number > pages) throw damaged();
    delta.copy(image, (number - 1) * size, at + 4, at + 4 + size);
  }
  return image;
}

export type TableChanges = { table: CaptureTable; root: number; ops: Uint8Array; rowids: BigInt64Array };

/** The rows each table changed between the two images (tables without changes left out). */
export function changedRows(before: Uint8Array, after: Uint8Array, tables: CaptureTable[], roots: number[]): TableChanges[] {
  const d = differ()!;
  const rowid = tables.flatMap((table, i) => (table.info.rowid ? [{ table, root: roots[i]! }] : []));
  let diffs: ReturnType<Addon['diff']>;
  try {
    for (const [i, t] of tables.entries()) {
      if (!t.info.rowid && !d.sameTree(before, after, roots[i]!)) throw new PageCaptureUnfit(`the action changed ${t.info.name}, a WITHOUT ROWID table`);
    }
    diffs = d.diff(before, after, rowid.flatMap((t) => [t.root, t.root]));
  } catch (error) {
    if (error instanceof PageCaptureUnfit) throw error;
    throw new PageCaptureUnfit(error instanceof Error ? error.message : String(error));
  }
  const changes = rowid.flatMap((t, i) => (diffs[i]!.ops.length > 0 ? [{ ...t, ...diffs[i]! }] : []));
  for (const c of changes) {
    // Without an INTEGER PRIMARY KEY (whose moves guardKeyMoves stops), a row that moved to another rowid
    // looks like a deleted row and a new one; taking it back that way would fire ON DELETE actions, so
    // triggers, which see the move, take such actions.
    if (c.table.info.rowidAlias === null && c.ops.includes(OP.deleted) && c.ops.includes(OP.inserted)) {
      throw new PageCaptureUnfit(`the action deleted rows of ${c.table.info.name} and inserted others (rows may have moved to other rowids)`);
    }
  }
  return changes;
}

/**
 * The table logs of the changed tables: lazy, with the first `preview` rows of each kind read now (the
 * card's statements). `before` and `after` are connections whose main database holds the two images.
 */
export function pageLogs(changes: TableChanges[], files: { before: string; after: string }, images: { before: Database.Database; after: Database.Database }, preview: number): TableLog[] {
  return changes.map((c) => {
    const t = c.table;
    const pick: number[] = [];
    const seen = { d: 0, u: 0, i: 0 };
    for (let i = 0; i < c.ops.length; i++) {
      const op = String.fromCharCode(c.ops[i]!) as keyof typeof seen;
      if (seen[op]++ < preview) pick.push(i);
    }
    const source: PageSource = { engine: 'sqlite-pages', before: files.before, after: files.after, root: c.root, format: 3 };
    return {
      table: quoteIdent(t.info.name),
      label: t.info.name,
      columns: t.columns,
      keyColumns: t.keyColumns,
      overridingSystemValue: false,
      soft: false,
      rows: rowEntries(t.info.name, t.columns, c.ops, c.rowids, pick, images),
      lazy: { count: c.ops.length, source },
    };
  });
}

/** Entries for the changes at `indexes` (all of them when null), images read from the two databases. */
function rowEntries(
  table: string,
  columns: string[],
  ops: Uint8Array,
  rowids: BigInt64Array,
  indexes: number[] | null,
  images: { before: Database.Database; after: Database.Database },
): RowEntry[] {
  const at = indexes ?? Array.from({ length: ops.length }, (_, i) => i);
  const want = (kind: 'before' | 'after') => at.filter((i) => ops[i] !== (kind === 'before' ? OP.inserted : OP.deleted)).map((i) => rowids[i]!);
  const before = imagesOf(images.before, table, columns, want('before'));
  const after = imagesOf(images.after, table, columns, want('after'));
  return at.map((i) => {
    const key = rowids[i]!.toString();
    const op = ops[i];
    const b = op === OP.inserted ? null : mustHave(before, key, table, 'before');
    const a = op === OP.deleted ? null : mustHave(after, key, table, 'after');
    return { beforeKey: b === null ? null : [key], afterKey: a === null ? null : [key], before: b, after: a };
  });
}

function mustHave(images: Map<string, string[]>, key: string, table: string, when: string): string[] {
  const image = images.get(key);
  if (!image) throw new PageCaptureUnfit(`row ${key} of ${table} is missing from the image ${when} the action`);
  return image;
}

/** quote() images of the rows with these rowids, by rowid text. */
function imagesOf(db: Database.Database, table: string, columns: string[], rowids: bigint[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (rowids.length === 0) return out;
  const cols = columns.map((c) => `, quote(${quoteIdent(c)})`).join('');
  const stmt = db.prepare(`SELECT rowid${cols} FROM main.${quoteIdent(table)} WHERE rowid IN (SELECT value FROM json_each(?))`).raw(true).safeIntegers(true);
  for (const r of stmt.all(`[${rowids.join(',')}]`) as Array<[bigint, ...string[]]>) out.set(r[0].toString(), r.slice(1) as string[]);
  return out;
}

/** The rows of the table at `root` that differ between two whole images, by rowid ('d', 'u', 'i' as character codes). */
export function pageChanges(before: Uint8Array, after: Uint8Array, root: number): { ops: Uint8Array; rowids: BigInt64Array } {
  const d = differ();
  if (d === null) throw new Error(`Undoing this SQLite action needs the SQLite page differ, which is not available here (${loaded!.reason}).`);
  try {
    return d.diff(before, after, [root, root])[0]!;
  } catch (error) {
    throw new Error(`The images of the file kept for undoing this action are damaged (${error instanceof Error ? error.message : String(error)}), so it cannot be undone exactly.`);
  }
}

/**
 * Every row of a page-captured table, for undo and redo: the two images (files written before the action
 * committed) are compared again and the rows read from them. `open` gives a database on an image file
 * (a page delta is applied to the image `base`).
 */
export function readPageRows(t: TableLog, source: PageSource, open: ImageOpener): RowEntry[] {
  const before = open(source.before);
  const after = open(source.after, { base: source.before, apply: (base, stored) => (isPageDelta(stored) ? applyPageDelta(base, stored) : stored) });
  const d = differ();
  if (d === null) throw new Error(`Undoing this SQLite action needs the SQLite page differ, which is not available here (${loaded!.reason}).`);
  let diff: ReturnType<Addon['diff']>[number] | undefined;
  try {
    [diff] = d.diff(before.bytes, after.bytes, [source.root, source.root]);
  } catch (error) {
    throw new Error(`The images of the file kept for undoing this action are damaged (${error instanceof Error ? error.message : String(error)}), so it cannot be undone exactly.`);
  }
  return rowEntries(t.label, t.columns, diff!.ops, diff!.rowids, null, { before: before.db, after: after.db });
}
