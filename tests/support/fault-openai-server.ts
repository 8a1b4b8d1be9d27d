// A local OpenAI-compatible server (bound to 127.0.0.1) that plays a script of steps, each one answer to one
// POST /chat/completions: a reply (streamed as SSE or not, as the request asks; reasoning, tool calls,
// any finish_reason), or a fault — an HTTP error with its body and headers (429 with Retry-After, 500,
// 401, 404 model_not_found, 400 context_length_exceeded), a connection reset before any byte, or a stream
// cut after part of the reply. It counts the usage it reports (in the last streamed chunk only, and only
// when the request asks with stream_options.include_usage), so tests compare totals with what it counted.
import { createServer, type IncomingMessage, type Server } from 'node:http';

export type FaultRequest = {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown[];
  messages: Array<{ role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
};

export type ReplyStep = {
  text?: string;
  reasoning?: string;
  toolCalls?: Array<{ id?: string; name?: string; arguments: string }>;
  finish?: string;
  /** Reported usage; by default prompt = characters of the request's messages / 4, completion = characters of the reply / 4 (rounded up); false: none reported, as some servers and proxies do. */
  usage?: { prompt: number; completion: number } | false;
};

export type FaultStep =
  | ReplyStep
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { reset: true }
  /** Streams this many characters of the reply, then destroys the connection (no finish reason, no [DONE]). */
  | { cutAfter: number; text: string };

export type Step = FaultStep | ((request: FaultRequest) => FaultStep);

export type FaultServer = {
  baseUrl: string;
  requests: FaultRequest[];
  /** What it reported as usage, summed (only the calls that reported it). */
  counted: { promptTokens: number; completionTokens: number; calls: number };
  remaining(): number;
  close(): Promise<void>;
};

/** `apiKey`: every request without "Authorization: Bearer <apiKey>" gets OpenAI's 401. */
export async function startFaultServer(steps: Step[], options: { chunkSize?: number; models?: string[]; apiKey?: string } = {}): Promise<FaultServer> {
  const queue = [...steps];
  const requests: FaultRequest[] = [];
  const counted = { promptTokens: 0, completionTokens: 0, calls: 0 };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } }));
        return;
      }
      if (req.method === 'GET' && /\/models$/.test(path)) {
        const data = (options.models ?? ['scripted']).map((id) => ({ id, object: 'model', created: 0, owned_by: 'test' }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
        return;
      }
      if (req.method !== 'POST' || !/\/chat\/completions$/.test(path)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `No route ${req.method} ${path}` } }));
        return;
      }
      const body = JSON.parse(await readBody(req)) as FaultRequest;
      requests.push(body);
      const next = queue.shift();
      if (next === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'The scripted steps ran out.' } }));
        return;
      }
      const step = typeof next === 'function' ? next(body) : next;
      if ('reset' in step) {
        req.socket.destroy();
        return;
      }
      if ('status' in step) {
        res.writeHead(step.status, { 'content-type': 'application/json', ...(step.headers ?? {}) });
        res.end(JSON.stringify(step.body ?? { error: { message: `Scripted ${step.status}`, type: 'server_error', code: null } }));
        return;
      }
      const id = `chatcmpl-${requests.length}`;
      const created = Math.floor(Date.now() / 1000);
      const chunk = (choices: object[], extra: object = {}) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra })}\n\n`;
      const size = options.chunkSize ?? 16;
      if ('cutAfter' in step) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
        const part = step.text.slice(0, step.cutAfter);
        for (let i = 0; i < part.length; i += size) res.write(chunk([{ index: 0, delta: { content: part.slice(i, i + size) }, finish_reason: null }]));
        await new Promise((r) => setTimeout(r, 20));
        req.socket.destroy();
        return;
      }
      const text = step.text ?? '';
      const finish = step.finish ?? (step.toolCalls?.length ? 'tool_calls' : 'stop');
      const promptChars = body.messages.reduce((n, m) => n + (m.content ?? '').length, 0);
      const reports = step.usage !== false;
      const usage = (step.usage || undefined) ?? { prompt: Math.ceil(promptChars / 4), completion: Math.ceil((text.length + (step.reasoning ?? '').length) / 4) };
      const wireUsage = { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion };
      const toolCalls = (step.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `call_${requests.length}_${i}`, type: 'function', function: { name: c.name ?? 'run_code', arguments: c.arguments } }));
      if (!body.stream) {
        if (reports) {
          counted.promptTokens += usage.prompt;
          counted.completionTokens += usage.completion;
          counted.calls++;
        }
        const message: Record<string, unknown> = { role: 'assistant', content: text };
        if (step.reasoning) message.reasoning_content = step.reasoning;
        if (toolCalls.length) message.tool_calls = toolCalls;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: finish }], ...(reports ? { usage: wireUsage } : {}) }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
      const reasoning = step.reasoning ?? '';
      for (let i = 0; i < reasoning.length; i += size) res.write(chunk([{ index: 0, delta: { reasoning_content: reasoning.slice(i, i + size) }, finish_reason: null }]));
      for (let i = 0; i < text.length; i += size) res.write(chunk([{ index: 0, delta: { content: text.slice(i, i + size) }, finish_reason: null }]));
      toolCalls.forEach((c, index) => {
        // As OpenAI streams them: the id and name first, then the arguments in pieces.
        res.write(chunk([{ index: 0, delta: { tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }, finish_reason: null }]));
        const args = c.function.arguments;
        for (let i = 0; i < args.length; i += size) {
          res.write(chunk([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: args.slice(i, i + size) } }] }, finish_reason: null }]));
        }
      });
      res.write(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
      if (body.stream_options?.include_usage && reports) {
        counted.promptTokens += usage.prompt;
        counted.completionTokens += usage.completion;
        counted.calls++;
        res.write(chunk([], { usage: wireUsage }));
      }
      res.end('data: [DONE]\n\n');
    })().catch((error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    counted,
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
