// The "done means", as a new user would meet it, through the real services: a scripted model's
// actions run in Docker and create, edit, rename and delete files; the person edits a file between two
// runs; actions are undone out of order where allowed, refused with the right paths where not, rewound
// and redone; the folder ends exactly as expected and the person's edit survives.
import { chownSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/services-harness';
import { folderContents } from '../support/folder-contents';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const folder = folderContents;

describe('a new user undoing a task', () => {
  it('undoes out of order where allowed, refuses with the paths where not, rewinds and redoes, and keeps their edit', async () => {
    harness = await startHarness(
      [
        "Creating the data folder.\n\n```python\nimport os\nos.makedirs('data')\nopen('data/a.csv','w').write('a,1\\n')\nopen('data/b.csv','w').write('b,2\\n')\n```",
        "Editing the report and renaming b.\n\n```bash\necho 'results: 2 rows' >> report.md\nmv data/b.csv data/b-old.csv\n```",
        "Cleaning up.\n\n```python\nimport os\nos.remove('data/a.csv')\nopen('summary.txt','w').write('summary\\n')\n```",
        'Done.',
        "Updating the report.\n\n```bash\nsed -i 's/draft/final/' report.md\necho ok > log.txt\n```",
        'Done again.',
      ],
      { stream: false },
    );
    const { services, workspace: ws } = harness;
    const owner = statSync(ws);
    const personWrites = (name: string, text: string) => {
      writeFileSync(join(ws, name), text);
      chownSync(join(ws, name), owner.uid, owner.gid); // the person's own files are theirs
    };
    personWrites('notes.txt', 'my notes\n');
    personWrites('report.md', 'draft\n');

    const started = await services.tasks.start({ prompt: 'tidy my data and report', workspaces: [ws] });
    expect((await services.tasks.wait(started.id)).status).toBe('done');
    personWrites('notes.txt', 'my notes, edited by me between the runs\n');
    await services.tasks.send(started.id, 'now finish the report');
    expect((await services.tasks.wait(started.id)).status).toBe('done');

    const [a1, a2, a3, a4] = services.tasks.get(started.id).actions;
    expect([a1, a2, a3, a4].map((a) => a!.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(a2!.effects[0]).toMatchObject({ modified: ['report.md'], renamed: [{ from: 'data/b.csv', to: 'data/b-old.csv' }] });
    const timeline = services.undoViews.timeline(started.id);
    expect(timeline.entries.map((e) => e.kind)).toEqual(['action', 'action', 'action', 'external', 'action']);

    // Action 3 touched nothing later actions touched: undone out of order.
    expect(await services.undo.undo(a3!.id)).toMatchObject({ outcome: 'undone', removed: ['summary.txt'], restored: ['data/a.csv'] });
    // Action 2's report.md was changed again by action 4; action 1's data/b.csv was renamed by action 2.
    expect(await services.undo.undo(a2!.id)).toMatchObject({ outcome: 'conflict', paths: ['report.md'], canRewind: true, blockers: [{ by: 'action', actionSeq: 4 }] });
    // (b-old.csv counts too: it landed in the folder action 1 created.)
    expect(await services.undo.undo(a1!.id)).toMatchObject({
      outcome: 'conflict',
      paths: ['data/b-old.csv', 'data/b.csv'],
      blockers: [{ by: 'action', actionSeq: 2 }, { by: 'action', actionSeq: 2 }],
    });

    // Rewind to before action 2: action 4 and action 2 are undone (3 already is), newest first.
    const rewound = await services.undo.rewind(a2!.id);
    expect(rewound.outcome === 'rewound' && rewound.undone.map((a) => a.seq)).toEqual([4, 2]);
    expect(folder(ws)).toEqual({
      'data/': '',
      'data/a.csv': 'a,1\n',
      'data/b.csv': 'b,2\n',
      'notes.txt': 'my notes, edited by me between the runs\n',
      'report.md': 'draft\n',
    });

    // Redo action 2: the report line and the rename come back; then undo action 1 is refused again.
    expect(await services.undo.redo(a2!.id)).toMatchObject({ outcome: 'redone' });
    expect(folder(ws)).toEqual({
      'data/': '',
      'data/a.csv': 'a,1\n',
      'data/b-old.csv': 'b,2\n',
      'notes.txt': 'my notes, edited by me between the runs\n',
      'report.md': 'draft\nresults: 2 rows\n',
    });
    expect(services.tasks.get(started.id).actions.map((a) => a.status)).toEqual(['done', 'done', 'undone', 'undone']);

    // Rewind everything: the folder is as the person left it before the task, with their later edit.
    expect(await services.undo.rewind(a1!.id)).toMatchObject({ outcome: 'rewound' });
    expect(folder(ws)).toEqual({ 'notes.txt': 'my notes, edited by me between the runs\n', 'report.md': 'draft\n' });
  });
});
