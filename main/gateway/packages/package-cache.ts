// The host's package cache, in the data folder: files by their SHA-256 (content-addressed, written
// only after they matched the index's hash), and the index pages and packuments the routes parsed,
// so a second task installing the same package asks the upstream nothing while they are fresh.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const HEX64 = /^[0-9a-f]{64}$/;

/** What a file's bytes must hash to; the index names it (PEP 503 #sha256=, npm integrity/shasum). */
export type ExpectedHash = { algorithm: 'sha256' | 'sha512' | 'sha1'; hex: string };

export class HashMismatch extends Error {}

export class PackageCache {
  constructor(readonly dir: string) {}

  private blobPath(sha256: string): string {
    if (!HEX64.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return join(this.dir, 'sha256', sha256.slice(0, 2), sha256);
  }

  private aliasPath(expected: ExpectedHash): string {
    if (!/^[0-9a-f]{40,128}$/.test(expected.hex)) throw new Error(`not a hex digest: ${expected.hex}`);
    return join(this.dir, 'by', expected.algorithm, expected.hex);
  }

  /** The cached file with this expected hash: its sha256 and size, or null. */
  async lookup(expected: ExpectedHash): Promise<{ sha256: string; bytes: number } | null> {
    const sha256 = expected.algorithm === 'sha256' ? expected.hex : await readFile(this.aliasPath(expected), 'utf8').catch(() => null);
    if (!sha256 || !HEX64.test(sha256)) return null;
    const st = await stat(this.blobPath(sha256)).catch(() => null);
    return st?.isFile() ? { sha256, bytes: st.size } : null;
  }

  open(sha256: string): Readable {
    return createReadStream(this.blobPath(sha256));
  }

  /**
   * Writes what `body` yields to a temporary file while hashing it; only when it hashes to `expected`
   * is it moved into the cache. A mismatch throws HashMismatch and leaves nothing behind.
   */
  async store(body: Readable, expected: ExpectedHash, maxBytes: number): Promise<{ sha256: string; bytes: number }> {
    const tmpDir = join(this.dir, 'tmp');
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(tmpDir, randomBytes(8).toString('hex'));
    const sha256 = createHash('sha256');
    const other = expected.algorithm === 'sha256' ? null : createHash(expected.algorithm);
    let bytes = 0;
    const hasher = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) return done(new Error(`the file is over ${Math.round(maxBytes / 1024 / 1024)} MiB`));
        sha256.update(chunk);
        other?.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, hasher, createWriteStream(tmp, { mode: 0o644 }));
      const got = sha256.digest('hex');
      const gotExpected = other ? other.digest('hex') : got;
      if (gotExpected !== expected.hex) {
        throw new HashMismatch(`its ${expected.algorithm} is ${gotExpected}, the index says ${expected.hex}`);
      }
      const target = this.blobPath(got);
      await mkdir(dirname(target), { recursive: true });
      await rename(tmp, target);
      if (other) {
        const alias = this.aliasPath(expected);
        await mkdir(dirname(alias), { recursive: true });
        await writeFile(alias, got);
      }
      return { sha256: got, bytes };
    } finally {
      await rm(tmp, { force: true });
    }
  }

  /** A parsed index page or packument saved with the time it was fetched. */
  async readIndex<T>(manager: string, key: string): Promise<{ fetchedAt: number; value: T } | null> {
    const text = await readFile(this.indexPath(manager, key), 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      return JSON.parse(text) as { fetchedAt: number; value: T };
    } catch {
      return null;
    }
  }

  async writeIndex<T>(manager: string, key: string, value: T): Promise<void> {
    const path = this.indexPath(manager, key);
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${randomBytes(6).toString('hex')}`;
    await writeFile(tmp, JSON.stringify({ fetchedAt: Date.now(), value }));
    await rename(tmp, path);
  }

  private indexPath(manager: string, key: string): string {
    return join(this.dir, 'index', manager, createHash('sha256').update(key).digest('hex'));
  }
}
