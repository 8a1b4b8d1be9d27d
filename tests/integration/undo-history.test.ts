// Outside edits, keep and garbage collection, the person's own .git, storage budgets, and what the
// timeline and the diff view are told — through the real undo engine on real folders.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rewindSeqsOf, type TimelineEntry } from '../../shared/domain/undo';
import { startUndoHarness, type UndoHarness } from '../support/undo-harness';
import { describeReversePlan } from '../../shared/undo/reverse-plan';

let h: UndoHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const read = (ws: string, p: string) => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : null);
const gitIn = (ws: string, ...args: string[]) =>
  execFileSync('git', ['-C', ws, '-c', 'user.name=Agent', '-c', 'user.email=agent@example.invalid', ...args], { encoding: 'utf8', stdio: 'pipe' });

describe('edits made outside Posthoc', () => {
  it('are recorded as an external change before the next action, and no undo reverts them', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    writeFileSync(join(ws, 'notes.txt'), 'v1\n');
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'agent\n'));
    writeFileSync(join(ws, 'notes.txt'), 'v2, written by the person\n');
    const a2 = await h.act(() => writeFileSync(join(ws, 'b.txt'), 'agent\n'));

    const kinds = h.views.timeline(h.task.id).entries.map((e) => e.kind);
    expect(kinds).toEqual(['action', 'external', 'action']);
    const external = h.views.timeline(h.task.id).entries[1] as Extract<TimelineEntry, { kind: 'external' }>;
    expect(external.changes.modified).toEqual(['notes.txt']);

    expect(await h.undo.undo(a1.id)).toMatchObject({ outcome: 'undone' });
    expect(await h.undo.undo(a2.id)).toMatchObject({ outcome: 'undone' });
    expect(read(ws, 'notes.txt')).toBe('v2, written by the person\n');
  });

  it('block an undo that would overwrite them, naming the path, and it writes nothing', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const a1 = await h.act(() => {
      writeFileSync(join(ws, 'a.txt'), 'agent\n');
      writeFileSync(join(ws, 'b.txt'), 'agent\n');
    });
    writeFileSync(join(ws, 'a.txt'), 'the person edited this\n');
    const refused = await h.undo.undo(a1.id);
    expect(refused).toMatchObject({ outcome: 'conflict', paths: ['a.txt'], canRewind: false, blockers: [{ by: 'external' }] });
    expect(refused.outcome === 'conflict' && refused.message).toMatch(/a\.txt \(edited outside Posthoc/);
    expect([read(ws, 'a.txt'), read(ws, 'b.txt')]).toEqual(['the person edited this\n', 'agent\n']);
    const entry = h.views.timeline(h.task.id).entries.find((e) => e.kind === 'action') as Extract<TimelineEntry, { kind: 'action' }>;
    expect(entry.undo).toMatchObject({ possible: false, blockers: [{ path: 'a.txt', by: 'external' }] });
  });
});

describe('keep', () => {
  it('marks the action final, releases the checkpoints only it needed, and the rest stay undoable', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const big = 'x'.repeat(50_000);
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), `${big}1`));
    const a2 = await h.act(() => writeFileSync(join(ws, 'a.txt'), `${big}2`));
    const a3 = await h.act(() => writeFileSync(join(ws, 'c.txt'), 'c\n'));
    const store = await h.fs.storeFor(ws);
    const refsBefore = (await store.pinned()).map((r) => r.name);
    expect(refsBefore).toContain(`actions/${a1.id}/after`);

    expect(await h.undo.keep(a1.id)).toMatchObject({ status: 'kept' });
    await h.undo.settle();
    const refsAfter = (await store.pinned()).map((r) => r.name);
    expect(refsAfter.some((r) => r.startsWith(`actions/${a1.id}/`))).toBe(false);
    await expect(h.views.diff({ actionId: a1.id, path: 'a.txt' })).rejects.toThrow(/kept, so its checkpoints were released/);
    expect((await h.views.diff({ actionId: a2.id, path: 'a.txt' })).status).toBe('modified');
    expect(await h.undo.undo(a3.id)).toMatchObject({ outcome: 'undone' });
    expect(await h.undo.undo(a2.id)).toMatchObject({ outcome: 'undone' });
    expect(read(ws, 'a.txt')).toBe(`${big}1`);
    execFileSync('git', ['--git-dir', store.gitdir, 'fsck', '--connectivity-only', '--no-dangling'], { stdio: 'pipe' });
  });
});

