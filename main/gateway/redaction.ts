// Removes secrets from text and bytes before anything reaches the sandbox, the store or a front end:
// each secret raw, URL-encoded (both forms), JSON-escaped, and base64 / base64url — also inside a longer
// encoded value, at any alignment (a Basic header encodes "user:SECRET").
export const REDACTED = '[REDACTED]';
/** Shorter values are too likely to occur by chance; secrets are never that short. */
const MIN_SECRET = 6;
const MIN_ENCODED = 8;

export class Redactor {
  private readonly forms = new Set<string>();
  private readonly secrets = new Set<string>();

  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string | null | undefined): void {
    if (!secret || secret.length < MIN_SECRET || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    for (const f of formsOf(secret)) if (f.length >= MIN_ENCODED || f === secret) this.forms.add(f);
  }

  /** How many secrets it knows. */
  get size(): number {
    return this.secrets.size;
  }

  text(input: string): string {
    if (this.forms.size === 0 || input.length === 0) return input;
    let out = input;
    // Longest first, so a secret's encoded form is not half-replaced by a shorter one.
    for (const form of [...this.forms].sort((a, b) => b.length - a.length)) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
    return out;
  }

  buffer(input: Buffer): Buffer {
    if (this.forms.size === 0 || input.length === 0) return input;
    const text = input.toString('latin1');
    let hit = false;
    for (const form of this.forms) {
      if (text.includes(Buffer.from(form, 'utf8').toString('latin1'))) {
        hit = true;
        break;
      }
    }
    if (!hit) return input;
    // Work on the UTF-8 text when it is text; bytes that are not valid UTF-8 are matched as latin1.
    const utf8 = input.toString('utf8');
    if (Buffer.from(utf8, 'utf8').equals(input)) return Buffer.from(this.text(utf8), 'utf8');
    let latin = text;
    for (const form of [...this.forms].sort((a, b) => b.length - a.length)) {
      latin = latin.split(Buffer.from(form, 'utf8').toString('latin1')).join(REDACTED);
    }
    return Buffer.from(latin, 'latin1');
  }

  /** Whether any form of any secret occurs in the text (for checks, not for redaction). */
  finds(input: string): boolean {
    for (const form of this.forms) if (input.includes(form)) return true;
    return false;
  }
}

/** The forms a secret can take on the wire. */
export function formsOf(secret: string): string[] {
  const forms = new Set<string>([secret]);
  // A scheme word before the token ("Bot xyz", "token xyz"): the token alone is the secret too.
  const lastSpace = secret.lastIndexOf(' ');
  if (lastSpace > 0 && secret.length - lastSpace - 1 >= MIN_SECRET) forms.add(secret.slice(lastSpace + 1));
  for (const s of [...forms]) {
    forms.add(encodeURIComponent(s));
    forms.add(new URLSearchParams({ v: s }).toString().slice(2));
    forms.add(JSON.stringify(s).slice(1, -1));
    for (const encoded of base64Cores(Buffer.from(s, 'utf8'))) forms.add(encoded);
  }
  return [...forms].filter((f) => f.length > 0);
}

/**
 * The base64 and base64url characters that encode these bytes wherever they sit in a longer value: for
 * each of the three alignments, the part of the encoding no neighbouring byte can change.
 */
function base64Cores(bytes: Buffer): string[] {
  const out: string[] = [];
  // Aligned at the start, the whole encoding (with and without padding) is a form too.
  const whole = bytes.toString('base64');
  out.push(whole, whole.replace(/=+$/, ''), bytes.toString('base64url'));
  for (let shift = 0; shift < 3; shift++) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const enc = padded.toString('base64');
    // Characters touched by the leading zero bytes, and the last group (it mixes with what follows).
    const start = shift === 0 ? 0 : 4;
    const fullGroups = Math.floor(padded.length / 3) * 4;
    const core = enc.slice(start, fullGroups);
    if (core.length >= MIN_ENCODED) {
      out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return out;
}
