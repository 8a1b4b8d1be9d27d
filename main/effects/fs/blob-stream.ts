// Reading a git object without holding it whole, loose or packed without a delta (pack-file.ts): the object's
// deflated bytes are inflated as a stream (node:zlib)
// and stops as soon as the reader has what it asked for, so memory is one chunk plus what the reader keeps,
// whatever the object's size. The header ("blob SIZE\0") gives the size before any content is read.
//
// The object is checked while it is read: a header that is not one, content beyond the size the header
// says, or an object that ends before it (truncated, or a zlib stream that does not end cleanly) fails
// with DamagedObject — never a hang, and never more than one chunk past the header's size.
import { open } from 'node:fs/promises';
import { createInflate } from 'node:zlib';

/** A piece of content for the reader; returning false stops the read (nothing after it is inflated). */
export type BlobVisitor = (chunk: Buffer) => boolean | void;
export type StreamedObject = { type: string; size: number; read: number };

/** "tree 18446744073709551615\0" is 26 bytes; anything longer without a NUL is not a header. */
const MAX_HEADER_BYTES = 32;
const CHUNK_BYTES = 64 * 1024;
const HEADER = /^(blob|tree|commit|tag) (0|[1-9][0-9]{0,15})$/;

export class DamagedObject extends Error {
  constructor(
    readonly oid: string,
    readonly detail: string,
  ) {
    super(
      `Checkpoint object ${oid} is damaged (${detail}). Its copy of the file cannot be read; the shadow repository was changed outside Posthoc or its disk lost data.`,
    );
  }
}

/**
 * Inflates the loose object at `path` (whose id is `oid`) and hands its content to `visit` in order, at most
 * `maxBytes` of it; stops inflating once the reader is served (`maxBytes` out, or `visit` returned false)
 * and content remains. Returns the header's type and size and how many bytes `visit` got, or null when there
 * is no such file (the object is packed, or missing). An object of another type than `type` is refused
 * before any content reaches `visit`.
 */
export function streamLoose(path: string, oid: string, type: string, maxBytes: number, visit: BlobVisitor): Promise<StreamedObject | null> {
  return streamDeflated(path, 0, null, oid, type, maxBytes, visit);
}

/**
 * The same for a packed object whose entry (type and size) was read from its pack: its deflated content
 * starts at `start` and carries no header.
 */
export async function streamPacked(
  path: string,
  start: number,
  entry: { type: string; size: number },
  oid: string,
  type: string,
  maxBytes: number,
  visit: BlobVisitor,
): Promise<StreamedObject> {
  if (entry.type !== type) throw new Error(`Checkpoint object ${oid} is a ${entry.type}, not a ${type}.`);
  const streamed = await streamDeflated(path, start, entry.size, oid, type, maxBytes, visit);
  if (!streamed) throw new DamagedObject(oid, 'its pack is gone');
  return streamed;
}

/** `size`: known from a pack entry's header (no header in the stream), or null for a loose object. */
async function streamDeflated(
  path: string,
  start: number,
  knownSize: number | null,
  oid: string,
  type: string,
  maxBytes: number,
  visit: BlobVisitor,
): Promise<StreamedObject | null> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const source = handle.createReadStream({ highWaterMark: CHUNK_BYTES, start }); // closes the handle when it ends or is destroyed
  const inflater = createInflate();
  source.on('error', (error) => inflater.destroy(error));
  source.pipe(inflater);

  let header: Buffer | null = knownSize === null ? Buffer.alloc(0) : null; // bytes of the header seen so far; null once it is parsed
  let size = knownSize ?? -1;
  let seen = 0; // content bytes inflated so far (checked against the header's size)
  let read = 0; // content bytes handed to visit
  let served = maxBytes <= 0;
  let stopped = false;
  try {
    for await (const piece of inflater as AsyncIterable<Buffer>) {
      let chunk = piece;
      if (header !== null) {
        header = Buffer.concat([header, chunk]);
        const nul = header.indexOf(0);
        if (nul < 0) {
          if (header.length > MAX_HEADER_BYTES) throw new DamagedObject(oid, 'no object header');
          continue;
        }
        if (nul > MAX_HEADER_BYTES) throw new DamagedObject(oid, 'no object header');
        const match = HEADER.exec(header.subarray(0, nul).toString('latin1'));
        if (!match) throw new DamagedObject(oid, 'no object header');
        if (match[1] !== type) throw new Error(`Checkpoint object ${oid} is a ${match[1]}, not a ${type}.`);
        size = Number(match[2]);
        if (!Number.isSafeInteger(size)) throw new DamagedObject(oid, 'no object header');
        chunk = header.subarray(nul + 1);
        header = null;
      }
      seen += chunk.length;
      if (seen > size) throw new DamagedObject(oid, `it holds more than the ${size} bytes its header says`);
      if (!served && chunk.length > 0) {
        const part = chunk.subarray(0, maxBytes - read);
        read += part.length;
        if (visit(part) === false || read >= maxBytes) served = true;
      }
      // Served with content left: stop here. With none left, read on to the end, which checks the stream.
      if (served && seen < size) {
        stopped = true;
        break;
      }
    }
  } catch (error) {
    if (isZlibError(error)) throw new DamagedObject(oid, error.message);
    throw error;
  } finally {
    inflater.destroy();
    source.destroy();
  }
  if (!stopped) {
    if (size < 0) throw new DamagedObject(oid, 'no object header');
    if (seen < size) throw new DamagedObject(oid, `truncated: ${seen} of the ${size} bytes its header says`);
  }
  return { type, size, read };
}

function isZlibError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}
