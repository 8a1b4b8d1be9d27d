// Reading a checkpoint blob in part (main/effects/fs/blob-stream.ts through ShadowRepo): the size from the
// object's header, at most N bytes of content, and nothing inflated past what the reader needs; a damaged
// object — no header, more or less content than its header says, a cut zlib stream — fails with
// DamagedObject, in bounded memory and without hanging.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { createDeflate, deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { DamagedObject } from '../../main/effects/fs/blob-stream';
import { ShadowRepo } from '../../main/effects/fs/git-objects';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());
const MIB = 1024 * 1024;

async function repo(): Promise<ShadowRepo> {
  return ShadowRepo.open(join(dirs.make('posthoc-blobs-'), 'shadow.git'), 'test');
}

/** Writes `object` (already deflated) as the loose object `oid`, whatever it holds. */
function plant(shadow: ShadowRepo, oid: string, object: Buffer): void {
  mkdirSync(join(shadow.gitdir, 'objects', oid.slice(0, 2)), { recursive: true });
  writeFileSync(join(shadow.gitdir, 'objects', oid.slice(0, 2), oid.slice(2)), object);
}

/** Deflates a header and then `count` pieces of `piece` as a stream into the loose object `oid` (never whole in memory). */
async function plantStreamed(shadow: ShadowRepo, oid: string, header: string, piece: Buffer, count: number): Promise<void> {
  const dir = join(shadow.gitdir, 'objects', oid.slice(0, 2));
  mkdirSync(dir, { recursive: true });
  const deflater = createDeflate({ level: 1 });
  const sink = createWriteStream(join(dir, oid.slice(2)));
  deflater.pipe(sink);
  deflater.write(Buffer.from(header, 'latin1'));
  for (let i = 0; i < count; i++) if (!deflater.write(piece)) await once(deflater, 'drain');
  deflater.end();
  await once(sink, 'close');
}

/** Bytes that do not compress, so an object's size on disk is close to its content's. */
function noise(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let at = 0, n = 0; at < bytes; at += 32, n++) createHash('sha256').update(String(n)).digest().copy(out, at);
  return out;
}

const FAKE = 'ab'.repeat(20);
const peakRss = () => process.resourceUsage().maxRSS * 1024;

