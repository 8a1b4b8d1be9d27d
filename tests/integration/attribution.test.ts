// Attribution: what changed in a folder while an action ran is split by what the action's processes
// claimed to write. The action's changes are undone; the person's edits made meanwhile are recorded as
// edits made outside Posthoc and kept; a path both wrote is refused by undo, saying why. Real folders,
// real checkpoints and the real undo engine; the claim logs are synthetic (stamped from the folder).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LibraryClaims } from '../../main/sandbox/claims';
import type { Action, FsEffect } from '../../shared/domain';
import { claimsNow, OWNERS, own } from '../support/claims';
import { startUndoHarness, type UndoHarness } from '../support/undo-harness';
import { describeReversePlan } from '../../shared/undo/reverse-plan';

const open: UndoHarness[] = [];
afterEach(async () => {
  for (const h of open.splice(0).reverse()) await h.close();
});

const read = (ws: string, p: string) => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : null);
const write = (ws: string, p: string, text: string) => {
  mkdirSync(join(ws, p, '..'), { recursive: true });
  writeFileSync(join(ws, p), text);
};

/**
 * One action as ActionRunner runs it: lease, checkpoint before, the action's writes, its claim log, then
 * the person's edits `meanwhile` (after the action's last write, before the checkpoint after).
 */
function actWith(
  h: UndoHarness,
  uid: number | null,
  step: { action: () => void; claims: () => LibraryClaims | null | undefined; meanwhile?: () => void },
): Promise<Action> {
  return h.act(step.action, {
    lease: true,
    claims: step.claims,
    meanwhile: () => {
      step.meanwhile?.();
      // The sandbox writes as the folder's owner, and so does the person: chown keeps inode, size and mtime.
      own(h.workspace, uid);
    },
  });
}

const fsEffect = (a: Action) => a.effects.find((e): e is FsEffect => e.channel === 'fs')!;

