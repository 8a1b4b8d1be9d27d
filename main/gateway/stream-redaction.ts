// Redaction of a body too large to hold: the Redactor applied to windows of the stream. A secret can be
// cut in two by any chunk border, so each window's last bytes (as long as the longest form a secret can
// take, in UTF-8) are carried into the next window and redacted again with what follows: an occurrence
// that ends beyond a window starts within that carry, so some window holds it whole.
import { Transform, type TransformCallback } from 'node:stream';
import { longestForm, type Redactor } from './redaction';

/** How much the stream gathers before it redacts: larger windows mean fewer scans over the carry. */
export const REDACT_WINDOW = 256 * 1024;

export class RedactingStream extends Transform {
  /** Bytes not yet redacted (the carry first), gathered as chunks and joined once per window. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly redactor: Redactor,
    private readonly window = REDACT_WINDOW,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    // With no secret known there is nothing to find: pass bytes through as they come.
    if (this.redactor.size === 0 && this.pendingBytes === 0) return done(null, chunk);
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= this.window + this.carryBytes()) this.emitWindow();
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.pendingBytes > 0) this.push(this.redactor.buffer(Buffer.concat(this.pending)));
    this.pending = [];
    this.pendingBytes = 0;
    done();
  }

  /** A form of N characters is at most 3N bytes of UTF-8 (a character outside the BMP is 2 characters, 4 bytes). */
  private carryBytes(): number {
    return 3 * longestForm(this.redactor);
  }

  private emitWindow(): void {
    // Redact up to the last whole UTF-8 character, so a multi-byte character is never decoded in halves.
    const pending = Buffer.concat(this.pending);
    const end = completeUtf8(pending);
    const out = this.redactor.buffer(pending.subarray(0, end));
    const rest = pending.subarray(end);
    // Keep the redacted window's tail: its raw part may begin a secret that the next bytes complete.
    const cut = charStart(out, Math.max(0, out.length - this.carryBytes()));
    this.push(out.subarray(0, cut));
    // Copied: a view would keep the whole window's memory alive.
    this.pending = [Buffer.from(out.subarray(cut)), Buffer.from(rest)];
    this.pendingBytes = out.length - cut + rest.length;
  }
}

/** The length of the prefix that ends on a character border (a trailing, incomplete sequence left out). */
export function completeUtf8(bytes: Buffer): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const need = b >= 0xf8 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1; // 0xf8 and up lead nothing
    return need > back ? n - back : n;
  }
  return n;
}

/** `at`, moved back to the start of the character it falls in. */
function charStart(bytes: Buffer, at: number): number {
  let i = at;
  while (i > 0 && i > at - 3 && (bytes[i]! & 0xc0) === 0x80) i--;
  return i;
}
