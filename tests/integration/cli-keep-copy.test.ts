// `posthoc undo|rewind ID --keep-copy` through the built CLI, as a person runs it: a scripted model's
// actions run in Docker and change notes.txt, the person edits it afterwards, a plain undo is refused
// (exit 3) with the exact --keep-copy command, and with it the person's bytes land in "notes (your
// edit).txt" while notes.txt goes back. Hostile: a deleted file (nothing to copy, nothing changed), a copy
// name already taken, a later action in the way, --keep-copy where nothing is in the way, redo with it.
import { chownSync, existsSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';
import { folderContents } from '../support/folder-contents';

const { dirs, model } = cliTestbed();
const posthoc = runPosthoc;

const folder = folderContents;

/**
 * A granted folder holding `files` (the person's, owned as the folder is), a task run in it whose model
 * answers with `replies`, and the ids of its actions, oldest first.
 */
async function ranTask(replies: string[], files: Record<string, string>) {
  const ws = dirs.workspace();
  const data = dirs.make('posthoc-data-');
  const owner = statSync(ws);
  const personWrites = (name: string, text: string) => {
    writeFileSync(join(ws, name), text);
    chownSync(join(ws, name), owner.uid, owner.gid);
  };
  for (const [name, text] of Object.entries(files)) personWrites(name, text);
  const llm = await model(replies);
  const run = await posthoc(['run', 'work on my notes', '--workspace', ws, '--data-dir', data, '--json'], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'm' });
  expect(run.code, run.stderr).toBe(0);
  const ids = jsonLines(run.stdout)
    .filter((l) => l.type === 'action' && l.action.status === 'done')
    .map((l) => l.action.id as string);
  return { ws, data, owner, personWrites, ids: [...new Set(ids)] };
}

const WRITE_NOTES = "Updating your notes.\n\n```python\nopen('notes.txt','w').write('written by the action\\n')\n```";

