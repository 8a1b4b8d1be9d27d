// Crash safety: an undo stopped half-way (the process killed, or frozen and abandoned) is completed or
// rolled back when Posthoc next starts, and the timeline says which; an error half-way rolls back at once.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../shared/domain/undo';
import { startFreezingUndoHarness, startUndoHarness, type UndoHarness } from '../support/undo-harness';

const open: UndoHarness[] = [];
afterEach(async () => {
  for (const h of open.splice(0).reverse()) await h.close();
});

const read = (ws: string, p: string) => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : null);
const operations = (h: UndoHarness) =>
  h.views.timeline(h.task.id).entries.filter((e): e is Extract<TimelineEntry, { kind: 'operation' }> => e.kind === 'operation');

async function freezingHarness(step: number) {
  const frozen = await startFreezingUndoHarness(step);
  open.push(frozen.h);
  return frozen;
}

async function threeFileAction(h: UndoHarness) {
  const ws = h.workspace;
  writeFileSync(join(ws, 'a.txt'), 'a0\n');
  writeFileSync(join(ws, 'b.txt'), 'b0\n');
  return h.act(() => {
    writeFileSync(join(ws, 'a.txt'), 'a1\n');
    writeFileSync(join(ws, 'b.txt'), 'b1\n');
    writeFileSync(join(ws, 'c.txt'), 'c1\n');
  });
}

describe('an undo interrupted by a crash', () => {
  it('is completed at the next start when every path holds its old or new content', async () => {
    const { h, reached } = await freezingHarness(2);
    const action = await threeFileAction(h);
    void h.undo.undo(action.id);
    await reached;

    const next = await h.reopen({ checkpoints: {} });
    open.push(next);
    expect([read(h.workspace, 'a.txt'), read(h.workspace, 'b.txt'), read(h.workspace, 'c.txt')]).toEqual(['a0\n', 'b0\n', null]);
    expect(next.store.getAction(action.id)!.status).toBe('undone');
    expect(operations(next)).toEqual([
      expect.objectContaining({ operation: 'undo', state: 'completed', recovered: true, note: expect.stringMatching(/completed when Posthoc next started/) }),
    ]);
    // And the engine goes on as usual: redo works, with no phantom outside edit.
    expect(await next.undo.redo(action.id)).toMatchObject({ outcome: 'redone' });
    expect(next.fs.history.changes(h.workspace).filter((c) => c.kind === 'external')).toEqual([]);
  });

  it('is rolled back at the next start when a path changed meanwhile, and that path is left alone', async () => {
    const { h, reached } = await freezingHarness(1);
    const action = await threeFileAction(h);
    void h.undo.undo(action.id);
    await reached;
    writeFileSync(join(h.workspace, 'b.txt'), 'the person, after the crash\n');

    const next = await h.reopen({ checkpoints: {} });
    open.push(next);
    expect([read(h.workspace, 'a.txt'), read(h.workspace, 'b.txt'), read(h.workspace, 'c.txt')]).toEqual(['a1\n', 'the person, after the crash\n', 'c1\n']);
    expect(next.store.getAction(action.id)!.status).toBe('done');
    expect(operations(next)).toEqual([
      expect.objectContaining({ operation: 'undo', state: 'rolled-back', recovered: true, note: expect.stringMatching(/rolled back .*b\.txt changed meanwhile/) }),
    ]);
    // The person's edit is now an outside edit: the undo is refused for it, not lost.
    expect(await next.undo.undo(action.id)).toMatchObject({ outcome: 'conflict', paths: ['b.txt'] });
  });

  it('is finished after the process is killed with SIGKILL half-way, and its temporary files are removed', async () => {
    const h = await startUndoHarness();
    open.push(h);
    const action = await threeFileAction(h);
    await h.fs.close();
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/crash-undo-child.ts', h.dataDir, h.workspace, action.id, '2'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    expect(signal, stderr).toBe('SIGKILL');
    const [pending] = h.fs.history.pendingJournals();
    expect(pending).toMatchObject({ operation: 'undo', actionIds: [action.id] });
    writeFileSync(join(h.workspace, `.posthoc-restore-${pending!.id}-left-by-the-crash`), 'half-written');

    const next = await h.reopen({ checkpoints: {} });
    open.push(next);
    expect(readdirSync(h.workspace).sort()).toEqual(['a.txt', 'b.txt']);
    expect([read(h.workspace, 'a.txt'), read(h.workspace, 'b.txt')]).toEqual(['a0\n', 'b0\n']);
    expect(next.store.getAction(action.id)!.status).toBe('undone');
    expect(operations(next)[0]).toMatchObject({ state: 'completed', recovered: true });
  });
});

describe('an undo that fails half-way', () => {
  it('rolls back at once, changes nothing, and the timeline says so', async () => {
    let calls = 0;
    const h = await startUndoHarness({
      checkpoints: {
        restoreHooks: {
          afterStep: () => {
            if (++calls === 2) throw new Error('disk full (simulated)');
          },
        },
      },
    });
    open.push(h);
    const action = await threeFileAction(h);
    await expect(h.undo.undo(action.id)).rejects.toThrow(/failed and was rolled back, so nothing changed: disk full/);
    expect([read(h.workspace, 'a.txt'), read(h.workspace, 'b.txt'), read(h.workspace, 'c.txt')]).toEqual(['a1\n', 'b1\n', 'c1\n']);
    expect(h.store.getAction(action.id)!.status).toBe('done');
    expect(operations(h)).toEqual([expect.objectContaining({ state: 'rolled-back', recovered: false, note: expect.stringMatching(/disk full/) })]);
    // Nothing is left pending, and the next undo works.
    expect(h.fs.history.pendingJournals()).toEqual([]);
    expect(await h.undo.undo(action.id)).toMatchObject({ outcome: 'undone' });
  });
});
