// The split's rules one by one (effects/fs/attribution.ts), on real checkpoints of a real folder: which
// change is the action's, which is someone else's, which is both; and which claimed paths count at all.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attribute, claimsFor, type ClaimedPath } from '../../main/effects/fs/attribution';
import { CheckpointStore } from '../../main/effects/fs/checkpoint-store';
import { stampOf } from '../support/claims';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** Checkpoints a folder before and after `change`, and splits the difference by `claims(folder)`. */
async function split(setup: (ws: string) => void, change: (ws: string) => Map<string, ClaimedPath>, meanwhile: (ws: string) => void = () => undefined) {
  const ws = dirs.make('posthoc-rules-ws-');
  setup(ws);
  const store = await CheckpointStore.open(ws, dirs.make('posthoc-rules-cp-'), { racyWindowMs: 0 });
  const before = await store.snapshot('before', { budgetBytes: 1 << 30 });
  const claimed = change(ws);
  meanwhile(ws);
  const after = await store.snapshot('after', { budgetBytes: 1 << 30 });
  const result = attribute(ws, store.diff(before.tree, after.tree), claimed, (p) => store.lookup(before.tree, p));
  return { mine: result.mine.map((c) => c.path), theirs: result.theirs.map((c) => c.path), ambiguous: result.ambiguous };
}

const file = (ws: string, p: string): [string, ClaimedPath] => [p, { final: stampOf(ws, p), dir: false }];
const dir = (ws: string, p: string): [string, ClaimedPath] => [p, { final: stampOf(ws, p), dir: true }];
const write = (ws: string, p: string, text = `${p}\n`) => {
  mkdirSync(join(ws, p, '..'), { recursive: true });
  writeFileSync(join(ws, p), text);
};

describe('attribution rules', () => {
  it('takes a folder created above a claimed path for the action, but not what someone else put beside it', async () => {
    const r = await split(
      () => undefined,
      (ws) => {
        write(ws, 'a/b/c.txt');
        return new Map([file(ws, 'a/b/c.txt')]);
      },
      (ws) => write(ws, 'a/b/person.txt'),
    );
    expect(r).toEqual({ mine: ['a', 'a/b', 'a/b/c.txt'], theirs: ['a/b/person.txt'], ambiguous: [] });
  });

  it('takes what a renamed folder held, in its new place, for the action; a file added into it meanwhile is not', async () => {
    const r = await split(
      (ws) => {
        write(ws, 'src/a.py');
        write(ws, 'src/deep/b.py');
      },
      (ws) => {
        renameSync(join(ws, 'src'), join(ws, 'lib'));
        return new Map([['src', { final: 'absent', dir: true }], dir(ws, 'lib')]);
      },
      (ws) => write(ws, 'lib/person.py'),
    );
    expect(r.mine.sort()).toEqual(['lib', 'lib/a.py', 'lib/deep', 'lib/deep/b.py', 'src', 'src/a.py', 'src/deep', 'src/deep/b.py'].sort());
    expect(r.theirs).toEqual(['lib/person.py']);
    // A folder's mtime changes with its entries: the person's file inside does not make "lib" ambiguous.
    expect(r.ambiguous).toEqual([]);
  });

  it("marks a path the action removed and someone re-created as both, and keeps an unknown final state the action's", async () => {
    const r = await split(
      (ws) => {
        write(ws, 'gone.txt', 'old\n');
        write(ws, 'open.txt', 'old\n');
      },
      (ws) => {
        rmSync(join(ws, 'gone.txt'));
        write(ws, 'open.txt', 'the action, killed with it open\n');
        return new Map<string, ClaimedPath>([
          ['gone.txt', { final: 'absent', dir: false }],
          ['open.txt', { final: null, dir: false }],
        ]);
      },
      (ws) => write(ws, 'gone.txt', 'the person put it back, differently\n'),
    );
    expect(r).toEqual({ mine: ['gone.txt', 'open.txt'], theirs: ['gone.txt'], ambiguous: ['gone.txt'] });
  });

  it('counts only claims of this folder, by name or host path, and only paths plainly inside it', () => {
    const claim: ClaimedPath = { final: null, dir: false };
    const claims = {
      complete: true,
      folders: [
        { workspace: 'w0', paths: new Map([['./a.txt', claim], ['../escape', claim], ['/etc/passwd', claim], ['b/./c', claim], ['d/', claim]]) },
        { workspace: '/host/w1', paths: new Map([['x.txt', claim]]) },
      ],
    };
    expect([...claimsFor(claims, 'w0', '/host/w0').keys()]).toEqual(['a.txt', 'd']);
    expect([...claimsFor(claims, 'w1', '/host/w1').keys()]).toEqual(['x.txt']);
    expect([...claimsFor(claims, 'w2', '/host/w2').keys()]).toEqual([]);
  });
});
