// Private files keep their permission bits through undo. Git's tree modes hold only the executable bit, so
// a file an undo brought back used to come back 0644: a key kept 0600 that the agent deleted, or rewrote
// through a new file, was readable by everyone after its undo, and so was the copy of a private edit kept
// by "keep a copy and undo". The real engine (SQLite store, shadow repositories, journaled restore) around
// temporary folders, as root in CI and as the person elsewhere.
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../main/effects/fs/checkpoint-store';
import { PRIVATE_MODES_FILE } from '../../main/effects/fs/private-modes';
import { startFreezingUndoHarness, undoHarnessesPerTest, type UndoHarness } from '../support/undo-harness';

const { harness, closing } = undoHarnessesPerTest();

/** The permission bits with set-user-ID, set-group-ID and sticky, so a leak of those shows too. */
const bits = (ws: string, p: string) => statSync(join(ws, p)).mode & 0o7777;
const write = (ws: string, p: string, text: string, mode: number) => {
  writeFileSync(join(ws, p), text);
  chmodSync(join(ws, p), mode);
};
const recordOf = (h: UndoHarness) => join(CheckpointStore.gitdirFor(h.workspace, join(h.dataDir, 'checkpoints')), PRIVATE_MODES_FILE);

describe('private files through undo', () => {
  it('brings back a deleted 0600 key, a 0640 file rewritten through a new one and a 0750 program with their own bits', async () => {
    const h = await harness();
    const ws = h.workspace;
    write(ws, 'id_ed25519', 'PRIVATE KEY\n', 0o600);
    write(ws, 'app.conf', 'password = hunter2\n', 0o640);
    write(ws, 'deploy.sh', '#!/bin/sh\necho deploy\n', 0o750);
    write(ws, 'README.md', 'public\n', 0o644);
    const action = await h.act(() => {
      rmSync(join(ws, 'id_ed25519'));
      // An editor's or a script's atomic save: a new file (0644 under the usual umask) renamed over the old one.
      writeFileSync(join(ws, 'app.conf.tmp'), 'password = changed\n', { mode: 0o644 });
      chmodSync(join(ws, 'app.conf.tmp'), 0o644);
      renameSync(join(ws, 'app.conf.tmp'), join(ws, 'app.conf'));
      rmSync(join(ws, 'deploy.sh'));
      rmSync(join(ws, 'README.md'));
    });
    expect(bits(ws, 'app.conf')).toBe(0o644);

    expect((await h.undo.undo(action.id)).outcome).toBe('undone');
    expect(readFileSync(join(ws, 'id_ed25519'), 'utf8')).toBe('PRIVATE KEY\n');
    expect(bits(ws, 'id_ed25519')).toBe(0o600);
    expect(readFileSync(join(ws, 'app.conf'), 'utf8')).toBe('password = hunter2\n');
    expect(bits(ws, 'app.conf')).toBe(0o640);
    expect(bits(ws, 'deploy.sh')).toBe(0o750);
    // What was not private comes back as a checkpoint says: 0644.
    expect(bits(ws, 'README.md')).toBe(0o644);

    // Redo puts the agent's version back; a file it replaces keeps its bits when nothing private is recorded for
    // the content coming back, so a redo never opens a file wider than it is.
    expect((await h.undo.redo(action.id)).outcome).toBe('redone');
    expect(readFileSync(join(ws, 'app.conf'), 'utf8')).toBe('password = changed\n');
    expect(bits(ws, 'app.conf')).toBe(0o640);
  });

  it('a file the agent made private comes back private on redo, and a fresh process gives the bits back too', async () => {
    const h = await harness();
    const ws = h.workspace;
    write(ws, 'token.txt', 'old token\n', 0o600);
    const action = await h.act(() => {
      rmSync(join(ws, 'token.txt'));
      write(ws, 'new-secret.txt', 'made by the agent\n', 0o600);
    });
    // The CLI after the app: another process on the same data folder.
    const next = closing(await h.reopen());
    expect((await next.undo.undo(action.id)).outcome).toBe('undone');
    expect(bits(ws, 'token.txt')).toBe(0o600);
    expect((await next.undo.redo(action.id)).outcome).toBe('redone');
    expect(bits(ws, 'new-secret.txt')).toBe(0o600);
  });

  it('the last bits seen win: a key the person opened to everyone before the action comes back as they left it', async () => {
    const h = await harness();
    const ws = h.workspace;
    write(ws, 'shared.txt', 'same content\n', 0o600);
    await h.act(() => undefined);
    chmodSync(join(ws, 'shared.txt'), 0o644);
    const action = await h.act(() => rmSync(join(ws, 'shared.txt')));
    expect((await h.undo.undo(action.id)).outcome).toBe('undone');
    expect(bits(ws, 'shared.txt')).toBe(0o644);
  });

  it('keeps a copy of a private edit private, in the undo and when a crash interrupted it', async () => {
    const h = await harness();
    const ws = h.workspace;
    write(ws, 'notes.txt', 'original\n', 0o600);
    const action = await h.act(() => writeFileSync(join(ws, 'notes.txt'), 'by the agent\n'));
    writeFileSync(join(ws, 'notes.txt'), 'my private edit\n');
    const done = await h.undo.undo(action.id, { keepCopies: true });
    expect(done.outcome).toBe('undone');
    expect(readFileSync(join(ws, 'notes (your edit).txt'), 'utf8')).toBe('my private edit\n');
    expect(bits(ws, 'notes (your edit).txt')).toBe(0o600);
    expect(bits(ws, 'notes.txt')).toBe(0o600);

    // Stopped after its first step (the copy written), finished by the next start.
    const { h: c, reached } = await startFreezingUndoHarness(1);
    closing(c);
    write(c.workspace, 'n.txt', 'v0\n', 0o640);
    const x = await c.act(() => writeFileSync(join(c.workspace, 'n.txt'), 'v1\n'));
    writeFileSync(join(c.workspace, 'n.txt'), 'mine\n');
    void c.undo.undo(x.id, { keepCopies: true });
    await reached;
    rmSync(join(c.workspace, 'n (your edit).txt')); // as if the crash came before the copy's rename
    closing(await c.reopen({ checkpoints: {} })); // the next start finishes the interrupted undo
    expect(readFileSync(join(c.workspace, 'n (your edit).txt'), 'utf8')).toBe('mine\n');
    expect(bits(c.workspace, 'n (your edit).txt')).toBe(0o640);
    expect(bits(c.workspace, 'n.txt')).toBe(0o640);
  });

  it('a folder checkpointed before private bits were recorded: the next checkpoint reads every file once and sees them', async () => {
    // No racy window: the stat cache vouches for a file at once, so only the missing record makes it read again.
    const h = await harness({ checkpoints: { racyWindowMs: 0 } });
    const ws = h.workspace;
    write(ws, 'key.pem', 'KEY\n', 0o600);
    write(ws, 'other.txt', 'other\n', 0o644);
    await h.act(() => undefined);
    await h.fs.close();
    rmSync(recordOf(h)); // what an older Posthoc left: a warm stat cache and no record
    const next = closing(await h.reopen());
    const action = await next.act(() => rmSync(join(ws, 'key.pem')));
    expect((await next.undo.undo(action.id)).outcome).toBe('undone');
    expect(bits(ws, 'key.pem')).toBe(0o600);
  });

  it('hostile: never gives back set-user-ID, set-group-ID or sticky bits, and a damaged record falls back to 0644', async () => {
    const h = await harness();
    const ws = h.workspace;
    write(ws, 'suid-private', '#!/bin/sh\nid\n', 0o4750);
    write(ws, 'suid-public', '#!/bin/sh\nid\n#2\n', 0o6755);
    write(ws, 'sticky', 'x\n', 0o1600);
    const action = await h.act(() => {
      for (const p of ['suid-private', 'suid-public', 'sticky']) rmSync(join(ws, p));
    });
    expect((await h.undo.undo(action.id)).outcome).toBe('undone');
    expect(bits(ws, 'suid-private')).toBe(0o750);
    expect(bits(ws, 'suid-public')).toBe(0o755);
    expect(bits(ws, 'sticky')).toBe(0o600);

    // A record written by something else (or cut short): undo still works, with the checkpoint's bits.
    expect((await h.undo.redo(action.id)).outcome).toBe('redone');
    writeFileSync(recordOf(h), '{"v":1,"files":[["sticky", 12');
    expect((await h.undo.undo(action.id)).outcome).toBe('undone');
    expect(bits(ws, 'sticky')).toBe(0o644);
    expect(bits(ws, 'suid-private')).toBe(0o755);
  });
});
