// Sessions that survive, in their pure parts: the note a continued task sends the model, where a reopened
// window lands, and the web bridge connecting again by itself after its host restarted.
import { describe, expect, it } from 'vitest';
import type { Message, Task } from '../../shared/domain';
import { resumeNote } from '../../main/services/resume-note';
import { landingTask } from '../../renderer/src/state/landing';
import { createWebBridge, RECONNECTING_MESSAGE, STILL_LOST_MESSAGE, type SocketHandlers } from '../../renderer/src/bridge/web-bridge';
import { actionFixture } from '../support/action-fixture';

const message = (id: string, seq: number, role: Message['role'], content = id): Message => ({ id, taskId: 't1', seq, role, content, createdAt: '2026-01-01T00:00:00.000Z' });

describe('resumeNote', () => {
  const cut = actionFixture({
    id: 'a2',
    seq: 2,
    messageId: 'm2',
    status: 'interrupted',
    output: { stdout: 'half', stderr: '', exitCode: 137, timedOut: false, truncated: false, interrupted: { reason: 'Posthoc stopped while this action ran (crash or kill).', recorded: true } },
  });

  it('after a crash, names the action cut short and gives its record, which never reached the model', () => {
    const note = resumeNote([message('m0', 1, 'user'), message('m2', 2, 'assistant')], [cut]);
    expect(note).toMatch(/^Posthoc restarted while you worked on this task/);
    expect(note).toContain('Action 2 was cut short by the restart');
    expect(note).toContain('Observation for action 2 (python): interrupted: Posthoc stopped while this action ran (crash or kill).\nstdout:\nhalf');
  });

  it('after a graceful stop, names the action but does not repeat the observation already recorded', () => {
    const note = resumeNote([message('m0', 1, 'user'), message('m2', 2, 'assistant'), message('o2', 3, 'observation')], [cut]);
    expect(note).toContain('Action 2 was cut short by the restart');
    expect(note).not.toContain('Observation for action');
  });

  it('says no action was cut short when the restart came during a model reply, or after every action ended', () => {
    const finished = actionFixture({ id: 'a1', seq: 1, messageId: 'm1' });
    expect(resumeNote([message('m0', 1, 'user'), message('m1', 2, 'assistant'), message('o1', 3, 'observation')], [finished])).toContain(
      'No action was cut short: the restart came while you were writing your reply, which was lost.',
    );
    const unreported = resumeNote([message('m0', 1, 'user'), message('m1', 2, 'assistant')], [finished]);
    expect(unreported).toContain('No action was cut short: every action of your last reply ended before the restart.');
    expect(unreported).toContain('Observation for action 1 (python): exit code 0');
  });
});

describe('landingTask', () => {
  const task = (id: string, status: Task['status'], updatedAt: string): Task => ({
    id, title: id, status, workspaces: [], services: [], model: 'm', answer: null, error: null, createdAt: updatedAt, updatedAt,
  });
  it('lands on the newest running task, else on the last task when a restart interrupted it, else nowhere', () => {
    expect(landingTask([task('a', 'running', '2026-01-01T10:00:00Z'), task('b', 'running', '2026-01-01T11:00:00Z'), task('c', 'interrupted', '2026-01-01T12:00:00Z')])).toBe('b');
    expect(landingTask([task('a', 'done', '2026-01-01T10:00:00Z'), task('c', 'interrupted', '2026-01-01T12:00:00Z')])).toBe('c');
    expect(landingTask([task('a', 'done', '2026-01-01T13:00:00Z'), task('c', 'interrupted', '2026-01-01T12:00:00Z')])).toBeNull();
    expect(landingTask([])).toBeNull();
  });
});

describe('web bridge reconnection', () => {
  function reconnecting() {
    const sockets: SocketHandlers[] = [];
    const waits: Array<{ ms: number; then: () => void }> = [];
    const lost: string[] = [];
    let reconnected = 0;
    const api = createWebBridge({
      url: 'ws://127.0.0.1:1/ws?token=t',
      connect(_url, handlers) {
        sockets.push(handlers);
        return { send: () => undefined };
      },
      onConnectionLost: (m) => lost.push(m),
      onReconnected: () => reconnected++,
      reconnect: { delaysMs: [10, 20], wait: (ms, then) => waits.push({ ms, then }), stillLostAfter: 4 },
    });
    return { api, sockets, waits, lost, reconnected: () => reconnected };
  }

  it('connects again after the host goes away, backing off, says so once, and raises store:changed when back', async () => {
    const { api, sockets, waits, lost, reconnected } = reconnecting();
    const changed: unknown[] = [];
    api.on('store:changed', (p) => changed.push(p));
    sockets[0]!.onOpen();
    sockets[0]!.onClose();
    expect(lost).toEqual([RECONNECTING_MESSAGE]);
    expect(await api.taskList({})).toEqual({ ok: false, error: { code: 'unavailable', message: RECONNECTING_MESSAGE } });
    // The host is still down: the first attempt fails, the next waits longer, and the last delay repeats.
    waits.shift()!.then();
    sockets[1]!.onClose();
    sockets[1]!.onClose();
    expect(waits.map((w) => w.ms)).toEqual([20]);
    waits.shift()!.then();
    sockets[2]!.onClose();
    expect(waits.map((w) => w.ms)).toEqual([20]);
    // A late event of an abandoned socket changes nothing.
    sockets[1]!.onOpen();
    expect(reconnected()).toBe(0);
    waits.shift()!.then();
    sockets[3]!.onOpen();
    expect(reconnected()).toBe(1);
    expect(changed).toEqual([{}]);
    expect(lost).toEqual([RECONNECTING_MESSAGE]);
    // Lost again later: said again, and the delays start over.
    sockets[3]!.onClose();
    expect(lost).toEqual([RECONNECTING_MESSAGE, RECONNECTING_MESSAGE]);
    expect(waits.map((w) => w.ms)).toEqual([10]);
  });

  it('says how to get back in once the attempts go on (a host started again with a new token refuses the old one)', () => {
    const { sockets, waits, lost } = reconnecting();
    sockets[0]!.onOpen();
    sockets[0]!.onClose();
    for (let i = 1; i <= 3; i++) {
      expect(lost).toEqual([RECONNECTING_MESSAGE]);
      waits.shift()!.then();
      sockets[i]!.onClose();
    }
    expect(lost).toEqual([RECONNECTING_MESSAGE, STILL_LOST_MESSAGE]);
    expect(waits).toHaveLength(1);
  });
});
