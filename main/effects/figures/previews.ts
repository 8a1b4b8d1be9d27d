// Previews of files an action added or changed, for its card: images (by their bytes, not their names) and
// the first rows of a CSV or an XLSX. Bytes come from the checkpoint after the action (services/file-previews.ts)
// through a PreviewSource: the blob's size from its object's header, and only as much content as a preview
// needs, inflated no further — so memory follows the caps below, never the file's size. Nothing here touches
// the folder. Images: refused unread over 8 MiB. CSV: read until its first 21 rows are in, at most 256 KiB.
// XLSX: a zip is read whole (its directory is at its end), so one over 16 MiB is refused unread; under it,
// before any parser sees it, at most 64 MiB uncompressed and 2,000 entries (a zip bomb is stopped while it
// inflates, whatever sizes its headers claim). 16 MiB is enough: a workbook's XML compresses about 5 to 10
// times, so a larger one would unzip past the 64 MiB guard anyway.
import { Unzip, UnzipInflate, UnzipPassThrough } from 'fflate';
import Papa from 'papaparse';
import type { FilePreview } from '../../../shared/contract';

export const PREVIEW_LIMITS = {
  imageBytes: 8 * 1024 * 1024,
  csvBytes: 256 * 1024,
  xlsxBytes: 16 * 1024 * 1024,
  xlsxUnzippedBytes: 64 * 1024 * 1024,
  xlsxEntries: 2000,
  rows: 20,
  columns: 30,
  cellChars: 200,
} as const;

type ImageMime = Extract<FilePreview, { kind: 'image' }>['mime'];

/** The kind of preview a path may have, by its extension; null when none. */
export function previewKind(path: string): 'image' | 'csv' | 'xlsx' | null {
  const ext = path.toLowerCase().split('.').pop() ?? '';
  if (['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg'].includes(ext)) return 'image';
  if (ext === 'csv') return 'csv';
  if (ext === 'xlsx') return 'xlsx';
  return null;
}

/** The image type its bytes say (never its name), or null. SVG: an XML document whose root is <svg>. */
export function sniffImage(bytes: Buffer): ImageMime | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const head = bytes.toString('latin1', 0, 12);
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'image/gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'image/webp';
  const text = bytes.toString('utf8', 0, 4096).replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(text)) return 'image/svg+xml';
  return null;
}

/**
 * A file to preview: its size (from the checkpoint object's header, known before any content is read) and
 * its content in pieces, in order, until `visit` returns false or `maxBytes` came out.
 */
export type PreviewSource = {
  size: number;
  read(maxBytes: number, visit: (chunk: Buffer) => boolean | void): Promise<unknown>;
};

/** A source over bytes already in memory (tests, and callers that hold a file whole). */
export function bufferSource(bytes: Buffer): PreviewSource {
  return {
    size: bytes.length,
    read: async (maxBytes, visit) => {
      if (maxBytes > 0 && bytes.length > 0) visit(bytes.subarray(0, maxBytes));
    },
  };
}

export async function preview(path: string, source: PreviewSource): Promise<FilePreview> {
  switch (previewKind(path)) {
    case 'image': {
      if (source.size > PREVIEW_LIMITS.imageBytes) return { kind: 'none', reason: tooLarge(source.size, PREVIEW_LIMITS.imageBytes) };
      const bytes = await readAll(source, PREVIEW_LIMITS.imageBytes);
      const mime = sniffImage(bytes);
      if (!mime) return { kind: 'none', reason: 'not an image its name says it is' };
      return { kind: 'image', mime, bytes: bytes.length, base64: bytes.toString('base64') };
    }
    case 'csv':
      return csvPreview(source);
    case 'xlsx':
      if (source.size > PREVIEW_LIMITS.xlsxBytes) return { kind: 'none', reason: tooLarge(source.size, PREVIEW_LIMITS.xlsxBytes) };
      return xlsxPreview(await readAll(source, PREVIEW_LIMITS.xlsxBytes));
    default:
      return { kind: 'none', reason: 'no preview for this kind of file' };
  }
}

function tooLarge(size: number, cap: number): string {
  return `${formatSize(size)}, larger than the ${cap / 1024 / 1024} MiB a preview reads; open the file itself to see it`;
}

