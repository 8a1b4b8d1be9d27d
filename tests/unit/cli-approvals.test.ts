// posthoc run's side of approvals, pure parts: what in an action update waits for the person (a held
// action, a service or MCP tool call held for approval — never a send window or a decided hold), and the
// commands printed for another terminal, with a data folder quoted so a shell cannot read more into it.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Action } from '../../shared/domain';
import { decideCommands, heldIn } from '../../main/cli/approval-commands';
import { actionFixture, RUNNING_OUTPUT } from '../support/action-fixture';

const action = (over: Partial<Action> = {}): Action => actionFixture({ seq: 3, status: 'running', output: RUNNING_OUTPUT, confinement: { level: 'reversible', reason: 'r' }, ...over });

const waiting = { id: 'h1', kind: 'approval', reason: 'outside the rules', until: null, state: 'waiting' };

describe('what posthoc run asks about', () => {
  it('a held action, and calls held for approval; not a send window, a decided hold, or a finished action', () => {
    expect(heldIn(action({ status: 'awaiting-approval', output: { stdout: '', stderr: 'over the limit\n', exitCode: null, timedOut: false, truncated: false } }))).toEqual([
      { kind: 'action', id: 'a1', what: 'action 3', reason: 'over the limit' },
    ]);
    const rest = { channel: 'rest', service: 'slack', method: 'POST', path: '/chat.postMessage', hold: waiting };
    const mcp = { channel: 'mcp', server: 'notes', tool: 'add_note', hold: { ...waiting, id: 'h2' } };
    expect(heldIn(action({ effects: [rest, mcp] as never }))).toEqual([
      { kind: 'call', id: 'h1', what: 'POST /chat.postMessage to slack (action 3)', reason: 'outside the rules' },
      { kind: 'call', id: 'h2', what: 'the tool call notes.add_note (action 3)', reason: 'outside the rules' },
    ]);
    expect(heldIn(action({ effects: [{ ...rest, hold: { ...waiting, kind: 'window' } }] as never }))).toEqual([]);
    expect(heldIn(action({ effects: [{ ...rest, hold: { ...waiting, state: 'approved' } }] as never }))).toEqual([]);
    expect(heldIn(action({ status: 'done', effects: [rest] as never }))).toEqual([]);
  });

  it('prints commands a shell runs as written, whatever the data folder is called', () => {
    expect(decideCommands('h1', undefined)).toEqual({ approve: 'posthoc approve h1', reject: 'posthoc reject h1' });
    expect(decideCommands('h1', '/data/posthoc')).toEqual({ approve: 'posthoc approve h1 --data-dir /data/posthoc', reject: 'posthoc reject h1 --data-dir /data/posthoc' });
    for (const dir of ["/tmp/it's mine", '/tmp/$(touch pwned) `x`; rm -rf ~', '/tmp/a b\nc']) {
      const { approve } = decideCommands('h1', dir);
      // The shell hands the folder back as one argument, unchanged.
      const args = execFileSync('sh', ['-c', `printf '%s\\0' ${approve.replace(/^posthoc /, '')}`], { encoding: 'utf8' }).split('\0').slice(0, -1);
      expect(args).toEqual(['approve', 'h1', '--data-dir', dir]);
    }
  });
});
