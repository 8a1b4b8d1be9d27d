// Removes secrets from text and bytes before anything reaches the sandbox, the store or a front end: every
// form in secret-forms.ts (the secret escaped, entity-encoded, dotted or spaced character by character;
// hex with or without separators; base64 and base32 at any alignment; reversed; UTF-16 and UTF-32),
// matched ignoring case. What it cannot catch: docs/CONNECTIONS.md, "What redaction cannot promise".
import { base32Of, characterForm, encodedCores, hexForm, literal, literalTrie, wideForms, type Form } from './secret-forms';

export const REDACTED = '[REDACTED]';
/** Shorter values are too likely to occur by chance; secrets are never that short. */
const MIN_SECRET = 6;
const MIN_ENCODED = 8;

type Domain = 'text' | 'bytes';
/** One scan: an expression over text and one over latin1 bytes, each compiled when first used. */
class Pass {
  private readonly compiled: Partial<Record<Domain, RegExp>> = {};
  constructor(private readonly sources: Record<Domain, string>) {}

  /**
   * V8 runs a new expression in its interpreter first and compiles it on the next run; one run on a short
   * text here means the first body scanned, however long, is scanned by compiled code.
   */
  in(domain: Domain): RegExp {
    let regex = this.compiled[domain];
    if (!regex) {
      regex = this.compiled[domain] = new RegExp(this.sources[domain], 'gi');
      regex.test('-');
    }
    regex.lastIndex = 0;
    return regex;
  }
}

export class Redactor {
  private readonly secrets = new Set<string>();
  /** Each raw secret's character-by-character and hex forms: a pass each (joined, they scan many times slower). */
  private readonly patterned = new Map<string, Form>();
  /** Every literal form (encodings, reversed, wide), by its expression lower-cased: one pass for them all. */
  private readonly literals = new Map<string, Form>();
  /** A wide form's bytes lower-cased → the marker in its encoding. */
  private readonly wideMarkers = new Map<string, string>();
  // Built once per set of secrets (rebuilt only when a secret is added).
  private built: Pass[] | null = null;

  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string | null | undefined): void {
    if (!secret || secret.length < MIN_SECRET || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    for (const raw of rawsOf(secret)) {
      for (const form of [characterForm(raw), hexForm(raw)]) this.patterned.set(form.text.toLowerCase(), form);
      for (const form of literalForms(raw)) this.literals.set(form.text.toLowerCase(), form);
      for (const form of wideForms(raw, REDACTED)) {
        this.literals.set(form.text.toLowerCase(), form);
        this.wideMarkers.set(form.encoded.toLowerCase(), form.marker);
      }
    }
    this.built = null;
  }

  /** How many secrets it knows. */
  get size(): number {
    return this.secrets.size;
  }

  /** The longest text one form of a secret can match: how far a stream redacted in windows must look back. */
  get longest(): number {
    let longest = 0;
    for (const form of [...this.patterned.values(), ...this.literals.values()]) longest = Math.max(longest, form.max);
    return longest;
  }

  text(input: string): string {
    if (input.length === 0 || !this.holds(input, 'text')) return input;
    return this.passes().reduce((out, pass) => out.replace(pass.in('text'), this.marker), input);
  }

  buffer(input: Buffer): Buffer {
    if (input.length === 0) return input;
    // Bytes as latin1 (one char per byte) so the check needs no decoding; most bodies have no secret.
    const latin = input.toString('latin1');
    if (!this.holds(latin, 'bytes')) return input;
    // Work on the UTF-8 text when it is text; bytes that are not valid UTF-8 are matched as latin1.
    const utf8 = input.toString('utf8');
    if (Buffer.from(utf8, 'utf8').equals(input)) return Buffer.from(this.text(utf8), 'utf8');
    return Buffer.from(
      this.passes().reduce((out, pass) => out.replace(pass.in('bytes'), this.marker), latin),
      'latin1',
    );
  }

  /** Whether any form of any secret occurs in the text (for checks, not for redaction). */
  finds(input: string): boolean {
    return this.holds(input, 'text');
  }

  /** The marker; in a wide encoding's own bytes where the match is one, so such text stays that encoding. */
  private readonly marker = (match: string): string => this.wideMarkers.get(match.toLowerCase()) ?? REDACTED;

  private holds(input: string, domain: Domain): boolean {
    return this.passes().some((pass) => pass.in(domain).test(input));
  }

  /** Longest forms first, so a longer form is not half-replaced by a shorter one that starts it. */
  private passes(): Pass[] {
    if (this.built) return this.built;
    const byLength = (forms: Iterable<Form>) => [...forms].sort((a, b) => b.max - a.max);
    // V8 keeps compiled expressions by their source, so a rebuild after a new secret compiles only what is new.
    const patterned = byLength(this.patterned.values()).map((f) => new Pass(f));
    const plain = [...this.literals.values()].map((f) => f.plain!);
    const literals = new Pass({ text: literalTrie(plain.map((p) => p.text)), bytes: literalTrie(plain.map((p) => p.bytes)) });
    this.built = plain.length > 0 ? [...patterned, literals] : patterned;
    return this.built;
  }
}

/** The secret, and the token alone when a scheme word comes before it ("Bot xyz", "token xyz"). */
function rawsOf(secret: string): string[] {
  const lastSpace = secret.lastIndexOf(' ');
  const token = lastSpace > 0 ? secret.slice(lastSpace + 1) : '';
  return token.length >= MIN_SECRET ? [secret, token] : [secret];
}

/** The literal forms of one raw secret: reversed, and its base64 and base32 encodings. */
function literalForms(raw: string): Form[] {
  const forms: Form[] = [literal([...raw].reverse().join(''))];
  const encodings = new Set<string>();
  // Byte encodings change with case, so those of the upper- and lower-cased secret are forms too.
  for (const variant of new Set([raw, raw.toUpperCase(), raw.toLowerCase()])) {
    const bytes = Buffer.from(variant, 'utf8');
    const b64 = bytes.toString('base64');
    const b32 = base32Of(bytes);
    const url = bytes.toString('base64url');
    // Aligned at the start, the whole encoding (padded or not, each alphabet) is a form too.
    for (const whole of [b64, b64.replace(/=+$/, ''), url, url + '='.repeat(b64.length - url.length), b32, b32 + '='.repeat((8 - (b32.length % 8)) % 8)]) {
      encodings.add(whole);
    }
    for (const core of encodedCores(bytes, (b) => b.toString('base64'), 6)) encodings.add(core).add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    for (const core of encodedCores(bytes, base32Of, 5)) encodings.add(core);
  }
  for (const encoded of encodings) if (encoded.length >= MIN_ENCODED) forms.push(literal(encoded));
  return forms;
}

/** The longest text one secret can take: how far a stream redacted in windows must look back across a border. */
export function longestForm(redactor: Redactor): number {
  return redactor.longest;
}