describe('a bounded read of a checkpoint blob', () => {
  it('gives the size from the header and exactly N bytes of a larger blob', async () => {
    const shadow = await repo();
    const content = noise(3 * MIB + 123);
    const oid = shadow.writeBlob(content);
    for (const n of [1, 1000, 16 * 1024, 64 * 1024 + 1, MIB]) {
      const head = await shadow.readBlobHead(oid, n);
      expect(head.size).toBe(content.length);
      expect(head.content.equals(content.subarray(0, n))).toBe(true);
    }
    expect(await shadow.blobSize(oid)).toBe(content.length);
    const whole = await shadow.readBlobHead(oid, 10 * MIB);
    expect(whole.content.equals(content)).toBe(true);
    expect((await shadow.readBlobHead(oid, 0)).content.length).toBe(0);

    // The reader can stop it early: what it got is what it saw.
    const seen: Buffer[] = [];
    const stopped = await shadow.streamBlob(oid, Number.POSITIVE_INFINITY, (chunk) => {
      seen.push(chunk);
      return Buffer.concat(seen).length < 100_000;
    });
    expect(stopped.size).toBe(content.length);
    expect(stopped.read).toBe(Buffer.concat(seen).length);
    expect(Buffer.concat(seen).equals(content.subarray(0, stopped.read))).toBe(true);

    const empty = shadow.writeBlob(Buffer.alloc(0));
    expect(await shadow.readBlobHead(empty, 10)).toEqual({ size: 0, content: Buffer.alloc(0) });
  });

  it('reads a large file stored by streaming (as checkpoints store files of 8 MiB and more) the same way', async () => {
    const shadow = await repo();
    const folder = dirs.make('posthoc-large-');
    const content = noise(9 * MIB);
    writeFileSync(join(folder, 'big.bin'), content);
    const written = await shadow.writeBlobFromFile(join(folder, 'big.bin'), content.length);
    const head = await shadow.readBlobHead(written!.oid, 4096);
    expect(head.size).toBe(9 * MIB);
    expect(head.content.equals(content.subarray(0, 4096))).toBe(true);
  });

  it('stops inflating once served: the damaged end of a blob is never reached by a read of its start', async () => {
    const shadow = await repo();
    const content = noise(2 * MIB);
    const object = deflateSync(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]));
    plant(shadow, FAKE, object.subarray(0, object.length / 2)); // cut half-way
    const head = await shadow.readBlobHead(FAKE, 1000);
    expect(head).toMatchObject({ size: content.length });
    expect(head.content.equals(content.subarray(0, 1000))).toBe(true);
    await expect(shadow.readBlobHead(FAKE, 4 * MIB)).rejects.toThrow(DamagedObject);
  });

  it('fails with a clear error on an object that is not one', async () => {
    const shadow = await repo();
    plant(shadow, FAKE, Buffer.from('this was never deflated'));
    const error = await shadow.readBlobHead(FAKE, 10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DamagedObject);
    expect((error as Error).message).toBe(
      `Checkpoint object ${FAKE} is damaged (incorrect header check). Its copy of the file cannot be read; the shadow repository was changed outside Posthoc or its disk lost data.`,
    );
    plant(shadow, FAKE, Buffer.alloc(0));
    await expect(shadow.blobSize(FAKE)).rejects.toThrow(/is damaged \(unexpected end of file\)/);
    plant(shadow, FAKE, deflateSync(Buffer.from('blob twelve\0twelve bytes')));
    await expect(shadow.blobSize(FAKE)).rejects.toThrow(/is damaged \(no object header\)/);
    plant(shadow, FAKE, deflateSync(Buffer.from('blob 012\0twelve bytes')));
    await expect(shadow.blobSize(FAKE)).rejects.toThrow(/is damaged \(no object header\)/);
    const tree = shadow.writeTree([{ name: 'a', mode: '100644', oid: shadow.writeBlob(Buffer.from('a')) }]);
    await expect(shadow.readBlobHead(tree, 10)).rejects.toThrow(`Checkpoint object ${tree} is a tree, not a blob.`);
  });

  it('refuses an object that claims a small size and inflates to 256 MiB, after one chunk', { timeout: 60_000 }, async () => {
    const shadow = await repo();
    await plantStreamed(shadow, FAKE, 'blob 5\0', Buffer.alloc(MIB), 256);
    const before = peakRss();
    await expect(shadow.readBlobHead(FAKE, Number.POSITIVE_INFINITY)).rejects.toThrow(`is damaged (it holds more than the 5 bytes its header says)`);
    await expect(shadow.readBlobHead(FAKE, 5)).rejects.toThrow(/holds more than the 5 bytes/);
    expect(peakRss() - before).toBeLessThan(64 * MIB);
  });

  it('refuses a header with no end (no NUL in 256 MiB of inflated bytes), after one chunk', { timeout: 60_000 }, async () => {
    const shadow = await repo();
    await plantStreamed(shadow, FAKE, 'blob ', Buffer.alloc(MIB, '7'), 256);
    const before = peakRss();
    await expect(shadow.blobSize(FAKE)).rejects.toThrow(/is damaged \(no object header\)/);
    expect(peakRss() - before).toBeLessThan(64 * MIB);
  });

  it('refuses a truncated object: content shorter than its header says, or a zlib stream cut short', async () => {
    const shadow = await repo();
    plant(shadow, FAKE, deflateSync(Buffer.from(`blob 100\0${'x'.repeat(50)}`)));
    await expect(shadow.readBlobHead(FAKE, 1000)).rejects.toThrow(/is damaged \(truncated: 50 of the 100 bytes its header says\)/);
    // Claiming far more than it holds: read to its end, then refused (nothing is allocated for the claim).
    plant(shadow, FAKE, deflateSync(Buffer.from('blob 9007199254740991\0tiny')));
    await expect(shadow.readBlobHead(FAKE, Number.POSITIVE_INFINITY)).rejects.toThrow(/truncated: 4 of the 9007199254740991 bytes/);
    expect(await shadow.blobSize(FAKE)).toBe(9007199254740991);
    const object = deflateSync(Buffer.from(`blob 1000\0${'y'.repeat(1000)}`));
    plant(shadow, FAKE, object.subarray(0, object.length - 6)); // no end of stream, no checksum
    await expect(shadow.readBlobHead(FAKE, 2000)).rejects.toThrow(/is damaged \(unexpected end of file\)/);
  });

  it('reads a packed blob (after a git gc by hand) through isomorphic-git', async () => {
    const shadow = await repo();
    const oid = shadow.writeBlob(Buffer.from('packed content\n'));
    const commit = await shadow.writeCommit({ tree: shadow.writeTree([{ name: 'f', mode: '100644', oid }]), parents: [], message: 'm', at: new Date() });
    await shadow.setRef('keep', commit);
    execFileSync('git', ['--git-dir', shadow.gitdir, 'gc', '--quiet', '--prune=now']);
    expect(shadow.listLoose()).not.toContain(oid);
    expect(await new ShadowRepo(shadow.gitdir).readBlobHead(oid, 6)).toEqual({ size: 15, content: Buffer.from('packed') });
  });
});