function formatSize(n: number): string {
  const mib = 1024 * 1024;
  if (n >= 1024 * mib) return `${+(n / 1024 / mib).toFixed(1)} GiB`;
  if (n >= mib) return `${+(n / mib).toFixed(1)} MiB`;
  return `${+(n / 1024).toFixed(1)} KiB`;
}

async function readAll(source: PreviewSource, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  await source.read(maxBytes, (chunk) => void parts.push(chunk));
  return Buffer.concat(parts);
}

/**
 * The first rows of a CSV: content is read piece by piece and parsed again after each, until one row more
 * than shown is in (then every shown row is whole) or the byte cap is reached (a cut last row is shown as
 * read, and the table says it is cut).
 */
async function csvPreview(source: PreviewSource): Promise<FilePreview> {
  const parts: Buffer[] = [];
  let parsed: string[][] = [];
  let read = 0;
  await source.read(PREVIEW_LIMITS.csvBytes, (chunk) => {
    parts.push(chunk);
    read += chunk.length;
    parsed = parseRows(Buffer.concat(parts));
    return parsed.length <= PREVIEW_LIMITS.rows;
  });
  const cut = read < source.size;
  const rows = parsed.slice(0, PREVIEW_LIMITS.rows).map(cells);
  return { kind: 'table', rows, truncated: cut || parsed.length > PREVIEW_LIMITS.rows || rows.some((r, i) => r.length < (parsed[i]?.length ?? 0)) };
}

function parseRows(bytes: Buffer): string[][] {
  return Papa.parse<string[]>(bytes.toString('utf8'), { preview: PREVIEW_LIMITS.rows + 1, skipEmptyLines: true }).data;
}

async function xlsxPreview(bytes: Buffer): Promise<FilePreview> {
  const bomb = zipOverLimits(bytes);
  if (bomb) return { kind: 'none', reason: bomb };
  try {
    // Loaded when a workbook is first shown, not with the services.
    const { default: readXlsxFile } = await import('read-excel-file/node');
    const sheets = await readXlsxFile(bytes);
    const first = sheets[0];
    if (!first) return { kind: 'none', reason: 'a workbook with no sheet' };
    const rows = first.data.slice(0, PREVIEW_LIMITS.rows).map((row) => cells(row.map(cellText)));
    return { kind: 'table', rows, truncated: first.data.length > PREVIEW_LIMITS.rows, sheet: first.sheet };
  } catch (error) {
    return { kind: 'none', reason: `not a workbook that could be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

/**
 * Why a zip may not be unpacked, or null: it is inflated here entry by entry, counting what comes out and
 * stopping at the limits, so the headers' claimed sizes are never trusted.
 */
export function zipOverLimits(bytes: Buffer): string | null {
  let entries = 0;
  let total = 0;
  let reason: string | null = null;
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  unzip.onfile = (file) => {
    if (reason) return;
    if (++entries > PREVIEW_LIMITS.xlsxEntries) {
      reason = `a zip of more than ${PREVIEW_LIMITS.xlsxEntries} entries`;
      return;
    }
    file.ondata = (error, chunk) => {
      if (reason) return;
      if (error) {
        reason = `a damaged zip (${error.message})`;
        return;
      }
      total += chunk.length;
      if (total > PREVIEW_LIMITS.xlsxUnzippedBytes) {
        reason = `more than ${PREVIEW_LIMITS.xlsxUnzippedBytes / 1024 / 1024} MiB once unzipped (a zip bomb?)`;
        file.terminate();
      }
    };
    try {
      file.start();
    } catch (error) {
      reason = `a zip that could not be read (${error instanceof Error ? error.message : String(error)})`;
    }
  };
  try {
    // Fed in slices, so a bomb is noticed after at most one slice's output.
    for (let at = 0; at < bytes.length && !reason; at += 64 * 1024) unzip.push(bytes.subarray(at, at + 64 * 1024), at + 64 * 1024 >= bytes.length);
  } catch (error) {
    reason ??= `a zip that could not be read (${error instanceof Error ? error.message : String(error)})`;
  }
  if (!reason && entries === 0) reason = 'not a zip';
  return reason;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().replace(/T00:00:00\.000Z$/, '');
  return String(value);
}

function cells(row: unknown[]): string[] {
  return row.slice(0, PREVIEW_LIMITS.columns).map((c) => {
    const s = typeof c === 'string' ? c : cellText(c);
    return s.length > PREVIEW_LIMITS.cellChars ? `${s.slice(0, PREVIEW_LIMITS.cellChars)}…` : s;
  });
}