describe("the person's own .git", () => {
  it("makes an agent's git init, commit and checkout undoable, out of order where allowed, without corrupting the repository", async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    writeFileSync(join(ws, 'README.md'), '# project\n');
    const init = await h.act(() => {
      gitIn(ws, 'init', '-q', '-b', 'main');
      gitIn(ws, 'add', '-A');
      gitIn(ws, 'commit', '-qm', 'first');
    });
    const branch = await h.act(() => {
      gitIn(ws, 'checkout', '-qb', 'feature');
      writeFileSync(join(ws, 'feature.txt'), 'f\n');
      gitIn(ws, 'add', '-A');
      gitIn(ws, 'commit', '-qm', 'feature');
    });
    const other = await h.act(() => writeFileSync(join(ws, 'unrelated.txt'), 'u\n'));
    expect(gitIn(ws, 'log', '--format=%s').trim().split('\n')).toEqual(['feature', 'first']);

    // The init is refused while the branch commit (which changed .git) stands; the unrelated file is not.
    const refused = await h.undo.undo(init.id);
    expect(refused.outcome).toBe('conflict');
    expect(refused.outcome === 'conflict' && refused.paths.every((p) => p.startsWith('.git'))).toBe(true);
    expect(await h.undo.undo(branch.id)).toMatchObject({ outcome: 'undone' });
    expect(gitIn(ws, 'log', '--format=%s').trim()).toBe('first');
    expect(gitIn(ws, 'branch', '--show-current').trim()).toBe('main');
    expect(existsSync(join(ws, 'feature.txt'))).toBe(false);
    gitIn(ws, 'fsck', '--strict');

    expect(await h.undo.undo(init.id)).toMatchObject({ outcome: 'undone' });
    expect(existsSync(join(ws, '.git'))).toBe(false);
    expect(read(ws, 'unrelated.txt')).toBe('u\n');
    expect(h.store.getAction(other.id)!.status).toBe('done');

    expect(await h.undo.redo(init.id)).toMatchObject({ outcome: 'redone' });
    expect(await h.undo.redo(branch.id)).toMatchObject({ outcome: 'redone' });
    expect(gitIn(ws, 'log', '--format=%s').trim().split('\n')).toEqual(['feature', 'first']);
    gitIn(ws, 'fsck', '--strict');
  });
});

describe('storage budget', () => {
  it('names large files over the budget as not covered, before and after, and lowers the level when the action changed one', async () => {
    h = await startUndoHarness({ checkpoints: { largeFileBytes: 10_000 }, budgetBytes: 25_000 });
    const ws = h.workspace;
    writeFileSync(join(ws, 'small.bin'), Buffer.alloc(20_000, 1)); // fits the budget
    writeFileSync(join(ws, 'huge.bin'), Buffer.alloc(30_000, 2)); // does not
    const touchOther = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'a\n'));
    const effect = touchOther.effects[0]!;
    expect(effect.channel === 'fs' && effect.notCovered).toEqual([{ path: 'huge.bin', reason: 'budget', size: 30_000, when: 'both', changed: false }]);
    expect(touchOther.confinement.level).toBe('reversible');

    const changeHuge = await h.act(() => writeFileSync(join(ws, 'huge.bin'), Buffer.alloc(30_000, 3)));
    expect(changeHuge.confinement.level).toBe('confined');
    expect(changeHuge.confinement.reason).toMatch(/huge\.bin.*not covered by undo/);
    expect(describeReversePlan(changeHuge.reverse, changeHuge.kind)).toMatch(/leave huge\.bin as it is \(not covered by undo\)/i);
    const undone = await h.undo.undo(changeHuge.id);
    expect(undone).toMatchObject({ outcome: 'undone', notRestored: ['huge.bin'] });
    expect(readFileSync(join(ws, 'huge.bin'))[0]).toBe(3);

    const storage = await h.views.storage();
    expect(storage.folders).toEqual([expect.objectContaining({ folder: ws, usedBytes: 20_000 })]);
  });

  it('still names a not-covered file the cache vouches for, so deleting it lowers the level', async () => {
    h = await startUndoHarness({ checkpoints: { largeFileBytes: 10_000, racyWindowMs: 0 }, budgetBytes: 25_000 });
    const ws = h.workspace;
    writeFileSync(join(ws, 'huge.bin'), Buffer.alloc(30_000, 2));
    await new Promise((resolve) => setTimeout(resolve, 20)); // past the file system's timestamp granularity
    await h.act(() => writeFileSync(join(ws, 'a.txt'), 'a\n')); // checkpoints vouch for huge.bin from here on
    const remove = await h.act(() => rmSync(join(ws, 'huge.bin')));
    const effect = remove.effects[0]!;
    expect(effect.channel === 'fs' && effect.notCovered).toEqual([{ path: 'huge.bin', reason: 'budget', size: 30_000, when: 'before', changed: true }]);
    expect(remove.confinement.level).toBe('confined');
    expect(describeReversePlan(remove.reverse, remove.kind)).toMatch(/leave huge\.bin as it is \(not covered by undo\)/i);
  });
});

