// Figures from the sandbox to the data folder, against the real Docker and the real image: the action
// runner hands over what is in the figures tmpfs only after every process of the action has ended
// (action-channel.ts frame G), and the host checks it again (effects/figures). These actions write PNG
// bytes themselves (zlib, no matplotlib), so the hand-over's own rules are what is tested; the matplotlib
// backend is tested below and end to end in figures-codeact.test.ts. Hostile: too many, too big, not a PNG, a
// symlink and a FIFO planted in the folder, odd names, a process that outlives the action.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { WorkspaceGrant } from '../../shared/domain';
import type { RunnerResult } from '../../main/sandbox/action-channel';
import { createDocker } from '../../main/sandbox/docker-client';
import { SandboxExecutor } from '../../main/sandbox/executor';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image';
import { Figures } from '../../main/effects/figures/figures';
import { openDatabase } from '../../main/store/database';
import { FigureStore } from '../../main/store/figure-store';
import { TaskStore } from '../../main/store/task-store';
import { makePng } from '../support/png';
import { tempDirs } from '../support/temp-dir';

const IMAGE = SANDBOX_IMAGE;
const docker = createDocker();
const dirs = tempDirs();
const root = tempDirs();
const executor = new SandboxExecutor(docker, IMAGE, { controlDir: join(root.make('posthoc-control-'), 'sandbox') });
let n = 0;

afterEach(() => dirs.cleanup());
afterAll(async () => {
  await executor.stopAll();
  root.cleanup();
});

const grant = (hostPath: string): WorkspaceGrant[] => [{ name: 'ws', hostPath, mountPath: '/workspace', readOnly: false }];

/** Python that writes a real PNG of w × h pixels to path (zlib and struct only). */
const PNG_WRITER = `
import struct, zlib, os
FIG = '/run/posthoc-figures'
def png(w, h, pad=0):
    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    raw = b''.join(b'\\x00' + b'\\x10\\x80\\xf0' * w for _ in range(h))
    extra = chunk(b'teXt', b'A' * pad) if pad else b''
    return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + extra + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
def put(name, data):
    with open(os.path.join(FIG, name), 'wb') as f:
        f.write(data)
`;

async function act(ws: string, source: string, taskId = `fig-test-${++n}`): Promise<{ figures: RunnerResult['figures']; exitCode: number | null; stdout: string; stderr: string }> {
  let figures: RunnerResult['figures'] = { files: [], refused: [] };
  const out = await executor.run({
    taskId, workspaces: grant(ws), seq: 1, language: 'python', source: PNG_WRITER + source, timeoutSeconds: 30,
    onFigures: (f) => {
      figures = f;
    },
  });
  return { figures, exitCode: out.exitCode, stdout: out.stdout, stderr: out.stderr };
}

/** The host's intake over a real app database, for the end of the chain. */
function intake() {
  const dataDir = root.make('posthoc-data-');
  const db = openDatabase(dataDir);
  const store = new TaskStore(db);
  const task = store.createTask({ title: 't', workspaces: [], model: 'm' });
  const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  store.saveAction({
    id, taskId: task.id, seq: 1, kind: 'code', language: 'python', source: '', status: 'done', messageId: null,
    output: { stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false }, effects: [],
    confinement: { level: 'reversible', reason: 'r' }, startedAt: new Date().toISOString(), finishedAt: null, undoneAt: null,
  });
  return { id, dataDir, store, figures: new Figures(join(dataDir, 'figures'), new FigureStore(db)), close: () => db.close() };
}

