// Commits and refs written by ShadowRepo itself (isomorphic-git is no longer loaded for them): the same
// bytes isomorphic-git writes for the same input, readable by git, and read back after `git gc` packed them.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_TREE, ShadowRepo } from '../../main/effects/fs/git-objects';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
async function repo(): Promise<ShadowRepo> {
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-git-objects-'));
  made.push(dir);
  return ShadowRepo.open(join(dir, 'shadow.git'), 'test');
}
const cli = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', stdio: 'pipe' });

describe('commits and refs of a shadow repository', () => {
  it('writes the commit isomorphic-git writes for the same input, and reads it back', async () => {
    const ours = await repo();
    const theirs = await repo();
    const blob = ours.writeBlob(Buffer.from('x\n'));
    const tree = ours.writeTree([{ name: 'f.txt', mode: '100644', oid: blob }]);
    const at = new Date('2026-11-28T12:34:56.789Z');
    const cases: Array<{ message: string; parents: string[] }> = [
      { message: 'before action 1', parents: [] },
      { message: 'after\n\nNot-Covered: {"path":"été/日本.bin","reason":"budget","size":9}\n', parents: [EMPTY_TREE] },
      { message: '\n\nwindows\r\nlines\r\n\n\n', parents: [EMPTY_TREE, tree] },
    ];
    for (const { message, parents } of cases) {
      const oid = await ours.writeCommit({ tree, parents, message, at });
      const author = { name: 'Posthoc', email: 'checkpoints@posthoc.invalid', timezoneOffset: 0, timestamp: Math.floor(at.getTime() / 1000) };
      const expected = await git.writeCommit({
        fs,
        gitdir: theirs.gitdir,
        commit: { message: message.endsWith('\n') ? message : `${message}\n`, tree, parent: parents, author, committer: author },
      });
      expect(oid).toBe(expected);
      const read = await ours.readCommit(oid);
      const { commit } = await git.readCommit({ fs, gitdir: theirs.gitdir, oid });
      expect(read).toEqual({ tree: commit.tree, parents: commit.parent, message: commit.message });
      expect(cli(ours.gitdir, 'cat-file', '-t', oid).trim()).toBe('commit');
    }
  });

  it('writes refs git reads, and still finds refs and commits after git gc packed them', async () => {
    const shadow = await repo();
    const tree = shadow.writeTree([{ name: 'a', mode: '100644', oid: shadow.writeBlob(Buffer.from('a')) }]);
    const first = await shadow.writeCommit({ tree, parents: [], message: 'first', at: new Date() });
    const second = await shadow.writeCommit({ tree, parents: [first], message: 'second', at: new Date() });
    await shadow.setRef('head', first);
    await shadow.setRef('head', second); // replaced
    await shadow.setRef('action/a1', first);
    expect(cli(shadow.gitdir, 'rev-parse', 'refs/posthoc/head').trim()).toBe(second);
    expect(await shadow.getRef('head')).toBe(second);
    expect(await shadow.getRef('missing')).toBeNull();
    expect((await shadow.listRefs()).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'action/a1', oid: first },
      { name: 'head', oid: second },
    ]);
    expect(fs.readdirSync(shadow.gitdir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    cli(shadow.gitdir, 'fsck', '--strict', '--no-dangling');
    cli(shadow.gitdir, 'gc', '-q', '--prune=now');
    const packed = new ShadowRepo(shadow.gitdir);
    expect(fs.existsSync(join(shadow.gitdir, 'refs', 'posthoc', 'head'))).toBe(false);
    expect(await packed.getRef('head')).toBe(second);
    expect(await packed.readCommit(second)).toEqual({ tree, parents: [first], message: 'second\n' });
    await packed.deleteRef('head');
    expect(await packed.getRef('head')).toBeNull();
  });
});
