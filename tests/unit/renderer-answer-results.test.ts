// What the answer shows of the work (renderer/src/model/answer-results.ts): each picture once (the same bytes,
// or the same figure saved with savefig and shown with plt.show()), the numbers the run printed, the files it
// made, where its query rows are, and only the last run's standing actions.
import { describe, expect, it } from 'vitest';
import type { Action, ActionFigure, Effect, Message } from '../../shared/domain';
import type { Change } from '../../renderer/src/model/action-summary';
import { answerActions, answerTables, dedupePictures, keyNumbers, madeFiles, pngSize, queryRows, savedFigureNames, type PictureCandidate } from '../../renderer/src/model/answer-results';
import { buildConversation } from '../../renderer/src/model/conversation';
import { actionFixture } from '../support/action-fixture';
import { makePng } from '../support/png';

function figure(n: number, sha256: string, width = 640, height = 480): ActionFigure {
  return { n, mime: 'image/png', bytes: 1000, sha256, width, height, released: false };
}
function fig(actionId: string, seq: number, f: ActionFigure): PictureCandidate {
  return { kind: 'figure', actionId, seq, figure: f };
}
function file(actionId: string, seq: number, path: string, sha256: string | null, width: number | null = 640, height: number | null = 480): PictureCandidate {
  const change: Change = { mark: 'added', channel: 'fs', where: '/w', path };
  return { kind: 'file', actionId, seq, change, sha256, width, height };
}
function fsEffect(over: Partial<Extract<Effect, { channel: 'fs' }>>): Effect {
  return { channel: 'fs', workspace: '/w', added: [], modified: [], deleted: [], checkpointBefore: 'b', checkpointAfter: 'c', ...over } as Effect;
}
const names = (list: PictureCandidate[]): string[] => list.map((c) => (c.kind === 'figure' ? `figure ${c.actionId}/${c.figure.n}` : `file ${c.actionId}/${c.change.path}`));

describe('each picture once', () => {
  it('drops the figure plt.show() handed over when the action saved the same figure to a file (savefig names it)', () => {
    const source = "plt.plot(x, y)\nplt.savefig('out/fit.png', dpi=150, bbox_inches='tight')\nplt.show()";
    // Other bytes (another dpi and a tight box), a similar shape: the same figure.
    const kept = dedupePictures([fig('a1', 1, figure(1, 'f1')), file('a1', 1, 'out/fit.png', 'p1', 871, 660)], new Map([['a1', source]]));
    expect(names(kept)).toEqual(['file a1/out/fit.png']);
  });

  it('keeps a shown figure that is not the one saved: another shape, or no savefig naming the file', () => {
    const source = "plt.savefig('wide.png')\nplt.figure(figsize=(4, 8)); plt.show()";
    expect(names(dedupePictures([fig('a1', 1, figure(1, 'f1', 400, 800)), file('a1', 1, 'wide.png', 'p1', 1200, 400)], new Map([['a1', source]])))).toEqual([
      'figure a1/1',
      'file a1/wide.png',
    ]);
    // The file was written by Pillow, not savefig: different bytes, nothing says they are one picture.
    const pillow = "img.save('swatch.png')\nplt.show()";
    expect(names(dedupePictures([fig('a1', 1, figure(1, 'f1')), file('a1', 1, 'swatch.png', 'p1')], new Map([['a1', pillow]])))).toEqual(['figure a1/1', 'file a1/swatch.png']);
  });

  it('pairs several saved figures with the shown ones in order, each only once', () => {
    const source = "fig1.savefig('a.png')\nfig2.savefig(\"b.png\")\nplt.show()";
    const kept = dedupePictures(
      [fig('a1', 1, figure(1, 'f1')), fig('a1', 1, figure(2, 'f2')), fig('a1', 1, figure(3, 'f3', 300, 900)), file('a1', 1, 'a.png', 'pa'), file('a1', 1, 'b.png', 'pb')],
      new Map([['a1', source]]),
    );
    expect(names(kept)).toEqual(['figure a1/3', 'file a1/a.png', 'file a1/b.png']);
  });

  it('drops the same bytes shown twice, across actions too, keeping the file, else the first', () => {
    const sources = new Map([
      ['a1', 'plt.show()'],
      ['a2', "shutil.copy('x', 'copy.png')"],
    ]);
    const kept = dedupePictures([fig('a1', 1, figure(1, 'same')), fig('a1', 1, figure(2, 'other')), file('a2', 2, 'copy.png', 'same')], sources);
    expect(names(kept)).toEqual(['figure a1/2', 'file a2/copy.png']);
    const twice = dedupePictures([fig('a1', 1, figure(1, 'same')), fig('a2', 2, figure(1, 'same'))], sources);
    expect(names(twice)).toEqual(['figure a1/1']);
  });

  it('keeps both when a file could not be read (no hash) and nothing names it', () => {
    expect(names(dedupePictures([fig('a1', 1, figure(1, 'f1')), file('a1', 1, 'big.png', null, null, null)], new Map([['a1', 'plt.show()']])))).toEqual([
      'figure a1/1',
      'file a1/big.png',
    ]);
  });

  it('reads the names savefig is given, and a PNG header for its size', () => {
    expect(savedFigureNames("plt.savefig('plots/fit.png')\nfig.savefig(f\"r{i}.png\", dpi=200)\nsavefig( 'x.svg' )")).toEqual(['fit.png', 'r{i}.png', 'x.svg']);
    expect(pngSize(makePng(37, 21))).toEqual({ width: 37, height: 21 });
    expect(pngSize(new Uint8Array([1, 2, 3]))).toBeNull();
  });
});

