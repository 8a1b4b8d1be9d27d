// The rollback journal of the action's open write transaction, read before COMMIT. In a rollback-journal
// database (not WAL) SQLite writes each page's image to FILE-journal the first time the transaction changes
// that page, before changing it (sqlite.org/fileformat2.html, "The Rollback Journal"). So while the action's
// transaction is open, the journal names every page the action touched and holds each one as it was: the
// file as it was before the action is the file as it is now with those pages put back, and the share of
// pages the action touched is known without comparing anything.
import { readFileSync } from 'node:fs';

const MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);

/** The pages an open transaction touched: the page size, the file's size in pages when it began, and each touched page as it was then. */
export type JournalPages = { pageSize: number; originalPages: number; pages: Map<number, Buffer> };

/** Why a journal could not be read as expected (the caller then captures another way). */
export class JournalUnreadable extends Error {}

/**
 * The journal at `path`, or null when there is none (the transaction changed no page). A journal is a
 * header (one sector) and page records (page number, page, checksum), again after each sync of a spilled
 * cache; until a header is synced its magic and record count are zeros (or the count is all ones), and
 * its records run to the end of the file.
 */
export function readJournal(path: string): JournalPages | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (bytes.length === 0) return null;
  const pages = new Map<number, Buffer>();
  let pageSize = 0;
  let originalPages = -1;
  let at = 0;
  while (at + 28 <= bytes.length) {
    // Until the journal is synced, its last header has zeros where the magic and the record count go.
    const synced = bytes.subarray(at, at + 8).equals(MAGIC);
    if (!synced && !bytes.subarray(at, at + 12).every((b) => b === 0)) throw new JournalUnreadable(`no journal header at byte ${at}`);
    const declared = synced ? bytes.readUInt32BE(at + 8) : 0;
    const origSize = bytes.readUInt32BE(at + 16);
    const sector = bytes.readUInt32BE(at + 20);
    const size = bytes.readUInt32BE(at + 24);
    if (!synced && pages.size > 0 && sector === 0) break; // zeros after the last record
    if (sector < 32 || sector > 65536 || size < 512 || size > 65536 || (size & (size - 1)) !== 0) throw new JournalUnreadable('a journal header with an impossible sector or page size');
    if (pageSize !== 0 && size !== pageSize) throw new JournalUnreadable('journal headers disagree on the page size');
    pageSize = size;
    // Each header repeats the size the file had when the transaction began.
    if (originalPages === -1) originalPages = origSize;
    const record = 8 + pageSize;
    const start = at + sector;
    const available = Math.floor(Math.max(0, bytes.length - start) / record);
    const count = declared === 0 || declared === 0xffffffff ? available : Math.min(declared, available);
    for (let i = 0; i < count; i++) {
      const r = start + i * record;
      const pgno = bytes.readUInt32BE(r);
      if (pgno === 0 || pgno > originalPages) throw new JournalUnreadable(`a journal record of page ${pgno}, outside the file's ${originalPages} pages`);
      // A page is journaled once per transaction: the first image is the one before it.
      if (!pages.has(pgno)) pages.set(pgno, bytes.subarray(r + 4, r + 4 + pageSize));
    }
    if (declared === 0 || declared === 0xffffffff) break;
    const end = start + count * record;
    at = Math.ceil(end / sector) * sector;
  }
  if (originalPages === -1) return null;
  return { pageSize, originalPages, pages };
}

/**
 * The file as it was when the transaction began: its image now (`after`, from sqlite3_serialize inside the
 * transaction) cut to its size then, with the journaled pages put back. Throws when a page that existed
 * then is neither journaled nor in the image now (a file cut short by the transaction).
 */
export function imageBefore(after: Buffer, journal: JournalPages): Buffer {
  const { pageSize, originalPages, pages } = journal;
  const before = Buffer.allocUnsafe(originalPages * pageSize);
  const kept = Math.min(after.length, before.length);
  after.copy(before, 0, 0, kept);
  for (let pgno = Math.floor(kept / pageSize) + 1; pgno <= originalPages; pgno++) {
    if (!pages.has(pgno)) throw new JournalUnreadable(`page ${pgno} left the file and is not in the journal`);
  }
  for (const [pgno, page] of pages) page.copy(before, (pgno - 1) * pageSize);
  return before;
}
