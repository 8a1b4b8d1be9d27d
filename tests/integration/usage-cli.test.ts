// `posthoc run` (the built CLI) against the fault-injecting provider: the --json task line carries the
// usage the provider counted, and --budget stops the task, saying so.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../support/fake-openai-server';
import { startFaultServer, type FaultServer, type Step } from '../support/fault-openai-server';
import { assertCliBuilt, jsonLines, runPosthoc } from '../support/posthoc-cli';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let server: FaultServer | null = null;
beforeAll(assertCliBuilt);
afterEach(async () => {
  await server?.close();
  server = null;
  dirs.cleanup();
});

const code = (n: number) => `Step ${n}.\n\`\`\`bash\necho step ${n}\n\`\`\``;

async function run(steps: Step[], args: string[], model = 'scripted') {
  server = await startFaultServer(steps);
  return runPosthoc(['run', 'do the steps', '--workspace', dirs.workspace(), '--data-dir', dirs.make('posthoc-data-'), ...args], {
    OPENAI_BASE_URL: server.baseUrl,
    POSTHOC_MODEL: model,
  });
}

describe('posthoc run: tokens and cost', () => {
  it('--json reports the usage totals the provider counted, through a 500 and a cut stream', async () => {
    const result = await run(
      [
        { text: code(1), usage: { prompt: 311, completion: 17 } },
        { status: 500 },
        { cutAfter: 9, text: code(2) },
        { text: code(2), usage: { prompt: 402, completion: 18 } },
        { text: 'Done.', usage: { prompt: 515, completion: 2 } },
      ],
      ['--json'],
      'gpt-4.1-mini',
    );
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    const task = lines.at(-1)!.task;
    expect(task.status).toBe('done');
    expect(server!.counted).toEqual({ promptTokens: 1228, completionTokens: 37, calls: 3 });
    expect(task.usage).toMatchObject(server!.counted);
    // gpt-4.1-mini: $0.40 per 1M prompt tokens, $1.60 per 1M completion tokens.
    expect(task.usage.costUsd).toBeCloseTo((1228 * 0.4 + 37 * 1.6) / 1e6, 12);
    const actions = lines.filter((l) => l.type === 'action').map((l) => l.action);
    expect(actions.map((a) => a.usage.promptTokens)).toEqual([311, 402]);
  });

  it('counts every call of a provider that streams no usage, its tokens estimated and marked so', async () => {
    const fake = await startFakeOpenAi([code(1), 'Done.']);
    try {
      const result = await runPosthoc(['run', 'do the steps', '--workspace', dirs.workspace(), '--data-dir', dirs.make('posthoc-data-')], {
        OPENAI_BASE_URL: fake.baseUrl,
        POSTHOC_MODEL: 'scripted',
      });
      expect(result.code).toBe(0);
      expect(fake.requests).toHaveLength(2);
      expect(result.stdout).toMatch(/^task \S+ · ~[\d,]+ in \/ ~\d+ out tokens \(estimated: the provider reported no usage\) · 2 calls$/m);
    } finally {
      await fake.close();
    }
  });

  it('--json gives costUsd null for a model without a price', async () => {
    const result = await run([{ text: 'Nothing to do.', usage: { prompt: 50, completion: 4 } }], ['--json']);
    expect(jsonLines(result.stdout).at(-1)!.task.usage).toEqual({ promptTokens: 50, completionTokens: 4, calls: 1, costUsd: null });
  });

  it('--budget stops the task when its tokens are spent (exit 1, the message says so)', async () => {
    const steps: Step[] = [1, 2, 3, 4].map((n) => ({ text: code(n), usage: { prompt: 1000, completion: 100 } }));
    const result = await run(steps, ['--budget', '2k', '--json']);
    expect(result.code).toBe(1);
    const task = jsonLines(result.stdout).at(-1)!.task;
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/budget of 2,000 tokens is reached \(2,200 tokens used over 2 model calls\)/);
    expect(task.usage).toMatchObject({ promptTokens: 2000, completionTokens: 200, calls: 2 });
    expect(server!.requests).toHaveLength(2);
  });

  it('--budget in dollars stops a priced model at its cost; an unreadable budget exits 2', async () => {
    const steps: Step[] = [1, 2, 3].map((n) => ({ text: code(n), usage: { prompt: 100_000, completion: 10_000 } }));
    // gpt-4o: 100k prompt + 10k completion tokens = $0.35 a call.
    const result = await run(steps, ['--budget', '$0.50', '--json'], 'gpt-4o');
    const task = jsonLines(result.stdout).at(-1)!.task;
    expect(task.error).toMatch(/budget of \$0\.50 is reached \(\$0\.7000 spent over 2 model calls\)/);
    await server!.close();
    const bad = await run([], ['--budget', 'plenty']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--budget plenty is neither tokens/);
  });

  it('--provider names a saved provider; an unknown one exits 2, saying so', async () => {
    const result = await run([], ['--provider', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/No saved provider nope/);
  });
});