describe('figures from the sandbox (real Docker)', () => {
  it('hands over the PNGs in the figures folder, oldest name first, byte for byte, and empties it for the next action', async () => {
    const ws = dirs.workspace();
    const task = `fig-test-${++n}`;
    const first = await act(ws, "put('1-a.png', png(40, 30))\nput('2-b.png', png(7, 9))\nput('notes.txt', b'not a figure')", task);
    expect(first.exitCode).toBe(0);
    expect(first.figures.refused).toEqual([]);
    expect(first.figures.files.map((f) => f.equals(makePng(40, 30, { rgb: [0x10, 0x80, 0xf0] })))).toEqual([true, false]);
    expect(first.figures.files[1]!.equals(makePng(7, 9, { rgb: [0x10, 0x80, 0xf0] }))).toBe(true);
    const second = await act(ws, "print(sorted(os.listdir(FIG)))", task);
    expect(second.figures.files).toEqual([]);
    const host = intake();
    const kept = await host.figures.take(host.id, first.figures);
    expect(kept.figures.map((f) => [f.n, f.width, f.height])).toEqual([[1, 40, 30], [2, 7, 9]]);
    expect(readdirSync(join(host.dataDir, 'figures', host.id)).sort()).toEqual(['1.png', '2.png']);
    host.close();
  });

  it('keeps at most 20 figures of at most 8 MiB each, and the host refuses bytes that are not a PNG', async () => {
    const ws = dirs.workspace();
    const many = await act(ws, "for i in range(25):\n    put('%03d.png' % i, png(2, 2))");
    expect(many.figures.files).toHaveLength(20);
    expect(many.figures.refused).toEqual(['more than 20 figures: the rest were not kept']);
    const big = await act(ws, "put('a.png', png(2, 2, pad=9 * 1024 * 1024))\nput('b.png', b'<svg onload=alert(1)>' * 10)\nput('c.png', png(3, 3))");
    expect(big.figures.refused).toEqual(['a figure over 8 MiB']);
    expect(big.figures.files).toHaveLength(2);
    const host = intake();
    const kept = await host.figures.take(host.id, big.figures);
    expect(kept.notes).toEqual(['a figure over 8 MiB', 'a figure that was not a PNG (no PNG signature)']);
    expect(kept.figures.map((f) => [f.n, f.width])).toEqual([[1, 3]]);
    host.close();
  });

  it('never follows a symlink planted in the folder nor blocks on a FIFO; odd names are only names', async () => {
    const ws = dirs.workspace();
    const out = await act(
      ws,
      [
        "os.symlink('/usr/local/bin/posthoc-init', os.path.join(FIG, 'a-link.png'))",
        "os.symlink('/run/posthoc-claims/log', os.path.join(FIG, 'b-link.png'))",
        "os.mkfifo(os.path.join(FIG, 'c-fifo.png'))",
        "os.mkdir(os.path.join(FIG, 'd-dir.png'))",
        "put('d-dir.png/inner.png', png(5, 5))",
        "put('..png', png(6, 6))",
        "put('e-..%2F..%2Fescape.png', png(8, 8))",
      ].join('\n'),
    );
    expect(out.exitCode).toBe(0);
    expect(out.figures.refused).toEqual([
      'a figure could not be opened (Too many levels of symbolic links)',
      'a figure could not be opened (Too many levels of symbolic links)',
      'a figure that was not a regular file',
      'a figure that was not a regular file',
    ]);
    // '..png' starts with a dot, like the backend's names while it writes: never read. The other odd name is only a name.
    expect(out.figures.files.map((f) => f.readUInt32BE(16))).toEqual([8]);
    const host = intake();
    await host.figures.take(host.id, out.figures);
    expect(readdirSync(join(host.dataDir, 'figures', host.id))).toEqual(['1.png']);
    expect(existsSync(join(host.dataDir, 'escape.png'))).toBe(false);
    host.close();
  });

  it('a process that outlives the action adds nothing: it is ended before the folder is read, and the next action starts empty', async () => {
    const ws = dirs.workspace();
    const task = `fig-test-${++n}`;
    const late = await act(
      ws,
      [
        'import subprocess, sys',
        // Detached, in its own session: writes a figure a second later, then keeps writing.
        "code = PNG_SRC + \"\\nimport time\\nopen('/tmp/late-started', 'w').close()\\ntime.sleep(1)\\nwhile True:\\n    put('late-%d.png' % time.time_ns(), png(4, 4))\\n    time.sleep(0.05)\\n\"",
        "subprocess.Popen([sys.executable, '-c', code], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)",
        // Returns once it runs, leaving it behind.
        'import time',
        "while not os.path.exists('/tmp/late-started'): time.sleep(0.02)",
        "print('left it running')",
      ].join('\n').replace('PNG_SRC', JSON.stringify(PNG_WRITER)),
      task,
    );
    expect(late).toMatchObject({ exitCode: 0, stdout: 'left it running\n' });
    expect(late.figures).toEqual({ files: [], refused: [] });
    // It was ended with the action: a second later nothing wrote into the folder.
    const next = await act(ws, "import time\ntime.sleep(1.5)\nprint(os.listdir(FIG))", task);
    expect(next.figures).toEqual({ files: [], refused: [] });
    expect(next.stdout).toBe('[]\n');
  });
});

describe('matplotlib in the image (real Docker)', () => {
  it('plt.show() hands over each open figure once; a figure left open is handed over at the end; one saved to a file is not', async () => {
    const ws = dirs.workspace();
    const out = await act(
      ws,
      [
        'import matplotlib.pyplot as plt',
        'plt.figure(figsize=(4, 3)); plt.plot([1, 2, 3]); plt.show()',
        'plt.figure(figsize=(5, 2)); plt.plot([3, 2, 1])',
        "saved = plt.figure(); plt.plot([0, 1]); saved.savefig('saved.png')",
        "print(plt.get_backend())",
      ].join('\n'),
    );
    expect(out).toMatchObject({ exitCode: 0, stdout: 'module://posthoc_figures\n' });
    expect(out.figures.refused).toEqual([]);
    const host = intake();
    const kept = await host.figures.take(host.id, out.figures);
    expect(kept.figures.map((f) => [f.n, f.width, f.height])).toEqual([[1, 400, 300], [2, 500, 200]]);
    expect(existsSync(join(ws, 'saved.png'))).toBe(true);
    host.close();
  });
});
