// The short, redacted view of a body that the card and the store keep: the whole body when it is
// short, else its head and tail. Only bounded windows are ever held, however large the body is.
import { Transform, type TransformCallback } from 'node:stream';
import type { Redactor } from './redaction';

const SUMMARY_CHARS = 400;
const TAIL_CHARS = 200;
/**
 * Raw bytes kept at each end. Far more than is shown, so a secret near the part shown lies wholly inside
 * the window and is redacted, never cut in half at the window's border.
 */
const END_BYTES = 64 * 1024;

/** Sees a body go by and keeps its first and last END_BYTES. */
export class BodyTap {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  see(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < END_BYTES) {
      const part = chunk.subarray(0, END_BYTES - this.headBytes);
      this.head.push(Buffer.from(part));
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
      if (chunk.length === 0) return;
    }
    this.tail.push(Buffer.from(chunk.subarray(Math.max(0, chunk.length - END_BYTES))));
    this.tailBytes += Math.min(chunk.length, END_BYTES);
    // Drop whole chunks while the rest still covers the window.
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= END_BYTES) this.tailBytes -= this.tail.shift()!.length;
  }

  /** A pass-through stream that shows every chunk to the tap; `end` runs before the stream's end is passed on. */
  stream(end?: () => void): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done: TransformCallback) => {
        this.see(chunk);
        done(null, chunk);
      },
      flush: (done: TransformCallback) => {
        try {
          end?.();
          done();
        } catch (error) {
          done(error as Error);
        }
      },
    });
  }

  summary(contentType: string | string[] | undefined, redactor: Redactor): string | null {
    const head = Buffer.concat(this.head);
    if (this.tailBytes === 0) return summarize(head, contentType, redactor);
    const tail = Buffer.concat(this.tail);
    return summarizeEnds(head, tail.subarray(Math.max(0, tail.length - END_BYTES)), this.total, contentType, redactor);
  }
}

/** A whole body's summary. */
export function summarize(body: Buffer, contentType: string | string[] | undefined, redactor: Redactor): string | null {
  if (body.length === 0) return null;
  const text = body.toString('utf8');
  if (!readable(text, contentType)) return `${body.length} bytes`;
  const clean = redactor.text(text);
  return clean.length > SUMMARY_CHARS ? `${clean.slice(0, SUMMARY_CHARS)}… (${body.length} bytes)` : clean;
}

function summarizeEnds(head: Buffer, tail: Buffer, total: number, contentType: string | string[] | undefined, redactor: Redactor): string {
  const headText = head.toString('utf8');
  if (!readable(headText.replace(/\uFFFD+$/, ''), contentType)) return `${total} bytes`;
  // The tail may start inside a character: drop the replacement characters that makes.
  const tailText = redactor.text(tail.toString('utf8').replace(/^\uFFFD+/, ''));
  return `${redactor.text(headText).slice(0, SUMMARY_CHARS)}… (${total} bytes) …${tailText.slice(-TAIL_CHARS)}`;
}

function readable(text: string, contentType: string | string[] | undefined): boolean {
  const printable = !text.includes('\uFFFD') && !/[\x00-\x08\x0E-\x1F]/.test(text);
  return printable || /json|text|form/.test(String(contentType ?? ''));
}