describe('posthoc undo and rewind --keep-copy', () => {
  it('refuses an undo over the person\'s edit with the --keep-copy command, then keeps their edit as a copy, undoes, and redoes', async () => {
    const { ws, data, owner, personWrites, ids } = await ranTask([WRITE_NOTES, 'Done.'], { 'notes.txt': 'my notes from before\n' });
    const [id] = ids;
    expect(ids).toHaveLength(1);
    personWrites('notes.txt', 'my edit after the action\n');

    const refused = await posthoc(['undo', id!, '--data-dir', data]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/notes\.txt: edited outside Posthoc/);
    expect(refused.stderr).toContain(`Keep a copy of your edit and undo anyway: posthoc undo ${id} --keep-copy`);
    expect(refused.stderr).not.toContain('posthoc rewind');
    expect(folder(ws)).toEqual({ 'notes.txt': 'my edit after the action\n' });

    const undone = await posthoc(['undo', id!, '--keep-copy', '--data-dir', data]);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stdout).toContain('kept your edit of notes.txt as notes (your edit).txt');
    expect(folder(ws)).toEqual({ 'notes.txt': 'my notes from before\n', 'notes (your edit).txt': 'my edit after the action\n' });
    // The copy belongs to whoever owns the folder (uid 1000's folder when Posthoc runs as root), not to root.
    expect(statSync(join(ws, 'notes (your edit).txt'))).toMatchObject({ uid: owner.uid, gid: owner.gid });

    const redone = await posthoc(['redo', id!, '--data-dir', data]);
    expect(redone.code, redone.stderr).toBe(0);
    expect(folder(ws)).toEqual({ 'notes.txt': 'written by the action\n', 'notes (your edit).txt': 'my edit after the action\n' });
  });

  it('rewinds two actions keeping the person\'s edit of the first one\'s file, and --json names the copy', async () => {
    const { ws, data, personWrites, ids } = await ranTask(
      [WRITE_NOTES, "And a summary.\n\n```bash\necho 'summary' > summary.txt\n```", 'Done.'],
      { 'notes.txt': 'my notes from before\n' },
    );
    const [first, second] = ids;
    expect(ids).toHaveLength(2);
    personWrites('notes.txt', 'my edit after both actions\n');

    const refused = await posthoc(['rewind', first!, '--data-dir', data]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/notes\.txt: edited outside Posthoc/);
    expect(refused.stderr).toContain(`Keep a copy of your edit and rewind anyway: posthoc rewind ${first} --keep-copy`);
    expect(existsSync(join(ws, 'summary.txt'))).toBe(true);

    const rewound = await posthoc(['rewind', first!, '--keep-copy', '--json', '--data-dir', data]);
    expect(rewound.code, rewound.stderr).toBe(0);
    const result = JSON.parse(rewound.stdout) as { outcome: string; undone: Array<{ id: string }>; copies: unknown };
    expect(result.outcome).toBe('rewound');
    expect(result.undone.map((a) => a.id)).toEqual([second, first]);
    expect(result.copies).toEqual([{ path: 'notes.txt', copy: 'notes (your edit).txt' }]);
    expect(folder(ws)).toEqual({ 'notes.txt': 'my notes from before\n', 'notes (your edit).txt': 'my edit after both actions\n' });
  });

  it('numbers the copy when "notes (your edit).txt" is already taken, and leaves that file alone', async () => {
    const { ws, data, personWrites, ids } = await ranTask([WRITE_NOTES, 'Done.'], {
      'notes.txt': 'my notes from before\n',
      'notes (your edit).txt': 'an older copy of mine\n',
    });
    personWrites('notes.txt', 'my newest edit\n');

    const undone = await posthoc(['undo', ids[0]!, '--keep-copy', '--data-dir', data]);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stdout).toContain('kept your edit of notes.txt as notes (your edit 2).txt');
    expect(folder(ws)).toEqual({
      'notes.txt': 'my notes from before\n',
      'notes (your edit).txt': 'an older copy of mine\n',
      'notes (your edit 2).txt': 'my newest edit\n',
    });
  });

  it('refuses when the person deleted the file: nothing to keep a copy of, said why, the folder unchanged', async () => {
    const { ws, data, ids } = await ranTask([WRITE_NOTES, 'Done.'], { 'notes.txt': 'my notes from before\n', 'other.txt': 'other\n' });
    const [id] = ids;
    unlinkSync(join(ws, 'notes.txt'));
    const before = folder(ws);

    const nothingToCopy = 'No copy gets past notes.txt: deleted since: there is nothing to keep a copy of.';
    const plain = await posthoc(['undo', id!, '--data-dir', data]);
    expect(plain.code).toBe(3);
    expect(plain.stderr).toMatch(/notes\.txt: edited outside Posthoc/);
    expect(plain.stderr).toContain(nothingToCopy);
    expect(plain.stderr).not.toContain('Keep a copy of your edit');

    const withCopy = await posthoc(['undo', id!, '--keep-copy', '--data-dir', data]);
    expect(withCopy.code).toBe(3);
    expect(withCopy.stderr).toContain(nothingToCopy);
    expect(withCopy.stdout).toBe('');
    expect(folder(ws)).toEqual(before);

    const json = await posthoc(['undo', id!, '--keep-copy', '--json', '--data-dir', data]);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({
      outcome: 'conflict',
      paths: ['notes.txt'],
      blockers: [{ path: 'notes.txt', copyable: false, noCopy: 'deleted since: there is nothing to keep a copy of' }],
    });
    expect(folder(ws)).toEqual(before);
  });

  it('still refuses for a later action with --keep-copy and points to rewind; redo has no --keep-copy', async () => {
    const { ws, data, ids } = await ranTask(
      [WRITE_NOTES, "Once more.\n\n```bash\necho 'the second action' > notes.txt\n```", 'Done.'],
      { 'notes.txt': 'my notes from before\n' },
    );
    const [first] = ids;
    expect(ids).toHaveLength(2);

    const refused = await posthoc(['undo', first!, '--keep-copy', '--data-dir', data]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/notes\.txt: changed by action 2/);
    expect(refused.stderr).toContain(`Rewind instead: posthoc rewind ${first}`);
    expect(refused.stderr).not.toContain('Keep a copy of your edit');
    expect(refused.stderr).not.toContain('No copy gets past');
    expect(folder(ws)).toEqual({ 'notes.txt': 'the second action\n' });

    const redo = await posthoc(['redo', first!, '--keep-copy', '--data-dir', data]);
    expect(redo.code).toBe(2);
    expect(redo.stderr).toContain('redo has no --keep-copy: only undo and rewind keep copies of your edits');
  });

  it('just undoes with --keep-copy when nothing is in the way, and keeps no copy', async () => {
    const { ws, data, ids } = await ranTask([WRITE_NOTES, 'Done.'], { 'notes.txt': 'my notes from before\n' });
    const undone = await posthoc(['undo', ids[0]!, '--keep-copy', '--data-dir', data]);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stdout).toMatch(/Undid action 1\./);
    expect(undone.stdout).not.toContain('kept your edit');
    expect(folder(ws)).toEqual({ 'notes.txt': 'my notes from before\n' });
  });
});