describe.each(OWNERS)('attribution ($who)', ({ uid }) => {
  async function harness(): Promise<UndoHarness> {
    const h = await startUndoHarness();
    open.push(h);
    own(h.workspace, uid);
    return h;
  }

  it("undoes the action's changes and keeps the edits the person made while it ran", async () => {
    const h = await harness();
    const ws = h.workspace;
    write(ws, 'a.txt', 'a0\n');
    write(ws, 'b.txt', 'b0\n');
    own(ws, uid);
    const action = await actWith(h, uid, {
      action: () => {
        write(ws, 'a.txt', 'a1 from the action\n');
        write(ws, 'out.txt', 'made by the action\n');
      },
      claims: () => claimsNow('workspace', ws, ['a.txt', 'out.txt']),
      meanwhile: () => {
        write(ws, 'b.txt', 'the person edited b\n');
        write(ws, 'notes.txt', 'the person wrote notes\n');
      },
    });

    const effect = fsEffect(action);
    expect(effect).toMatchObject({ added: ['out.txt'], modified: ['a.txt'], deleted: [] });
    expect(effect.whileRunning).toEqual({ added: ['notes.txt'], modified: ['b.txt'], deleted: [], renamed: [], ambiguous: [] });
    expect(effect.unattributed).toBeUndefined();
    expect(action.reverse.steps).toEqual([expect.objectContaining({ remove: ['out.txt'], restore: ['a.txt'] })]);
    expect(describeReversePlan(action.reverse, action.kind)).not.toMatch(/notes\.txt|b\.txt/);
    const changes = h.fs.history.changes(ws);
    expect(changes.map((c) => [c.kind, c.paths])).toEqual([
      ['action', ['a.txt', 'out.txt']],
      ['external', ['b.txt', 'notes.txt']],
    ]);
    expect(changes[1]).toMatchObject({ foundBy: action.id, during: true, ambiguous: [] });

    expect(await h.undo.undo(action.id)).toMatchObject({ outcome: 'undone', restored: ['a.txt'], removed: ['out.txt'] });
    expect([read(ws, 'a.txt'), read(ws, 'out.txt'), read(ws, 'b.txt'), read(ws, 'notes.txt')]).toEqual([
      'a0\n',
      null,
      'the person edited b\n',
      'the person wrote notes\n',
    ]);
    expect(statSync(join(ws, 'a.txt')).uid).toBe(uid ?? process.getuid!());

    expect(await h.undo.redo(action.id)).toMatchObject({ outcome: 'redone' });
    expect([read(ws, 'a.txt'), read(ws, 'out.txt'), read(ws, 'b.txt'), read(ws, 'notes.txt')]).toEqual([
      'a1 from the action\n',
      'made by the action\n',
      'the person edited b\n',
      'the person wrote notes\n',
    ]);
    // The timeline shows the person's edits as outside edits, after the action.
    const entries = h.views.timeline(h.task.id).entries;
    expect(entries.find((e) => e.kind === 'external')).toMatchObject({ changes: { added: ['notes.txt'], modified: ['b.txt'] } });
  });

  it('refuses to undo a file the person changed after the action wrote it, and says why', async () => {
    const h = await harness();
    const ws = h.workspace;
    write(ws, 'notes.txt', 'v0\n');
    own(ws, uid);
    const action = await actWith(h, uid, {
      action: () => {
        write(ws, 'notes.txt', 'the action\n');
        write(ws, 'other.txt', 'the action\n');
      },
      claims: () => claimsNow('workspace', ws, ['notes.txt', 'other.txt']),
      // A different size, so the stamp differs even within one tick of the file system's clock.
      meanwhile: () => write(ws, 'notes.txt', 'the person, after the action wrote it\n'),
    });

    const effect = fsEffect(action);
    expect(effect).toMatchObject({ added: ['other.txt'], modified: ['notes.txt'] });
    expect(effect.whileRunning).toMatchObject({ modified: ['notes.txt'], ambiguous: ['notes.txt'] });
    expect(describeReversePlan(action.reverse, action.kind)).toContain('Undo is refused while notes.txt holds an edit made outside Posthoc while the action ran');
    expect(action.reverse.steps).toEqual([expect.objectContaining({ remove: ['other.txt'], restore: [] })]);

    const result = await h.undo.undo(action.id);
    expect(result.outcome).toBe('conflict');
    if (result.outcome !== 'conflict') return;
    expect(result.message).toContain(
      "notes.txt (also edited outside Posthoc while action 1 ran, so undo cannot tell your edit from the action's and leaves it)",
    );
    expect(result.blockers).toEqual([expect.objectContaining({ path: 'notes.txt', by: 'external', whileActionSeq: 1, ambiguous: true })]);
    expect([read(ws, 'notes.txt'), read(ws, 'other.txt')]).toEqual(['the person, after the action wrote it\n', 'the action\n']);
    // The timeline gives the same reason before anyone clicks.
    const row = h.views.timeline(h.task.id).entries.find((e) => e.kind === 'action');
    expect(row && row.kind === 'action' ? row.undo.blockers : []).toEqual([expect.objectContaining({ path: 'notes.txt', ambiguous: true })]);
  });

  it('takes a folder the action renamed for its own, keeps a folder the person added meanwhile, and undoes the move', async () => {
    const h = await harness();
    const ws = h.workspace;
    write(ws, 'src/a.py', 'a\n');
    write(ws, 'src/b.py', 'b\n');
    own(ws, uid);
    const action = await actWith(h, uid, {
      action: () => renameSync(join(ws, 'src'), join(ws, 'lib')),
      claims: () => claimsNow('workspace', ws, [], ['src', 'lib']),
      meanwhile: () => write(ws, 'docs/readme.md', 'the person\n'),
    });
    const effect = fsEffect(action);
    expect(effect.renamed).toEqual([{ from: 'src/', to: 'lib/' }]);
    expect(effect.whileRunning).toMatchObject({ added: ['docs/readme.md'], ambiguous: [] });

    expect(await h.undo.undo(action.id)).toMatchObject({ outcome: 'undone' });
    expect([read(ws, 'src/a.py'), read(ws, 'src/b.py'), existsSync(join(ws, 'lib')), read(ws, 'docs/readme.md')]).toEqual(['a\n', 'b\n', false, 'the person\n']);
  });

  it('refuses to undo a folder the action created when the person put a file into it meanwhile', async () => {
    const h = await harness();
    const ws = h.workspace;
    const action = await actWith(h, uid, {
      action: () => write(ws, 'out/report.txt', 'the action\n'),
      claims: () => claimsNow('workspace', ws, ['out/report.txt'], ['out']),
      meanwhile: () => write(ws, 'out/mine.txt', 'the person\n'),
    });
    expect(fsEffect(action)).toMatchObject({ added: ['out/report.txt'] });
    expect(fsEffect(action).whileRunning).toMatchObject({ added: ['out/mine.txt'] });
    const result = await h.undo.undo(action.id);
    expect(result).toMatchObject({ outcome: 'conflict', message: expect.stringContaining('out/mine.txt (edited outside Posthoc while action 1 ran)') });
    expect([read(ws, 'out/report.txt'), read(ws, 'out/mine.txt')]).toEqual(['the action\n', 'the person\n']);
  });

  it.each([
    ['no claim log', undefined],
    ['no claim log from the sandbox', null],
  ] as const)("with %s, every change is the action's, as before attribution, and the effect says so", async (_what, claims) => {
    const h = await harness();
    const ws = h.workspace;
    const action = await actWith(h, uid, {
      action: () => write(ws, 'out.txt', 'the action\n'),
      claims: () => claims,
      meanwhile: () => write(ws, 'notes.txt', 'the person\n'),
    });
    const effect = fsEffect(action);
    expect(effect).toMatchObject({ added: ['notes.txt', 'out.txt'], unattributed: expect.stringMatching(/cannot be told apart from the action's/) });
    expect(effect.whileRunning).toBeUndefined();
    expect(h.fs.history.changes(ws).map((c) => c.kind)).toEqual(['action']);
    expect(await h.undo.undo(action.id)).toMatchObject({ outcome: 'undone', removed: ['notes.txt', 'out.txt'] });
  });

  it('with a claim log cut short (over its size, or its file system full), no change is told to be the action\'s alone: undo refuses and writes nothing', async () => {
    const h = await harness();
    const ws = h.workspace;
    const action = await actWith(h, uid, {
      action: () => write(ws, 'out.txt', 'the action\n'),
      claims: () => ({ complete: false, folders: [] }) as LibraryClaims,
      meanwhile: () => write(ws, 'notes.txt', 'the person\n'),
    });
    const effect = fsEffect(action);
    expect(effect).toMatchObject({ added: ['notes.txt', 'out.txt'], unattributed: expect.stringMatching(/cut short/), whileRunning: { ambiguous: ['notes.txt', 'out.txt'] } });
    expect(await h.undo.undo(action.id)).toMatchObject({ outcome: 'conflict' });
    expect([read(ws, 'out.txt'), read(ws, 'notes.txt')]).toEqual(['the action\n', 'the person\n']);
  });

  it('maps claims to their own folder: an edit in another granted folder is not the action’s', async () => {
    const h = await startUndoHarness({ folders: 2 });
    open.push(h);
    const [w0, w1] = h.folders as [string, string];
    own(w0, uid);
    own(w1, uid);
    const action = await actWith(h, uid, {
      action: () => write(w0, 'x.txt', 'the action\n'),
      claims: () => claimsNow('w0', w0, ['x.txt']),
      meanwhile: () => {
        rmSync(join(w0, 'x.txt'), { force: false });
        write(w0, 'x.txt', 'the person replaced it\n');
        write(w1, 'y.txt', 'the person\n');
      },
    });
    const [e0, e1] = action.effects as [FsEffect, FsEffect];
    expect(e0).toMatchObject({ workspace: 'w0', added: ['x.txt'], whileRunning: { ambiguous: ['x.txt'] } });
    expect(e1).toMatchObject({ workspace: 'w1', added: [], whileRunning: { added: ['y.txt'] } });
    expect(describeReversePlan(action.reverse, action.kind)).toContain('Undo is refused while w0/x.txt holds an edit');
  });
});
