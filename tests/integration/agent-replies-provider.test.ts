// Reply formats through the real services against an OpenAI-compatible server speaking the real protocol
// (streaming SSE): run_code tool calls run as actions and go back as tool messages; reasoning the provider
// streams apart (reasoning_content) is kept with the reply, folded in the app, and never sent back.
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type AppServices } from '../../main/services/app-services';
import { startFaultServer, type FaultServer, type Step } from '../support/fault-openai-server';
import { tempDirs } from '../support/temp-dir';

let services: AppServices | null = null;
let server: FaultServer | null = null;
const dirs = tempDirs();

afterEach(async () => {
  await services?.close();
  await server?.close();
  services = null;
  server = null;
  dirs.cleanup();
});

async function start(steps: Step[], env: Record<string, string> = {}) {
  server = await startFaultServer(steps);
  services = createServices({ dataDir: dirs.make('posthoc-data-'), env: { OPENAI_BASE_URL: server.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '1', ...env } });
  return { services, server, workspace: dirs.workspace() };
}

describe('reply formats against a provider', () => {
  it('runs run_code tool calls as actions and sends each result back as a tool message', async () => {
    const { services, server, workspace } = await start(
      [
        { text: 'Listing.', toolCalls: [{ id: 'call_a', arguments: JSON.stringify({ language: 'python', code: "print('via the tool')" }) }] },
        { text: 'Done through the tool.' },
      ],
      { POSTHOC_PROTOCOL: 'tools' },
    );
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'print something', workspaces: [workspace] })).id);
    expect(task).toMatchObject({ status: 'done', answer: 'Done through the tool.' });
    const [action] = services.tasks.get(task.id).actions;
    expect(action).toMatchObject({ language: 'python', status: 'done', output: { stdout: 'via the tool\n' } });
    expect(server.requests[0]!.tools?.length).toBe(1);
    const second = server.requests[1]!.messages;
    const assistant = second.find((m) => m.role === 'assistant')!;
    expect(assistant.tool_calls).toHaveLength(1);
    const tool = second.find((m) => m.role === 'tool')!;
    expect(tool.tool_call_id).toBe('call_a');
    expect(tool.content).toMatch(/^Observation for action 1 \(python\): exit code 0\nstdout:\nvia the tool/);
  });

  it('keeps streamed reasoning with the reply, never runs it, never sends it back', async () => {
    const { services, server, workspace } = await start([
      { reasoning: 'I should print one.\n```python\nraise SystemExit(9)\n```', text: '```python\nprint(1)\n```' },
      { text: 'It printed 1.' },
    ]);
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'print 1', workspaces: [workspace] })).id);
    expect(task).toMatchObject({ status: 'done', answer: 'It printed 1.' });
    const detail = services.tasks.get(task.id);
    expect(detail.actions.map((a) => a.source)).toEqual(['print(1)']);
    const reply = detail.messages.find((m) => m.role === 'assistant')!;
    expect(reply.content).toBe('<think>\nI should print one.\n```python\nraise SystemExit(9)\n```\n</think>\n\n```python\nprint(1)\n```');
    const sentBack = server.requests[1]!.messages.filter((m) => m.role === 'assistant').map((m) => m.content);
    expect(sentBack).toEqual(['```python\nprint(1)\n```']);
  });

  it('a CodeAct model answering in <execute> tags runs its code (no longer ends done with 0 actions)', async () => {
    const { services, workspace } = await start([{ text: '<execute>\nprint(6 * 7)\n</execute>' }, { text: 'The answer is <solution> 42 </solution>.' }]);
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'what is 6*7', workspaces: [workspace] })).id);
    expect(task.status).toBe('done');
    expect(services.tasks.get(task.id).actions.map((a) => a.output.stdout)).toEqual(['42\n']);
  });
});
