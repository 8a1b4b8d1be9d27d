// The host's end of the action channel keeps its own limits on figures, whatever the container's runner
// sends: a stand-in runner on the real unix socket speaks the real frames and sends too many, too large and
// too much together; the host keeps 20, none over 8 MiB, at most 64 MiB, and says why for the rest.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ActionChannel, FIGURE_LIMITS } from '../../main/sandbox/action-channel';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function frame(kind: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(kind, 0, 'latin1');
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** A runner that answers the first action with `figures` as G frames, then C and X. */
async function runnerSending(figures: Buffer[], refused: string[] = []): Promise<{ channel: ActionChannel; socket: Socket }> {
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-channel-'));
  dirs.push(dir);
  const channel = await ActionChannel.listen(join(dir, 'control'));
  const socket = connect(join(dir, 'control', 'control.sock'));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.once('data', () => {
    for (const f of figures) socket.write(frame('G', f));
    socket.write(frame('C', Buffer.from([2])));
    socket.write(frame('X', Buffer.from(JSON.stringify({ exitCode: 0, timedOut: false, stopped: false, leftovers: 0, figuresRefused: refused }))));
  });
  socket.write(frame('R', Buffer.from('{}')));
  await channel.waitReady(5000);
  return { channel, socket };
}

describe('ActionChannel: figures', () => {
  it('keeps at most 20, none over 8 MiB, at most 64 MiB together, and passes on the runner\'s refusals', async () => {
    const small = Array.from({ length: 25 }, (_, i) => Buffer.from(`figure ${i}`));
    const tooBig = Buffer.alloc(FIGURE_LIMITS.bytes + 1);
    const { channel, socket } = await runnerSending([tooBig, ...small], ['a figure that was not a regular file']);
    const result = await channel.run({ language: 'python', timeoutSeconds: 5, source: 'pass' }, () => undefined);
    expect(result.figures.files.map((f) => f.toString())).toEqual(small.slice(0, 20).map((f) => f.toString()));
    expect(new Set(result.figures.refused)).toEqual(new Set(['a figure over 8 MiB', 'more than 20 figures: the rest were not kept', 'a figure that was not a regular file']));
    socket.destroy();
    await channel.close();
  });

  it('stops at 64 MiB together', async () => {
    const sevenMiB = Array.from({ length: 10 }, () => Buffer.alloc(7 * 1024 * 1024, 1));
    const { channel, socket } = await runnerSending(sevenMiB);
    const result = await channel.run({ language: 'python', timeoutSeconds: 5, source: 'pass' }, () => undefined);
    expect(result.figures.files).toHaveLength(9);
    expect(result.figures.refused).toEqual(['figures over 64 MiB together: the rest were not kept']);
    socket.destroy();
    await channel.close();
  });
});
