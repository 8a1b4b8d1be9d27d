// Removes secrets from text and bytes before anything reaches the sandbox, the store or a front end:
// each secret raw, URL-encoded (both forms), JSON-escaped, hex, reversed, and base64 / base64url (padded
// or not) — also inside a longer encoded value, at any alignment (a Basic header encodes "user:SECRET").
// Every form is matched ignoring case, so an upper-cased echo (or upper-case hex) is caught too.
export const REDACTED = '[REDACTED]';
/** Shorter values are too likely to occur by chance; secrets are never that short. */
const MIN_SECRET = 6;
const MIN_ENCODED = 8;

export class Redactor {
  private readonly forms = new Set<string>();
  /** The forms lower-cased: matching ignores case, so forms that differ only in case are one pattern. */
  private readonly folded = new Set<string>();
  private readonly secrets = new Set<string>();
  // One alternation of every form, built once per set of secrets (rebuilt only when a secret is added):
  // a single scan of the input instead of one per form.
  private textPattern: RegExp | null = null;
  private bytePattern: RegExp | null = null;

  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string | null | undefined): void {
    if (!secret || secret.length < MIN_SECRET || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    for (const f of formsOf(secret)) {
      if ((f.length < MIN_ENCODED && f.length < secret.length) || this.folded.has(f.toLowerCase())) continue;
      this.folded.add(f.toLowerCase());
      this.forms.add(f);
    }
    this.textPattern = null;
    this.bytePattern = null;
  }

  /** How many secrets it knows. */
  get size(): number {
    return this.secrets.size;
  }

  text(input: string): string {
    const pattern = this.pattern();
    if (!pattern || input.length === 0) return input;
    return input.replace(pattern, REDACTED);
  }

  buffer(input: Buffer): Buffer {
    const bytes = this.bytesPattern();
    if (!bytes || input.length === 0) return input;
    // Bytes as latin1 (one char per byte) so the check needs no decoding; most bodies have no secret.
    const latin = input.toString('latin1');
    bytes.lastIndex = 0;
    if (!bytes.test(latin)) return input;
    // Work on the UTF-8 text when it is text; bytes that are not valid UTF-8 are matched as latin1.
    const utf8 = input.toString('utf8');
    if (Buffer.from(utf8, 'utf8').equals(input)) return Buffer.from(this.text(utf8), 'utf8');
    return Buffer.from(latin.replace(bytes, REDACTED), 'latin1');
  }

  /** Whether any form of any secret occurs in the text (for checks, not for redaction). */
  finds(input: string): boolean {
    const pattern = this.pattern();
    if (!pattern) return false;
    pattern.lastIndex = 0;
    return pattern.test(input);
  }

  private pattern(): RegExp | null {
    if (this.forms.size === 0) return null;
    this.textPattern ??= alternation([...this.forms]);
    return this.textPattern;
  }

  private bytesPattern(): RegExp | null {
    if (this.forms.size === 0) return null;
    this.bytePattern ??= alternation([...this.forms].map((f) => Buffer.from(f, 'utf8').toString('latin1')));
    return this.bytePattern;
  }
}

/** Longest first, so a secret's encoded form is not half-replaced by a shorter one that starts it. */
function alternation(forms: string[]): RegExp {
  const sorted = [...new Set(forms)].sort((a, b) => b.length - a.length);
  return new RegExp(sorted.map((f) => f.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')).join('|'), 'gi');
}

/** The forms a secret can take on the wire. */
export function formsOf(secret: string): string[] {
  const raws = new Set<string>([secret]);
  // A scheme word before the token ("Bot xyz", "token xyz"): the token alone is the secret too.
  const lastSpace = secret.lastIndexOf(' ');
  if (lastSpace > 0 && secret.length - lastSpace - 1 >= MIN_SECRET) raws.add(secret.slice(lastSpace + 1));
  const forms = new Set<string>();
  for (const s of raws) {
    forms.add(s);
    forms.add([...s].reverse().join(''));
    forms.add(encodeURIComponent(s));
    forms.add(new URLSearchParams({ v: s }).toString().slice(2));
    forms.add(JSON.stringify(s).slice(1, -1));
    // Byte encodings change with case, so those of the upper- and lower-cased secret are forms too.
    for (const variant of new Set([s, s.toUpperCase(), s.toLowerCase()])) {
      const bytes = Buffer.from(variant, 'utf8');
      forms.add(bytes.toString('hex'));
      for (const encoded of base64Cores(bytes)) forms.add(encoded);
    }
  }
  return [...forms].filter((f) => f.length > 0);
}

/**
 * The base64 and base64url characters that encode these bytes wherever they sit in a longer value: for
 * each of the three alignments, the part of the encoding no neighbouring byte can change.
 */
function base64Cores(bytes: Buffer): string[] {
  const out: string[] = [];
  // Aligned at the start, the whole encoding (with and without padding, both alphabets) is a form too.
  const whole = bytes.toString('base64');
  const url = bytes.toString('base64url');
  out.push(whole, whole.replace(/=+$/, ''), url, url + '='.repeat(whole.length - url.length));
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

/** The longest text one secret can take: how far a stream redacted in windows must look back across a border. */
export function longestForm(redactor: Redactor): number {
  let longest = 0;
  for (const form of redactor['forms'].values()) longest = Math.max(longest, form.length);
  return longest;
}
