// Debian's archive as the apt route trusts it: the suite's InRelease verified with gpgv against the person's
// keyring (Debian's own by default), and from its signed text only, the index files it lists with their
// SHA-256 and size; from a Packages index those hashes vouch for, each package file with its own. Nothing
// the signature does not reach is read: gpgv writes out exactly the text it verified, and that is what is
// parsed (text outside the signed part of a clearsigned file is ignored by construction).
// The one door to gpgv and to xz (both in every Debian and Ubuntu install: apt depends on them).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export class AptIndexRefused extends Error {}

/** What the signed Release says: the suite's names and each listed index file by its path under dists/SUITE/. */
export type Release = {
  suite: string | null;
  codename: string | null;
  acquireByHash: boolean;
  /** path ("main/binary-amd64/Packages.xz") → its SHA-256 and size. */
  files: Map<string, { sha256: string; size: number }>;
};

/** One package file in a Packages index. */
export type PoolFile = { name: string; version: string; sha256: string; size: number };

/**
 * Verifies a clearsigned InRelease with gpgv against `keyring` and returns exactly the text the signature
 * covers. Throws AptIndexRefused (with gpgv's own words) when the signature is missing, bad, or made by a
 * key the keyring does not hold.
 */
export async function verifiedText(inRelease: Buffer, keyring: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'posthoc-apt-'));
  try {
    const signed = join(dir, 'InRelease');
    const out = join(dir, 'Release');
    await writeFile(signed, inRelease);
    const { code, stderr } = await run('gpgv', ['--keyring', keyring, '--output', out, signed]);
    if (code !== 0) {
      const words = stderr.trim().split('\n').filter((l) => /gpgv:/.test(l)).map((l) => l.replace(/^gpgv:\s*/, '')).slice(-3).join('; ');
      throw new AptIndexRefused(`the archive's InRelease is not signed by a key Posthoc trusts (gpgv: ${words || `exit ${code}`})`);
    }
    return await readFile(out, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Parses the fields of a Release file that the route needs (RFC 822-style, deb822). */
export function parseRelease(text: string): Release {
  const fields = deb822(text)[0] ?? new Map<string, string>();
  const files = new Map<string, { sha256: string; size: number }>();
  for (const line of (fields.get('sha256') ?? '').split('\n')) {
    const m = /^\s*([0-9a-f]{64})\s+(\d+)\s+(\S+)\s*$/.exec(line);
    if (m && safePath(m[3]!)) files.set(m[3]!, { sha256: m[1]!, size: Number(m[2]) });
  }
  return {
    suite: fields.get('suite') ?? null,
    codename: fields.get('codename') ?? null,
    acquireByHash: (fields.get('acquire-by-hash') ?? '').trim().toLowerCase() === 'yes',
    files,
  };
}

/** Each package's file in a Packages index: Filename → name, version, SHA-256, size. */
export function parsePackages(text: string): Map<string, PoolFile> {
  const out = new Map<string, PoolFile>();
  for (const stanza of deb822(text)) {
    const filename = stanza.get('filename');
    const sha256 = stanza.get('sha256');
    const size = Number(stanza.get('size'));
    const name = stanza.get('package');
    if (!filename || !name || !sha256 || !/^[0-9a-f]{64}$/.test(sha256) || !Number.isSafeInteger(size) || !safePath(filename)) continue;
    out.set(filename, { name, version: stanza.get('version') ?? '', sha256, size });
  }
  return out;
}

/** A path inside the archive: relative, no "..", no empty or "." part, no backslash. */
export function safePath(path: string): boolean {
  if (path.startsWith('/') || path.includes('\\') || path.includes('\0')) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/** The stanzas of a deb822 text: blank-line separated, "Field: value" with continuation lines. */
function deb822(text: string): Array<Map<string, string>> {
  const stanzas: Array<Map<string, string>> = [];
  let current = new Map<string, string>();
  let last: string | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current.size > 0) stanzas.push(current);
      current = new Map();
      last = null;
      continue;
    }
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      current.set(last, `${current.get(last)}\n${line}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon).trim().toLowerCase();
    current.set(last, line.slice(colon + 1).trim());
  }
  if (current.size > 0) stanzas.push(current);
  return stanzas;
}

/** The text of an index file, decompressed by its name (.xz with xz, .gz with gunzip, else as it is). */
export async function indexText(name: string, body: Readable, maxBytes: number): Promise<string> {
  if (name.endsWith('.xz') || name.endsWith('.gz')) {
    const done = await run(name.endsWith('.xz') ? 'xz' : 'gzip', ['-dc'], body, maxBytes);
    if (done.code !== 0) throw new AptIndexRefused(`the index ${name} could not be decompressed (${done.stderr.trim().split('\n').pop() ?? `exit ${done.code}`})`);
    return done.stdout;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new AptIndexRefused(`the index ${name} is over ${Math.round(maxBytes / 1024 / 1024)} MiB`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function run(command: string, args: string[], input?: Readable, maxBytes = 64 * 1024 * 1024): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
    const out: Buffer[] = [];
    let size = 0;
    let err = '';
    let over = false;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        over = true;
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 8192) err += chunk.toString('utf8');
    });
    child.on('error', (error) =>
      reject(new AptIndexRefused(`${command} could not run (${(error as NodeJS.ErrnoException).code ?? error.message}); install it (Debian: sudo apt install ${command === 'gpgv' ? 'gpgv' : 'xz-utils'})`)),
    );
    child.on('close', (code) => {
      if (over) reject(new AptIndexRefused(`the decompressed index is over ${Math.round(maxBytes / 1024 / 1024)} MiB`));
      else resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: err });
    });
    if (input && child.stdin) {
      input.on('error', () => child.kill('SIGKILL'));
      child.stdin.on('error', () => undefined);
      input.pipe(child.stdin);
    }
  });
}
