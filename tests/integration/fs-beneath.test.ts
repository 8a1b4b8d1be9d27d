// The host never follows a path the sandbox could have swapped. The beneath addon refuses links and "..";
// a restore whose folder becomes a link half-way writes nothing outside the folder; a checkpoint taken
// while a folder is swapped for a link never stores what the link points to; and names like
// ".posthoc-restore-*" are files like any other. Each case runs with a root-owned folder and with the
// folder owned by uid 1000 (when the tests run as root).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { beneathAddon, GrantedFolder } from '../../main/effects/fs/beneath';
import { CheckpointStore } from '../../main/effects/fs/checkpoint-store';
import { nativeLister } from '../../main/effects/fs/native-lister';
import { removeRestoreTemps } from '../../main/effects/fs/restore';
import { KIND_LINK } from '../../main/effects/fs/stat-lister';
import type { FsEffect } from '../../shared/domain';
import { tempDirs } from '../support/temp-dir';
import { startUndoHarness, type UndoHarness } from '../support/undo-harness';

const dirs = tempDirs();
const open: UndoHarness[] = [];
afterEach(async () => {
  for (const h of open.splice(0).reverse()) await h.close();
  dirs.cleanup();
});

const asRoot = process.getuid?.() === 0;
const OWNERS = [
  { label: 'a root-owned folder', uid: asRoot ? 0 : (process.getuid?.() ?? 0) },
  { label: 'a folder owned by uid 1000', uid: asRoot ? 1000 : (process.getuid?.() ?? 0) },
];

/** Gives a folder and everything in it to `uid` (a no-op unless the tests run as root). */
function own(path: string, uid: number): void {
  if (!asRoot) return;
  lchownSync(path, uid, uid);
  if (lstatSync(path).isDirectory()) for (const name of readdirSync(path)) own(join(path, name), uid);
}

/** Every path under a folder with its kind and bytes: equal snapshots mean nothing was written there. */
function contents(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(root, p));
      if (st.isDirectory()) {
        out[p] = `dir ${st.uid}`;
        walk(p);
      } else {
        out[p] = `${st.isSymbolicLink() ? 'link' : 'file'} ${st.uid} ${st.mode.toString(8)} ${readFileSync(join(root, p)).toString('hex')}`;
      }
    }
  };
  walk('');
  return out;
}

/** A folder outside every grant, holding what an attacker would want to overwrite or read. */
function outsideFolder(uid: number): string {
  const outside = dirs.make('posthoc-outside-');
  writeFileSync(join(outside, 'a.txt'), 'outside a\n');
  writeFileSync(join(outside, 'x.txt'), 'SECRET-7f3a9c host only\n');
  mkdirSync(join(outside, 'sub'));
  writeFileSync(join(outside, 'sub', 'x.txt'), 'SECRET-7f3a9c nested\n');
  own(outside, uid);
  return outside;
}

const errorCode = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
  return undefined;
};