describe('the numbers, files and rows of the run', () => {
  it('takes "label: value" and "label = value" lines (comma-separated too), the newest value of a label, and nothing else', () => {
    const a1 = actionFixture({ id: 'a1', seq: 1, output: { stdout: 'coefficient: 2.50\nintercept = 5.0\nR^2: 0.98, n = 1,200\nfitting the model…\nsome: words\n', stderr: '', exitCode: 0, timedOut: false, truncated: false } });
    const a2 = actionFixture({ id: 'a2', seq: 2, output: { stdout: 'Coefficient: 2.51\ngrowth: 12.5%\n', stderr: '', exitCode: 0, timedOut: false, truncated: false } });
    expect(keyNumbers([a1, a2]).map((n) => [n.label, n.value, n.seq])).toEqual([
      ['coefficient', '2.51', 2],
      ['intercept', '5.0', 1],
      ['R^2', '0.98', 1],
      ['n', '1,200', 1],
      ['growth', '12.5%', 2],
    ]);
  });

  it('lists each file made once, by the last action that touched it, without the ones deleted later', () => {
    const a1 = actionFixture({ id: 'a1', seq: 1, effects: [fsEffect({ added: ['fit.png', 'tmp.txt', 'data.csv'] })] });
    const a2 = actionFixture({ id: 'a2', seq: 2, effects: [fsEffect({ modified: ['fit.png', 'notes.md'], deleted: ['tmp.txt'] })] });
    const files = madeFiles([a1, a2]);
    expect(files.map((f) => [f.change.path, f.change.mark, f.seq])).toEqual([
      ['fit.png', 'added', 2],
      ['data.csv', 'added', 1],
      ['notes.md', 'modified', 2],
    ]);
    expect(answerTables(files).map((f) => f.change.path)).toEqual(['data.csv']);
  });

  it("leaves out a repository's internals, tools' bookkeeping and folders (their files are listed)", () => {
    const a1 = actionFixture({ effects: [fsEffect({ added: ['app.py', '.git/HEAD', '.git/objects/ab/cdef0123', 'repo/.git/refs/heads/main', '__pycache__/app.cpython-311.pyc', 'web/node_modules/x/index.js', '.gitignore', 'plots/', 'plots/a.png'] })] });
    expect(madeFiles([a1]).map((f) => f.change.path)).toEqual(['app.py', '.gitignore', 'plots/a.png']);
  });

  it('names the actions whose queries returned rows', () => {
    const select = actionFixture({
      id: 'a3',
      seq: 3,
      kind: 'sql',
      effects: [
        {
          channel: 'db',
          database: 'shop',
          statements: [{ sql: 'select * from t', kind: 'query', rowsAffected: null, result: { columns: ['id'], rows: [['1'], ['2']], rowCount: 2, truncated: false } }],
        } as unknown as Effect,
      ],
    });
    expect(queryRows([select])).toEqual([{ actionId: 'a3', seq: 3, database: 'shop', rowCount: 2 }]);
  });

  it('reports the last run only, and only actions whose changes stand', () => {
    const message = (id: string, seq: number, role: Message['role']): Message => ({ id, taskId: 't1', seq, role, content: '', createdAt: '2026-01-01T00:00:00.000Z' }) as Message;
    const messages = [message('m1', 1, 'user'), message('m2', 2, 'assistant'), message('m3', 3, 'user'), message('m4', 4, 'assistant'), message('m5', 5, 'assistant')];
    const actions: Action[] = [
      actionFixture({ id: 'old', seq: 1, messageId: 'm2' }),
      actionFixture({ id: 'new', seq: 2, messageId: 'm4' }),
      actionFixture({ id: 'undone', seq: 3, messageId: 'm4', status: 'undone' }),
      actionFixture({ id: 'failed', seq: 4, messageId: 'm4', status: 'failed' }),
      actionFixture({ id: 'kept', seq: 5, messageId: 'm5', status: 'kept' }),
    ];
    expect(answerActions(buildConversation(messages, actions)).map((a) => a.id)).toEqual(['new', 'kept']);
  });
});
