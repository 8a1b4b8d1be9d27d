// Reading Debian's archive indexes (main/gateway/packages/apt-index.ts): the Release fields the apt route
// trusts, the Packages stanzas, paths that could leave the archive, and an index too large to read.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AptIndexRefused, indexText, parsePackages, parseRelease, safePath } from '../../main/gateway/packages/apt-index';

const HASH = 'a'.repeat(64);

describe("Debian's indexes", () => {
  it('reads the suite, codename, by-hash and the SHA256 list of a Release, dropping paths that leave the archive', () => {
    const release = parseRelease(
      [
        'Origin: Debian',
        'Suite: stable',
        'Codename: bookworm',
        'Acquire-By-Hash: yes',
        'MD5Sum:',
        ` ${'b'.repeat(32)} 12 main/binary-amd64/Packages`,
        'SHA256:',
        ` ${HASH} 1234 main/binary-amd64/Packages.xz`,
        ` ${HASH} 99 ../../etc/passwd`,
        ` ${HASH} 99 /abs/path`,
        ` ${'c'.repeat(63)} 99 main/short-hash`,
        '',
      ].join('\n'),
    );
    expect(release).toMatchObject({ suite: 'stable', codename: 'bookworm', acquireByHash: true });
    expect([...release.files]).toEqual([['main/binary-amd64/Packages.xz', { sha256: HASH, size: 1234 }]]);
  });

  it('reads each package of a Packages index by its Filename, skipping stanzas without a SHA256 or with a bad path', () => {
    const files = parsePackages(
      [
        'Package: make',
        'Version: 4.3-4.1',
        'Filename: pool/main/m/make-dfsg/make_4.3-4.1_amd64.deb',
        'Size: 396768',
        `SHA256: ${HASH}`,
        'Description: utility',
        ' a continuation line',
        '',
        'Package: nohash',
        'Filename: pool/main/n/nohash.deb',
        'Size: 1',
        '',
        'Package: escape',
        'Filename: pool/../../x.deb',
        'Size: 1',
        `SHA256: ${HASH}`,
        '',
      ].join('\n'),
    );
    expect([...files]).toEqual([['pool/main/m/make-dfsg/make_4.3-4.1_amd64.deb', { name: 'make', version: '4.3-4.1', sha256: HASH, size: 396768 }]]);
  });

  it('keeps paths inside the archive', () => {
    expect(safePath('pool/main/m/make.deb')).toBe(true);
    for (const bad of ['../x', 'pool/../x', '/pool/x', 'pool//x', 'pool/./x', 'pool\\x', 'pool/\0x']) expect(safePath(bad), bad).toBe(false);
  });

  it('decompresses xz and gzip indexes, and refuses one that is corrupt or larger than its cap once decompressed', async () => {
    const { execFileSync } = await import('node:child_process');
    const text = 'Package: a\n\n'.repeat(1000);
    const xz = execFileSync('xz', ['-c'], { input: text });
    expect(await indexText('Packages.xz', Readable.from([xz]), 1024 * 1024)).toBe(text);
    const gz = execFileSync('gzip', ['-c'], { input: text });
    expect(await indexText('Packages.gz', Readable.from([gz]), 1024 * 1024)).toBe(text);
    await expect(indexText('Packages.xz', Readable.from([xz]), 1000)).rejects.toThrow(AptIndexRefused);
    await expect(indexText('Packages.xz', Readable.from([Buffer.from('not xz at all')]), 1024 * 1024)).rejects.toThrow(/could not be decompressed/);
    await expect(indexText('Packages', Readable.from([Buffer.from(text)]), 100)).rejects.toThrow(/over/);
  });
});
