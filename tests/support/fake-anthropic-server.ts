// A local stand-in for Anthropic's Messages API (127.0.0.1 only), as its documentation describes the
// protocol: POST /v1/messages with the key (x-api-key, or a bearer token) and anthropic-version, answered as JSON or as server-sent
// events (message_start with the input usage, content_block_start/delta/stop for text, thinking and tool_use
// with its input streamed as input_json_delta, message_delta with the stop reason and the output usage,
// message_stop); GET /v1/models, one page at a time (limit, after_id, has_more, last_id); errors as
// {"type": "error", "error": {"type", "message"}} with their status (401, 404, 429 with retry-after, 529).
import { createServer, type IncomingMessage, type Server } from 'node:http';

export type AnthropicRequest = {
  model: string;
  max_tokens: number;
  stream?: boolean;
  system?: string;
  tools?: Array<{ name: string; description: string; input_schema: object }>;
  messages: Array<{ role: 'user' | 'assistant'; content: string | Array<Record<string, unknown>> }>;
};

export type AnthropicTurn = {
  text?: string;
  thinking?: string;
  toolUses?: Array<{ id?: string; name: string; input: object }>;
  stopReason?: string;
  /** Tokens to report; `false` reports none (usage left out of the events), as a proxy that drops it might. */
  usage?: { input: number; output: number } | false;
  /** The stream stops after this many characters of text, with no message_delta: a cut connection. */
  cutAfter?: number;
};
export type AnthropicFault = { status: number; type: string; message: string; headers?: Record<string, string> };
export type AnthropicScript = AnthropicTurn | AnthropicFault | ((request: AnthropicRequest) => AnthropicTurn | AnthropicFault);

export type FakeAnthropic = {
  /** The base URL as the SDK takes it (no /v1). */
  baseUrl: string;
  requests: AnthropicRequest[];
  headers: Array<Record<string, string | string[] | undefined>>;
  modelPages: number;
  remaining(): number;
  close(): Promise<void>;
};

const isFault = (s: AnthropicTurn | AnthropicFault): s is AnthropicFault => 'status' in s;

export async function startFakeAnthropic(
  script: AnthropicScript[],
  options: { apiKey?: string; models?: string[]; pageSize?: number; chunkSize?: number } = {},
): Promise<FakeAnthropic> {
  const queue = [...script];
  const requests: AnthropicRequest[] = [];
  const headers: FakeAnthropic['headers'] = [];
  const key = options.apiKey ?? 'sk-ant-test';
  const models = options.models ?? ['claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929'];
  let modelPages = 0;
  const error = (res: import('node:http').ServerResponse, status: number, type: string, message: string, extra: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${requests.length}`, ...extra }).end(JSON.stringify({ type: 'error', error: { type, message } }));

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      headers.push(req.headers);
      // The key as x-api-key, or as a bearer token (how the current SDK sends an API key).
      if (req.headers['x-api-key'] !== key && req.headers.authorization !== `Bearer ${key}`) return error(res, 401, 'authentication_error', 'invalid x-api-key');
      if (!req.headers['anthropic-version']) return error(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
      if (req.method === 'GET' && url.pathname === '/v1/models') {
        modelPages++;
        const size = options.pageSize ?? 20;
        const after = url.searchParams.get('after_id');
        const from = after ? models.indexOf(after) + 1 : 0;
        const page = models.slice(from, from + size);
        const data = page.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-10-01T00:00:00Z' }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ data, has_more: from + size < models.length, first_id: page[0] ?? null, last_id: page.at(-1) ?? null }),
        );
        return;
      }
      if (req.method !== 'POST' || url.pathname !== '/v1/messages') return error(res, 404, 'not_found_error', `No route ${req.method} ${url.pathname}`);
      const body = JSON.parse(await readBody(req)) as AnthropicRequest;
      requests.push(body);
      if (typeof body.max_tokens !== 'number') return error(res, 400, 'invalid_request_error', 'max_tokens: Field required');
      if (body.messages[0]?.role !== 'user') return error(res, 400, 'invalid_request_error', 'messages: first message must use the "user" role');
      if (!models.includes(body.model) && !models.some((m) => m.startsWith(`${body.model}-`))) return error(res, 404, 'not_found_error', `model: ${body.model}`);
      const next = queue.shift();
      if (next === undefined) return error(res, 500, 'api_error', 'The scripted replies ran out.');
      const turn = typeof next === 'function' ? next(body) : next;
      if (isFault(turn)) return error(res, turn.status, turn.type, turn.message, turn.headers);
      const id = `msg_${requests.length}`;
      const uses = (turn.toolUses ?? []).map((u, i) => ({ type: 'tool_use', id: u.id ?? `toolu_${requests.length}_${i}`, name: u.name, input: u.input }));
      const stopReason = turn.stopReason ?? (uses.length > 0 ? 'tool_use' : 'end_turn');
      const usage = turn.usage === false ? null : (turn.usage ?? { input: 10, output: 5 });
      if (!body.stream) {
        const content = [
          ...(turn.thinking ? [{ type: 'thinking', thinking: turn.thinking, signature: 'sig' }] : []),
          ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
          ...uses,
        ];
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id,
            type: 'message',
            role: 'assistant',
            model: body.model,
            content,
            stop_reason: stopReason,
            stop_sequence: null,
            usage: usage ? { input_tokens: usage.input, output_tokens: usage.output } : { input_tokens: 0, output_tokens: 0 },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (event: string, data: object) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
      const size = options.chunkSize ?? 12;
      send('message_start', {
        message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, ...(usage ? { usage: { input_tokens: usage.input, output_tokens: 1 } } : {}) },
      });
      let index = 0;
      if (turn.thinking) {
        send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: turn.thinking } });
        send('content_block_stop', { index });
        index++;
      }
      if (turn.text) {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        const text = turn.cutAfter !== undefined ? turn.text.slice(0, turn.cutAfter) : turn.text;
        for (let i = 0; i < text.length; i += size) send('content_block_delta', { index, delta: { type: 'text_delta', text: text.slice(i, i + size) } });
        if (turn.cutAfter !== undefined) {
          res.end();
          return;
        }
        send('content_block_stop', { index });
        index++;
      }
      for (const use of uses) {
        send('content_block_start', { index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } });
        const json = JSON.stringify(use.input);
        for (let i = 0; i < json.length; i += size) send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + size) } });
        send('content_block_stop', { index });
        index++;
      }
      send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, ...(usage ? { usage: { output_tokens: usage.output } } : {}) });
      send('message_stop', {});
      res.end();
    })().catch((e: unknown) => {
      res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    headers,
    get modelPages() {
      return modelPages;
    },
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