describe.each(OWNERS)('with $label', ({ uid }) => {
  describe('the beneath addon', () => {
    const addon = beneathAddon()!;
    const { O_RDONLY, O_DIRECTORY, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;

    function folder() {
      const root = dirs.make('posthoc-beneath-');
      const outside = outsideFolder(uid);
      mkdirSync(join(root, 'd'));
      writeFileSync(join(root, 'd', 'f.txt'), 'inside\n');
      symlinkSync(outside, join(root, 'link'));
      symlinkSync(join(outside, 'x.txt'), join(root, 'd', 'file-link'));
      own(root, uid);
      return { root, outside, rootFd: fs.openSync(root, O_RDONLY | O_DIRECTORY) };
    }

    it('is built, and opens beneath a folder by openat2 and by the O_NOFOLLOW walk alike, refusing links and ".."', () => {
      expect(addon).not.toBeNull();
      const { rootFd } = folder();
      try {
        for (const open of [addon.openBeneath, addon.walkBeneath]) {
          const fd = open(rootFd, 'd/f.txt', O_RDONLY, 0);
          expect(readFileSync(fd, 'utf8')).toBe('inside\n');
          fs.closeSync(fd);
          expect(errorCode(() => open(rootFd, 'link', O_RDONLY | O_DIRECTORY, 0))).toBe('ELOOP');
          expect(errorCode(() => open(rootFd, 'link/x.txt', O_RDONLY, 0))).toBe('ELOOP');
          expect(errorCode(() => open(rootFd, 'link/sub/x.txt', O_RDONLY, 0))).toBe('ELOOP');
          expect(errorCode(() => open(rootFd, 'd/file-link', O_RDONLY, 0))).toBe('ELOOP');
          for (const rel of ['..', '../x.txt', 'd/../d/f.txt', './d/f.txt', 'd//f.txt', '/etc/passwd']) {
            expect(errorCode(() => open(rootFd, rel, O_RDONLY, 0)), rel).toBe('EXDEV');
          }
          expect(errorCode(() => open(rootFd, 'd/missing', O_RDONLY, 0))).toBe('ENOENT');
        }
      } finally {
        fs.closeSync(rootFd);
      }
    });

    it('creates, renames, links, owns and removes relative to a folder handle, never following the name', () => {
      const { root, outside, rootFd } = folder();
      const before = contents(outside);
      const d = addon.openBeneath(rootFd, 'd', O_RDONLY | O_DIRECTORY, 0);
      try {
        // A new file never goes through a link that already has the name.
        expect(errorCode(() => addon.openAt(d, 'file-link', O_WRONLY | O_CREAT | O_EXCL, 0o644))).toBe('EEXIST');
        expect(errorCode(() => addon.openAt(d, 'file-link', O_RDONLY, 0))).toBe('ELOOP');
        const fd = addon.openAt(d, 'new.tmp', O_WRONLY | O_CREAT | O_EXCL, 0o644);
        fs.writeSync(fd, 'written\n');
        fs.closeSync(fd);
        addon.renameAt(d, 'new.tmp', 'f.txt');
        expect(readFileSync(join(root, 'd', 'f.txt'), 'utf8')).toBe('written\n');
        addon.mkdirAt(d, 'sub', 0o755);
        addon.symlinkAt(Buffer.from('../elsewhere'), d, 'made-link');
        expect(addon.readlinkAt(d, 'made-link').toString()).toBe('../elsewhere');
        expect(addon.statAt(d, 'file-link')!.mode & fs.constants.S_IFMT).toBe(fs.constants.S_IFLNK);
        expect(addon.statAt(d, 'missing')).toBeNull();
        addon.chownAt(d, 'file-link', uid, uid); // the link itself, not its target
        expect(lstatSync(join(root, 'd', 'file-link')).uid).toBe(uid);
        expect(addon.readNames(d).sort()).toEqual(['f.txt', 'file-link', 'made-link', 'sub']);
        addon.unlinkAt(d, 'file-link', false);
        addon.unlinkAt(d, 'sub', true);
        for (const name of ['../x', 'a/b', '.', '..', '']) {
          expect(errorCode(() => addon.mkdirAt(d, name, 0o755)), name).toBe('EXDEV');
          expect(errorCode(() => addon.renameAt(d, 'f.txt', name)), name).toBe('EXDEV');
        }
      } finally {
        fs.closeSync(d);
        fs.closeSync(rootFd);
      }
      expect(contents(outside)).toEqual(before);
      expect(readdirSync(join(root, 'd')).sort()).toEqual(['f.txt', 'made-link']);
    });

    it('the native lister never lists through a folder that is a link', async () => {
      const { root, rootFd } = folder();
      fs.closeSync(rootFd);
      const lister = nativeLister()!;
      const all = await lister.list(root, [{ rel: '', recursive: true }]);
      expect(all.map((l) => l.rel).sort()).toEqual(['', 'd']);
      const top = all.find((l) => l.rel === '')!;
      expect(top.kinds[top.names.split('\0').indexOf('link')]).toBe(KIND_LINK);
      // A job starting inside the link (a plan made before the swap) lists nothing of what it points to.
      const [through] = await lister.list(root, [{ rel: 'link/sub', recursive: true }]);
      expect(through).toMatchObject({ rel: 'link/sub', names: '', error: expect.stringMatching(/symbolic links|Not a directory/) });
    });

    it('without the addon, the path-based fallback still refuses a link on the way', async () => {
      const { root, rootFd } = folder();
      fs.closeSync(rootFd);
      vi.resetModules();
      vi.stubEnv('POSTHOC_NATIVE_BENEATH', '0');
      try {
        const fallback = await import('../../main/effects/fs/beneath');
        const f = fallback.GrantedFolder.open(root);
        expect(f.beneath).toBe(false);
        expect(() => f.openDir('link')).toThrow(/symbolic link/);
        expect(f.openFile('link/x.txt')).toBe('link');
        expect(f.openDir('d')!.names().sort()).toEqual(['f.txt', 'file-link']);
        f.close();
      } finally {
        vi.unstubAllEnvs();
        vi.resetModules();
      }
      expect(GrantedFolder.open(root).beneath).toBe(true);
    });
  });

  describe('a restore', () => {
    async function harness(afterStep: (n: number) => void) {
      const h = await startUndoHarness({ checkpoints: { restoreHooks: { afterStep } } });
      open.push(h);
      own(h.workspace, uid);
      return h;
    }

    it('whose folder is swapped for a link to an outside folder half-way writes nothing outside and fails, saying why', async () => {
      let swap: (() => void) | null = null;
      const h = await harness((n) => {
        if (n === 1 && swap) {
          swap();
          swap = null;
        }
      });
      const ws = h.workspace;
      const outside = outsideFolder(uid);
      mkdirSync(join(ws, 'd'));
      writeFileSync(join(ws, 'd', 'a.txt'), 'a0\n');
      writeFileSync(join(ws, 'd', 'x.txt'), 'x0\n');
      own(ws, uid);
      const action = await h.act(() => {
        writeFileSync(join(ws, 'd', 'a.txt'), 'a1 chosen by the agent\n');
        writeFileSync(join(ws, 'd', 'x.txt'), 'x1 chosen by the agent\n');
        writeFileSync(join(ws, 'd', 'c.txt'), 'c1\n');
      });
      const before = contents(outside);
      // As an injected thread would: between two steps of the undo, d becomes a link to a host folder.
      swap = () => {
        renameSync(join(ws, 'd'), join(ws, 'd-moved'));
        symlinkSync(outside, join(ws, 'd'));
      };
      await expect(h.undo.undo(action.id)).rejects.toThrow(/d\/(a|x)\.txt.*symbolic link/);
      expect(swap).toBeNull();
      expect(contents(outside)).toEqual(before);
      // The real folder, wherever it went, holds no temporary file either.
      expect(readdirSync(join(ws, 'd-moved')).filter((n) => n.startsWith('.posthoc-restore-'))).toEqual([]);
    });

    it('whose folder is swapped within a step, after it was checked and before it is written, writes nothing outside', async () => {
      let armed = false;
      const h = await harness((n) => {
        if (n === 1) armed = true;
      });
      const ws = h.workspace;
      const outside = outsideFolder(uid);
      mkdirSync(join(ws, 'd'));
      writeFileSync(join(ws, 'd', 'a.txt'), 'a0\n');
      own(ws, uid);
      const action = await h.act(() => {
        writeFileSync(join(ws, 'd', 'a.txt'), 'a1 chosen by the agent\n');
        writeFileSync(join(ws, 'd', 'c.txt'), 'c1\n');
      });
      const store = await h.fs.storeFor(ws);
      const readBlob = store.repo.readBlob.bind(store.repo);
      // The content to write is read while the step runs: that is when the swap lands.
      store.repo.readBlob = async (oid) => {
        const content = await readBlob(oid);
        if (armed) {
          armed = false;
          renameSync(join(ws, 'd'), join(ws, 'd-moved'));
          symlinkSync(outside, join(ws, 'd'));
        }
        return content;
      };
      const before = contents(outside);
      await expect(h.undo.undo(action.id)).rejects.toThrow(/d\/a\.txt.*symbolic link/);
      expect(existsSync(join(ws, 'd-moved'))).toBe(true);
      expect(contents(outside)).toEqual(before);
    });

    it('re-creates a removed folder owned like the folder it is in', async () => {
      const h = await harness(() => undefined);
      const ws = h.workspace;
      mkdirSync(join(ws, 'sub', 'deeper'), { recursive: true });
      writeFileSync(join(ws, 'sub', 'deeper', 'f.txt'), 'f\n');
      own(ws, uid);
      const action = await h.act(() => rmSync(join(ws, 'sub'), { recursive: true }));
      expect(await h.undo.undo(action.id)).toMatchObject({ outcome: 'undone' });
      expect(readFileSync(join(ws, 'sub', 'deeper', 'f.txt'), 'utf8')).toBe('f\n');
      for (const p of ['sub', 'sub/deeper', 'sub/deeper/f.txt']) expect([p, lstatSync(join(ws, p)).uid]).toEqual([p, uid]);
    });
  });

  describe('a checkpoint', () => {
    for (const javascriptLister of [false, true]) {
      it(`taken while a folder is swapped for a link never stores what it points to (${javascriptLister ? 'JavaScript' : 'native'} lister)`, async () => {
        const ws = dirs.make('posthoc-ws-');
        const data = dirs.make('posthoc-data-');
        const outside = outsideFolder(uid);
        writeFileSync(join(ws, 'a.txt'), 'walk-1st\n'); // small: stored by writeBlob, where the swap happens
        writeFileSync(join(ws, 'big.txt'), 'a large file, read through its handle\n');
        mkdirSync(join(ws, 'd', 'sub'), { recursive: true });
        writeFileSync(join(ws, 'd', 'x.txt'), 'mine\n');
        writeFileSync(join(ws, 'd', 'sub', 'x.txt'), 'mine too\n');
        writeFileSync(join(ws, 'e.txt'), 'swapped for a link to a host file\n');
        own(ws, uid);
        const store = await CheckpointStore.open(ws, join(data, 'checkpoints'), { javascriptLister, largeFileBytes: 12 });
        // The listing is made; as the first file is stored, d becomes a link to a host folder and e.txt a
        // link to a host file (the listing still says folder and file).
        const writeBlob = store.repo.writeBlob.bind(store.repo);
        let swapped = false;
        store.repo.writeBlob = (content) => {
          if (!swapped) {
            swapped = true;
            renameSync(join(ws, 'd'), join(ws, 'd-moved'));
            symlinkSync(outside, join(ws, 'd'));
            rmSync(join(ws, 'e.txt'));
            symlinkSync(join(outside, 'x.txt'), join(ws, 'e.txt'));
          }
          return writeBlob(content);
        };
        const cp = await store.snapshot('during the swap', { budgetBytes: 1024 * 1024 });
        expect(swapped).toBe(true);
        const objects = execFileSync('git', ['--git-dir', store.gitdir, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 64 << 20 });
        expect(objects.includes('SECRET-7f3a9c')).toBe(false);
        expect(objects.includes('walk-1st')).toBe(true);
        expect(readFileSync(join(ws, 'big.txt')).equals(Buffer.from(execFileSync('git', ['--git-dir', store.gitdir, 'cat-file', 'blob', store.lookup(cp.tree, 'big.txt')!.oid])))).toBe(true);
        // What the path holds now is recorded honestly: e.txt as the link it became, d's files as unreadable.
        expect(store.lookup(cp.tree, 'e.txt')?.kind).toBe('link');
        expect(cp.notCovered.map((n) => `${n.path} ${n.reason}`)).toEqual(expect.arrayContaining(['d/x.txt unreadable']));
        // And the next checkpoint sees d as the link it is, never its target's files.
        const next = await store.snapshot('after', { budgetBytes: 1024 * 1024 });
        expect(store.lookup(next.tree, 'd')?.kind).toBe('link');
        expect(execFileSync('git', ['--git-dir', store.gitdir, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 64 << 20 }).includes('SECRET-7f3a9c')).toBe(false);
      });
    }
  });

  describe('a checkpoint reading a file replaced since the listing', () => {
    it('stores the file the path holds now, read through its handle, and reads it again next time', async () => {
      const ws = dirs.make('posthoc-ws-');
      const data = dirs.make('posthoc-data-');
      writeFileSync(join(ws, 'a.txt'), 'first\n');
      writeFileSync(join(ws, 'b.txt'), 'listed\n');
      own(ws, uid);
      const store = await CheckpointStore.open(ws, join(data, 'checkpoints'), { racyWindowMs: 0 });
      const writeBlob = store.repo.writeBlob.bind(store.repo);
      let swapped = false;
      store.repo.writeBlob = (content) => {
        if (!swapped) {
          swapped = true; // another inode at b.txt: the handle is not the file the listing saw
          writeFileSync(join(ws, 'b.new'), 'replaced after the listing\n');
          renameSync(join(ws, 'b.new'), join(ws, 'b.txt'));
        }
        return writeBlob(content);
      };
      const cp = await store.snapshot('during', { budgetBytes: 1024 * 1024 });
      const blob = (tree: string) => execFileSync('git', ['--git-dir', store.gitdir, 'cat-file', 'blob', store.lookup(tree, 'b.txt')!.oid], { encoding: 'utf8' });
      expect(blob(cp.tree)).toBe('replaced after the listing\n');
      expect(cp.notCovered).toEqual([]);
      const again = await store.snapshot('again', { budgetBytes: 1024 * 1024 });
      expect(again.hashed).toBe(1); // b.txt, never vouched for by the listing's fields
      expect(blob(again.tree)).toBe('replaced after the listing\n');
    });
  });

  describe('crash recovery', () => {
    it("removes only the crashed restore's temporaries: its exact tag, not there before, never through a link", () => {
      const ws = dirs.make('posthoc-ws-');
      const outside = outsideFolder(uid);
      mkdirSync(join(ws, 'd'));
      for (const name of ['.posthoc-restore-7-aaaa', '.posthoc-restore-7-bbbb', '.posthoc-restore-70-cccc', '.posthoc-restore-8-dddd', 'keep.txt']) {
        writeFileSync(join(ws, 'd', name), name);
      }
      writeFileSync(join(outside, '.posthoc-restore-7-eeee'), 'outside');
      symlinkSync(outside, join(ws, 'link'));
      own(ws, uid);
      const before = contents(outside);
      removeRestoreTemps(ws, ['d/keep.txt', 'link/x.txt'], '7', (p) => p === 'd/.posthoc-restore-7-aaaa');
      expect(readdirSync(join(ws, 'd')).sort()).toEqual(['.posthoc-restore-7-aaaa', '.posthoc-restore-70-cccc', '.posthoc-restore-8-dddd', 'keep.txt']);
      expect(contents(outside)).toEqual(before);
    });
  });

  describe('a file named like a restore temporary', () => {
    it('written by an action shows on its effect, and undo removes it', async () => {
      const h = await startUndoHarness();
      open.push(h);
      const ws = h.workspace;
      mkdirSync(join(ws, 'd'));
      own(ws, uid);
      const action = await h.act(() => {
        writeFileSync(join(ws, '.posthoc-restore-x'), 'hidden from the card?\n');
        writeFileSync(join(ws, 'd', '.posthoc-restore-1-abcdef'), 'hidden too?\n');
      });
      const effect = action.effects.find((e): e is FsEffect => e.channel === 'fs')!;
      expect(effect.added.sort()).toEqual(['.posthoc-restore-x', 'd/.posthoc-restore-1-abcdef']);
      expect(await h.undo.undo(action.id)).toMatchObject({ outcome: 'undone' });
      expect(existsSync(join(ws, '.posthoc-restore-x'))).toBe(false);
      expect(readdirSync(join(ws, 'd'))).toEqual([]);
    });
  });
});
