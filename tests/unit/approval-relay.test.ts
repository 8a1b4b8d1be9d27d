// The hand-over of approvals between processes (services/approval-relay.ts), on a real folder: the process
// that holds a call or an action decides it when another asks; nobody holding the id means no answer and
// nothing left behind; ids that could name a path are refused before any file is touched.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Action } from '../../shared/domain';
import type { RestHold } from '../../shared/domain/connections';
import { approvalDoors, ApprovalRelay } from '../../main/services/approval-relay';
import { ServiceError } from '../../main/services/service-error';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const hold = (id: string, state: RestHold['state'] = 'waiting'): RestHold => ({ id, kind: 'approval', reason: 'outside the rules', until: null, state });

/** One process's parts: the held calls given (h-1 unless told), until decided; no SQL action waiting. */
function holder(held: RestHold[] = [hold('h-1')]) {
  const decided: Array<[string, boolean]> = [];
  let waiting = held;
  const parts = {
    sql: {
      waitingIds: () => [],
      approve: (): Action => {
        throw new ServiceError('conflict', 'nothing to approve');
      },
      reject: (): Action => {
        throw new ServiceError('conflict', 'nothing to reject');
      },
    },
    holds: { waiting: () => waiting },
    connections: {
      approveHold: (id: string) => {
        if (!waiting.some((h) => h.id === id)) throw new ServiceError('not-found', 'That call is no longer held.');
        decided.push([id, true]);
        waiting = [];
        return hold(id, 'approved');
      },
      cancelHold: (id: string) => {
        if (!waiting.some((h) => h.id === id)) throw new ServiceError('not-found', 'That call is no longer held.');
        decided.push([id, false]);
        waiting = [];
        return hold(id, 'cancelled');
      },
    },
    store: { getAction: () => undefined },
  };
  return { parts, decided };
}

describe('approvals handed over between processes', () => {
  it('a held call is approved from another process, once; the folder is left empty', async () => {
    const dir = join(dirs.make('posthoc-approvals-'), 'approvals');
    const running = holder();
    const runningDoors = approvalDoors(dir, running.parts, 2_000);
    const asker = holder([]); // the asking process holds nothing
    const askingDoors = approvalDoors(dir, asker.parts, 2_000);
    runningDoors.relay.start();
    try {
      await expect(askingDoors.hold('h-1', true)).resolves.toEqual(hold('h-1', 'approved'));
      expect(running.decided).toEqual([['h-1', true]]);
      // Decided: a second ask finds nobody holding it, and says so in the holder's words.
      await expect(askingDoors.hold('h-1', false)).rejects.toThrow(/no longer held/);
      expect(running.decided).toEqual([['h-1', true]]);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      runningDoors.relay.stop();
    }
  });

  it('nobody holding the id: no answer, the request withdrawn; a stray request for another id is never taken', async () => {
    const dir = join(dirs.make('posthoc-approvals-'), 'approvals');
    const running = holder();
    const relay = new ApprovalRelay(dir, { waiting: () => running.parts.holds.waiting().map((h) => h.id), decide: (id, yes) => (yes ? running.parts.connections.approveHold(id) : running.parts.connections.cancelHold(id)) }, 600);
    relay.start();
    try {
      const asker = new ApprovalRelay(dir, { waiting: () => [], decide: () => null }, 600);
      expect(await asker.ask('h-2', true)).toBeNull();
      expect(running.decided).toEqual([]);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      relay.stop();
    }
  });

  it('refuses an id that could name a path, before any file is written', async () => {
    const base = dirs.make('posthoc-approvals-');
    const dir = join(base, 'approvals');
    const asker = new ApprovalRelay(dir, { waiting: () => [], decide: () => null }, 300);
    for (const id of ['../outside', '/etc/passwd', 'a/b', '.hidden', '', 'x'.repeat(101)]) {
      await expect(asker.ask(id, true)).rejects.toThrow(/not an action or call id/);
    }
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(base)).toEqual([]);
  });

  it('a request file someone else wrote with a non-boolean approve is read as a rejection, never an approval', () => {
    const dir = join(dirs.make('posthoc-approvals-'), 'approvals');
    const running = holder();
    const relay = new ApprovalRelay(dir, { waiting: () => running.parts.holds.waiting().map((h) => h.id), decide: (id, yes) => (yes ? running.parts.connections.approveHold(id) : running.parts.connections.cancelHold(id)) });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'h-1.request'), JSON.stringify({ approve: 'yes' }));
    relay.serve();
    expect(running.decided).toEqual([['h-1', false]]);
    expect(readdirSync(dir)).toEqual(['h-1.answer']);
  });
});
