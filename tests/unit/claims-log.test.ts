// The claim log parser: the last record per path wins, paths map to the right granted folder, escapes
// decode, and anything it cannot read is left out rather than guessed.
import { describe, expect, it } from 'vitest';
import { parseClaimsLog } from '../../main/sandbox/claims-log';

const mounts = [
  { mountPath: '/workspace/docs', workspace: 'w-docs' },
  { mountPath: '/workspace/docs/inner', workspace: 'w-inner' },
  { mountPath: '/workspace/code/', workspace: 'w-code' },
];

function line(op: string, path: string, ino = 7, size = 3, mtime = '1700000000123456789', dir = 0): string {
  return `${op}\t${ino}\t${size}\t${mtime}\t${dir}\t${path}\n`;
}

function parse(text: string, truncated = false) {
  return parseClaimsLog(Buffer.from(text, 'utf8'), mounts, truncated);
}

function claimsOf(text: string, workspace: string) {
  const folder = parse(text).folders.find((f) => f.workspace === workspace);
  return Object.fromEntries(folder?.paths ?? []);
}

describe('parseClaimsLog', () => {
  it('keeps the last record of each path', () => {
    const log =
      line('W', '/workspace/docs/a.txt', 7, 0) +
      line('C', '/workspace/docs/a.txt', 7, 12, '1700000000000000001') +
      line('W', '/workspace/docs/b.txt') +
      line('C', '/workspace/docs/c.txt', 9, 4) +
      line('G', '/workspace/docs/c.txt', 0, 0, '0') +
      line('G', '/workspace/docs/d.txt', 0, 0, '0') +
      line('N', '/workspace/docs/d.txt', 11, 5, '1700000000000000002') +
      line('N', '/workspace/docs/sub', 12, 4096, '1700000000000000003', 1);
    expect(claimsOf(log, 'w-docs')).toEqual({
      'a.txt': { final: { ino: 7, size: 12, mtimeNs: '1700000000000000001' }, dir: false },
      'b.txt': { final: null, dir: false },
      'c.txt': { final: 'absent', dir: false },
      'd.txt': { final: { ino: 11, size: 5, mtimeNs: '1700000000000000002' }, dir: false },
      sub: { final: { ino: 12, size: 4096, mtimeNs: '1700000000000000003' }, dir: true },
    });
  });

  it('a write after a close makes the final state unknown again', () => {
    const log = line('C', '/workspace/docs/a.txt') + line('W', '/workspace/docs/a.txt');
    expect(claimsOf(log, 'w-docs')['a.txt']).toEqual({ final: null, dir: false });
  });

  it('maps each path to the folder with the longest matching mount path', () => {
    const log =
      line('C', '/workspace/docs/inner/x.txt') +
      line('C', '/workspace/docs/innerness.txt') +
      line('C', '/workspace/code/src/main.c');
    const result = parse(log);
    expect(result.folders.map((f) => [f.workspace, [...f.paths.keys()]])).toEqual([
      ['w-docs', ['innerness.txt']],
      ['w-inner', ['x.txt']],
      ['w-code', ['src/main.c']],
    ]);
  });

  it('drops paths outside every folder and the folder roots themselves', () => {
    const log =
      line('C', '/tmp/scratch.txt') +
      line('C', '/workspace/docsy/a.txt') +
      line('N', '/workspace/docs', 1, 4096, '1', 1) +
      line('N', '/workspace/docs/inner', 1, 4096, '1', 1) +
      line('C', '/workspace/code') +
      line('C', '/workspace');
    expect(parse(log).folders.every((f) => f.paths.size === 0)).toBe(true);
  });

  it('decodes percent escapes and UTF-8 names', () => {
    const log =
      line('C', '/workspace/docs/100%25 tab%09nl%0Acr%0D.txt') + line('C', '/workspace/docs/caf\u00e9 \u65e5\u672c.md');
    expect(Object.keys(claimsOf(log, 'w-docs'))).toEqual(['100% tab\tnl\ncr\r.txt', 'caf\u00e9 \u65e5\u672c.md']);
  });

  it('ignores malformed lines and the unfinished last line', () => {
    const good = line('C', '/workspace/docs/good.txt');
    const log =
      'garbage\n' +
      'X\t1\t1\t1\t0\t/workspace/docs/op.txt\n' +
      'C\t-1\t1\t1\t0\t/workspace/docs/ino.txt\n' +
      'C\t1\tbig\t1\t0\t/workspace/docs/size.txt\n' +
      'C\t1\t1\t1.5\t0\t/workspace/docs/mtime.txt\n' +
      'C\t1\t1\t1\t2\t/workspace/docs/dir.txt\n' +
      'C\t1\t1\t1\t0\tworkspace/docs/relative.txt\n' +
      'C\t1\t1\t1\t0\t/workspace/docs/extra.txt\tmore\n' +
      'C\t1\t1\t1\t0\t/workspace/docs/bad%2escape%zz.txt\n' +
      'C\t1\t1\t1\t0\t/workspace/docs/nul%00.txt\n' +
      'C\t1\t1\t1\t0\t/workspace/docs/a/../b.txt\n' +
      good +
      'C\t1\t1\t1\t0\t/workspace/docs/unfinished.txt';
    expect(Object.keys(claimsOf(log, 'w-docs'))).toEqual(['good.txt']);
  });

  it('drops a path the library had to cut', () => {
    const log = line('C', `/workspace/docs/${'d/'.repeat(10)}long%!`) + line('G', '/workspace/docs/kept.txt', 0, 0, '0');
    expect(claimsOf(log, 'w-docs')).toEqual({ 'kept.txt': { final: 'absent', dir: false } });
  });

  it('keeps negative modification times (files dated before 1970)', () => {
    const log = line('C', '/workspace/code/old.txt', 5, 1, '-1000000001');
    expect(claimsOf(log, 'w-code')['old.txt']).toEqual({ final: { ino: 5, size: 1, mtimeNs: '-1000000001' }, dir: false });
  });

  it('is complete unless the log was cut, and gives every folder an entry', () => {
    expect(parse('').complete).toBe(true);
    expect(parse('', true).complete).toBe(false);
    expect(parse('').folders.map((f) => f.workspace)).toEqual(['w-docs', 'w-inner', 'w-code']);
    expect(parseClaimsLog(Buffer.alloc(0), [], false)).toEqual({ complete: true, folders: [] });
  });

  it('reads raw non-ASCII bytes as UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('N\t3\t0\t5\t0\t/workspace/docs/'), Buffer.from('\u00fcber', 'utf8'), Buffer.from('\n')]);
    const folder = parseClaimsLog(bytes, mounts, false).folders[0]!;
    expect([...folder.paths.keys()]).toEqual(['\u00fcber']);
  });
});