describe('timeline and diff', () => {
  it('lists every action with its status, level, changes and what can be done, and diffs text and binary files', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    writeFileSync(join(ws, 'poem.txt'), 'roses\nare\nred\n');
    const a1 = await h.act(() => {
      writeFileSync(join(ws, 'poem.txt'), 'roses\nare\nblue\n');
      writeFileSync(join(ws, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    });
    const a2 = await h.act(() => writeFileSync(join(ws, 'poem.txt'), 'violets\n'), { fails: true });
    await h.undo.undo(a2.id);

    const entries = h.views.timeline(h.task.id).entries as Array<Extract<TimelineEntry, { kind: 'action' }> | TimelineEntry>;
    const actions = entries.filter((e): e is Extract<TimelineEntry, { kind: 'action' }> => e.kind === 'action');
    expect(actions.map((e) => [e.action.seq, e.action.status, e.action.confinement.level, e.undo.possible, e.redo.possible, e.rewind.possible])).toEqual([
      [1, 'done', 'reversible', true, false, true],
      [2, 'undone', 'reversible', false, true, false],
    ]);
    const timeline = h.views.timeline(h.task.id);
    expect(timeline.rewindOrder).toEqual([1]); // a2 is undone: not in it
    expect(actions[0]!.rewind.count).toBe(1);
    expect(rewindSeqsOf(timeline.rewindOrder, actions[0]!)).toEqual([1]);
    expect(entries.filter((e) => e.kind === 'operation')).toEqual([expect.objectContaining({ operation: 'undo', actionSeqs: [2], state: 'completed', recovered: false })]);

    const text = await h.views.diff({ actionId: a1.id, path: 'poem.txt' });
    expect(text).toMatchObject({ status: 'modified', before: { kind: 'text', text: 'roses\nare\nred\n' }, after: { kind: 'text', text: 'roses\nare\nblue\n' } });
    const binary = await h.views.diff({ actionId: a1.id, path: 'logo.png' });
    expect(binary).toMatchObject({ status: 'added', before: null, after: { kind: 'binary', reason: 'binary', size: 7 } });
    expect(binary.after?.kind === 'binary' && binary.after.sha256).toMatch(/^[0-9a-f]{64}$/);
    await expect(h.views.diff({ actionId: a1.id, path: 'nope.txt' })).rejects.toThrow(/changed no file nope\.txt/);
  });
});

describe('the checkpoints’ stat cache', () => {
  it('a save that fails (the data folder removed, a full disk) never throws: the timer’s save must not end the app', async () => {
    h = await startUndoHarness();
    writeFileSync(join(h.workspace, 'a.txt'), 'one\n');
    await h.act(() => writeFileSync(join(h!.workspace, 'a.txt'), 'two\n'));
    rmSync(join(h.dataDir, 'checkpoints'), { recursive: true, force: true });
    // The same call the timer makes 2 s after a checkpoint, and the one at shutdown.
    await expect(h.fs.close()).resolves.toBeUndefined();
  });
});
