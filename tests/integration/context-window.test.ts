// The context budget (main/agent/context-budget.ts) as a person meets it: a long task whose every action
// prints 60 kB, run by the built CLI against `--context-window 16000`, finishes, and no request the
// provider received was over the window (each one counted by the estimate, which errs high: see
// docs/BENCHMARKS.md "Tokens").
import { afterEach, describe, expect, it } from 'vitest';
import { estimateRequestTokens } from '../../main/agent/token-estimate';
import { replyReserve } from '../../main/agent/context-budget';
import type { ChatMessage } from '../../main/agent/llm-client';
import { startFakeOpenAi, type ChatRequest, type FakeOpenAi } from '../support/fake-openai-server';
import { startFaultServer, type FaultRequest, type FaultServer, type FaultStep } from '../support/fault-openai-server';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';

const { dirs } = cliTestbed();
const servers: Array<FakeOpenAi | FaultServer> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const WINDOW = 16000;
const ACTIONS = 14;

describe('--context-window', () => {
  it('a task of 14 actions printing 60 kB each finishes, and no request exceeds the window', async () => {
    let acted = 0;
    let summaries = 0;
    const reply = (request: ChatRequest): string => {
      if (request.messages[0]?.content.startsWith('You condense')) {
        summaries++;
        return `Printed the 60 kB listings of the earlier actions; every one exited 0. (summary ${summaries})`;
      }
      if (acted < ACTIONS) {
        acted++;
        return `Listing ${acted}.\n\`\`\`python\nfor i in range(1000):\n    print(f"line {i:05d} of listing ${acted} " + "x" * 36)\n\`\`\``;
      }
      return 'Printed all fourteen listings.';
    };
    const llm = await startFakeOpenAi(Array.from({ length: 80 }, () => reply));
    servers.push(llm);
    const run = await runPosthoc(
      ['run', 'print fourteen long listings', '--workspace', dirs.workspace(), '--data-dir', dirs.make('posthoc-data-'), '--max-steps', '20', '--context-window', String(WINDOW), '--json'],
      { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    const actions = lines.filter((l) => l.type === 'action').map((l) => l.action);
    expect(actions).toHaveLength(ACTIONS);
    for (const a of actions) expect(a.output.stdout.length).toBeGreaterThanOrEqual(60_000);
    expect(lines.at(-1)!.task).toMatchObject({ status: 'done', answer: 'Printed all fourteen listings.' });

    const agentRequests = llm.requests.filter((r) => !r.messages[0]?.content.startsWith('You condense'));
    expect(agentRequests).toHaveLength(ACTIONS + 1);
    for (const request of llm.requests) {
      expect(estimateRequestTokens(request.messages as ChatMessage[])).toBeLessThanOrEqual(WINDOW - replyReserve(WINDOW));
    }
    // Never the system prompt or the task.
    for (const request of agentRequests) {
      expect(request.messages[0]).toEqual(agentRequests[0]!.messages[0]);
      expect(request.messages[1]).toEqual({ role: 'user', content: 'print fourteen long listings' });
    }
    // The last request: the newest observation whole (its 8,000-character cap), the oldest shortened with its action number.
    const last = agentRequests.at(-1)!.messages;
    const text = last.map((m) => m.content).join('\n');
    expect(text).toContain(`line 00999 of listing ${ACTIONS} `);
    expect(text).toMatch(/characters cut to fit the context window \(the full output is on action \d+'s card/);
  }, 300_000);

  it('as a new user meets it: <execute> replies, a 429 and a cut stream on the way, 14 actions of 60 kB, --json totals equal the server\'s', async () => {
    let acted = 0;
    let calls = 0;
    const action = (n: number) => `Listing ${n}.\n<execute>\nfor i in range(1000):\n    print(f"line {i:05d} of listing ${n} " + "x" * 36)\n</execute>`;
    const step = (request: FaultRequest): FaultStep => {
      calls++;
      if (request.messages[0]?.content?.startsWith('You condense')) return { text: 'Printed the earlier 60 kB listings; every one exited 0.' };
      if (calls === 3) return { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } };
      if (calls === 7) return { cutAfter: 12, text: action(acted + 1) };
      if (acted < ACTIONS) return { text: action(++acted) };
      return { text: 'Printed all fourteen listings.' };
    };
    const llm = await startFaultServer(Array.from({ length: 80 }, () => step));
    servers.push(llm);
    const run = await runPosthoc(
      ['run', 'print fourteen long listings', '--workspace', dirs.workspace(), '--data-dir', dirs.make('posthoc-data-'), '--max-steps', '20', '--context-window', String(WINDOW), '--json'],
      { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines.filter((l) => l.type === 'action')).toHaveLength(ACTIONS);
    const task = lines.at(-1)!.task;
    expect(task).toMatchObject({ status: 'done', answer: 'Printed all fourteen listings.' });
    for (const request of llm.requests) {
      expect(estimateRequestTokens(request.messages as ChatMessage[])).toBeLessThanOrEqual(WINDOW - replyReserve(WINDOW));
    }
    expect(llm.counted.calls).toBeGreaterThanOrEqual(ACTIONS + 1);
    expect(task.usage).toMatchObject({ promptTokens: llm.counted.promptTokens, completionTokens: llm.counted.completionTokens, calls: llm.counted.calls });
  }, 300_000);
});
