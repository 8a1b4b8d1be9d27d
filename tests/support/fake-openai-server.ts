// A local OpenAI-compatible server that replays scripted replies, streaming (SSE) or not, and records
// every request it receives. It stands in for the LLM provider, the one thing outside the machine.
// Run by hand: node tests/support/fake-openai-server.ts replies.json  (prints its base URL)
import { createServer, type IncomingMessage, type Server } from 'node:http';

export type ChatRequest = { model: string; stream?: boolean; messages: Array<{ role: string; content: string }> };
export type Reply = string | ((request: ChatRequest) => string);

export type FakeOpenAi = {
  baseUrl: string;
  requests: ChatRequest[];
  /** Replies not yet used. */
  remaining(): number;
  close(): Promise<void>;
};

/** `slowFrom`: streamed replies from this one on (0-based) wait `chunkDelayMs` between chunks, as a slow model does. */
export async function startFakeOpenAi(replies: Reply[], options: { port?: number; chunkSize?: number; chunkDelayMs?: number; slowFrom?: number } = {}): Promise<FakeOpenAi> {
  const queue = [...replies];
  const requests: ChatRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      if (req.method === 'GET' && /\/models$/.test(path)) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
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
      const text = typeof next === 'function' ? next(body) : next;
      const id = `chatcmpl-${requests.length}`;
      const created = Math.floor(Date.now() / 1000);
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id,
            object: 'chat.completion',
            created,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
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
      for (let i = 0; i < text.length; i += size) {
        res.write(chunk({ content: text.slice(i, i + size) }, null));
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      }
      res.write(chunk({}, 'stop'));
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
  const replies = JSON.parse(readFileSync(file, 'utf8')) as string[];
  const fake = await startFakeOpenAi(replies, { port: Number(process.argv[3] ?? 0) });
  process.stdout.write(`${fake.baseUrl}\n`);
}
