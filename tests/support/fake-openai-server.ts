// A local OpenAI-compatible server that replays scripted replies, streaming (SSE) or not, and records
// every request it receives. It stands in for the LLM provider, the one thing outside the machine.
// A scripted reply is its text, or a turn with reasoning (reasoning_content, as DeepSeek and vLLM send it)
// and tool calls (run_code, as the tools protocol asks for them):
//   {"content": "Listing.", "reasoning_content": "I should look first.",
//    "tool_calls": [{"name": "run_code", "arguments": {"language": "bash", "code": "ls"}}]}
// Run by hand: node tests/support/fake-openai-server.ts replies.json [PORT]  (prints its base URL)
import { createServer, type IncomingMessage, type Server } from 'node:http';

export type ChatRequest = { model: string; stream?: boolean; messages: Array<{ role: string; content: string }> };
/** One scripted turn: text, reasoning sent apart, tool calls (arguments as an object or as the JSON string). */
export type ScriptedTurn = { content?: string; reasoning_content?: string; tool_calls?: Array<{ id?: string; name: string; arguments: string | object }> };
export type Reply = string | ScriptedTurn | ((request: ChatRequest) => string | ScriptedTurn);

export type FakeOpenAi = {
  baseUrl: string;
  requests: ChatRequest[];
  /** Replies not yet used. */
  remaining(): number;
  close(): Promise<void>;
};

/** `slowFrom`: streamed replies from this one on (0-based) wait `chunkDelayMs` between chunks, as a slow model does. */
/** `models`: what GET /models lists (default: scripted). Streamed replies carry no usage, as some servers send none. */
export async function startFakeOpenAi(
  replies: Reply[],
  options: { port?: number; chunkSize?: number; chunkDelayMs?: number; slowFrom?: number; models?: string[] } = {},
): Promise<FakeOpenAi> {
  const queue = [...replies];
  const requests: ChatRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      if (req.method === 'GET' && /\/models$/.test(path)) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: (options.models ?? ['scripted']).map((id) => ({ id, object: 'model' })) }));
        return;
      }
      if (req.method !== 'POST' || !/\/chat\/completions$/.test(path)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `No route ${req.method} ${path}` } }));
        return;
      }
      const body = JSON.parse(await readBody(req)) as ChatRequest;
      requests.push(body);
      const next = queue.shift();
      if (next === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'The scripted replies ran out.' } }));
        return;
      }
      const turn = asTurn(typeof next === 'function' ? next(body) : next);
      const text = turn.content ?? '';
      const reasoning = turn.reasoning_content ?? '';
      const calls = (turn.tool_calls ?? []).map((c, i) => ({
        id: c.id ?? `call_${requests.length}_${i}`,
        type: 'function' as const,
        function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
      }));
      const finishReason = calls.length > 0 ? 'tool_calls' : 'stop';
      const id = `chatcmpl-${requests.length}`;
      const created = Math.floor(Date.now() / 1000);
      if (!body.stream) {
        const message = { role: 'assistant', content: text, ...(reasoning ? { reasoning_content: reasoning } : {}), ...(calls.length ? { tool_calls: calls } : {}) };
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id,
            object: 'chat.completion',
            created,
            model: body.model,
            choices: [{ index: 0, message, finish_reason: finishReason }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const size = options.chunkSize ?? 16;
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }, null));
      const delay = options.chunkDelayMs !== undefined && requests.length - 1 >= (options.slowFrom ?? 0) ? options.chunkDelayMs : 0;
      for (let i = 0; i < reasoning.length; i += size) res.write(chunk({ reasoning_content: reasoning.slice(i, i + size) }, null));
      for (let i = 0; i < text.length; i += size) {
        res.write(chunk({ content: text.slice(i, i + size) }, null));
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      }
      calls.forEach((call, index) => {
        // As providers stream them: the id and name first, then the arguments in pieces.
        res.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, null));
        const args = call.function.arguments;
        for (let i = 0; i < args.length; i += size) res.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(i, i + size) } }] }, null));
      });
      res.write(chunk({}, finishReason));
      res.end('data: [DONE]\n\n');
    })().catch((error) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function asTurn(reply: string | ScriptedTurn): ScriptedTurn {
  return typeof reply === 'string' ? { content: reply } : reply;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (data += c));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { readFileSync } = await import('node:fs');
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node tests/support/fake-openai-server.ts REPLIES.json [PORT]\n');
    process.exit(2);
  }
  const replies = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const valid = (r: unknown) =>
    typeof r === 'string' ||
    (typeof r === 'object' && r !== null && !Array.isArray(r) && Object.keys(r).every((k) => ['content', 'reasoning_content', 'tool_calls'].includes(k)));
  if (!Array.isArray(replies) || !replies.every(valid)) {
    process.stderr.write(
      `${file}: expected a JSON list of replies, each a string or {"content", "reasoning_content", "tool_calls": [{"name": "run_code", "arguments": {"language": "python", "code": "..."}}]}\n`,
    );
    process.exit(2);
  }
  const fake = await startFakeOpenAi(replies as Reply[], { port: Number(process.argv[3] ?? 0) });
  process.stdout.write(`${fake.baseUrl}\n`);
}
