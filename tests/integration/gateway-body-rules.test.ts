// Body rules decide on the body the service will read. With a rule allowing only channel=C1, each way a
// red team slipped channel=C2 past it (issue 23) is refused and the service — a real local HTTP server
// on 127.0.0.1 — receives nothing; bodies that keep the rule still go through byte for byte.
import { request, createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { gzipSync, brotliCompressSync, deflateRawSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Effect, RestEffect, Task } from '../../shared/domain';
import { Gateway } from '../../main/gateway/gateway';
import { ServiceCaller } from '../../main/gateway/service-caller';
import { ServiceRegistry } from '../../main/gateway/service-registry';
import { serviceRoute } from '../../main/gateway/service-route';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { tempDirs } from '../support/temp-dir';

type Received = { url: string; headers: IncomingHttpHeaders; body: Buffer };

const dirs = tempDirs();
const task: Task = {
  id: 'task-body-rules', title: 't', status: 'running', workspaces: [], services: ['slack'], model: 'm', answer: null, error: null,
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
};
let db: AppDatabase;
let upstream: Server;
let received: Received[];
let gateway: Gateway;
let socketPath: string;

beforeEach(async () => {
  db = openDatabase(dirs.make());
  received = [];
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const registry = new ServiceRegistry(db);
  registry.add({
    name: 'slack',
    baseUrl: `http://127.0.0.1:${(upstream.address() as { port: number }).port}/api`,
    rules: { body: [{ method: 'POST', path: '/chat.postMessage', field: 'channel', oneOf: ['C1'] }] },
  });
  gateway = new Gateway(dirs.make('posthoc-gw-'), (id) => (id === task.id ? task : undefined));
  gateway.route('svc', serviceRoute(registry, { caller: new ServiceCaller({ secret: async () => null, oauthToken: async () => 'unused' }) }));
  socketPath = `${(await gateway.open(task.id)).dir}/gateway.sock`;
  gateway.beginAction(task.id, 'action-1');
});

afterEach(async () => {
  await gateway.closeAll();
  upstream.closeAllConnections();
  await new Promise<void>((r) => upstream.close(() => r()));
  db.close();
  dirs.cleanup();
});

/** A POST through the gateway's socket with exactly these bytes and headers (no type unless given). */
function post(path: string, body: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; error: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let error = '';
        try {
          error = String((JSON.parse(text) as { error?: unknown }).error ?? '');
        } catch {
          error = text;
        }
        resolve({ status: res.statusCode ?? 0, error });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const rest = (effects: Effect[]) => effects.filter((e): e is RestEffect => e.channel === 'rest');
const BOUNDARY = '----posthoc-test-boundary-7MA4YWxkTrZu0gW';
function multipart(fields: Array<[string, string]>): Buffer {
  return Buffer.from(fields.map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') + `--${BOUNDARY}--\r\n`);
}
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const utf16 = (text: string, bom: boolean) => Buffer.concat([Buffer.from(bom ? [0xff, 0xfe] : []), Buffer.from(text, 'utf16le')]);

/** The call is refused, says why, and nothing reached the service; the effect records the refusal. */
async function expectRefused(answer: Promise<{ status: number; error: string }>, why: RegExp): Promise<void> {
  const { status, error } = await answer;
  expect(status).toBeGreaterThanOrEqual(400);
  expect(error).toMatch(why);
  expect(error).toMatch(/not sent/);
  expect(received).toEqual([]);
  const [effect] = rest(gateway.endAction(task.id));
  expect(effect!.refused).toBe(error);
  gateway.beginAction(task.id, 'action-next');
}

describe('each bypass of the red team, refused before anything leaves', () => {
  it('1: channel=C1 in the query, channel=C2 in a multipart form', async () => {
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', multipart([['channel', 'C2'], ['text', 'hi']]), { 'content-type': MULTIPART }), /"channel" may only be C1; it was "C2"/);
  });

  it('2: JSON behind a UTF-8 byte-order mark', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"channel":"C2","text":"hi"}')]);
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', body, { 'content-type': 'application/json' }), /it was "C2"/);
  });

  it('3: JSON in UTF-16, with a byte-order mark and without one', async () => {
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', utf16('{"channel":"C2"}', true), { 'content-type': 'application/json' }), /it was "C2"/);
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', utf16('{"channel":"C2"}', false), { 'content-type': 'application/json' }), /it was "C2"/);
  });

  it('4: gzip-encoded JSON (and deflate, raw deflate, brotli)', async () => {
    const json = Buffer.from('{"channel":"C2"}');
    for (const [coding, bytes] of [['gzip', gzipSync(json)], ['deflate', deflateRawSync(json)], ['br', brotliCompressSync(json)]] as const) {
      await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', bytes, { 'content-type': 'application/json', 'content-encoding': coding }), /it was "C2"/);
    }
  });

  it('5: Content-Type: text/json', async () => {
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', Buffer.from('{"channel":"C2"}'), { 'content-type': 'text/json' }), /it was "C2"/);
  });

  it('6: a form with no Content-Type', async () => {
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', Buffer.from('channel=C2&text=hi')), /has no Content-Type; send it with Content-Type: application\/json, application\/x-www-form-urlencoded or multipart\/form-data/);
  });

  it('7: a form with the wrong Content-Type (JSON, text/plain), and JSON declared a form', async () => {
    const form = Buffer.from('channel=C2&text=hi');
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', form, { 'content-type': 'application/json' }), /declared application\/json but is not valid JSON/);
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', form, { 'content-type': 'text/plain' }), /Content-Type is text\/plain, which the gateway does not read/);
    await expectRefused(
      post('/svc/slack/chat.postMessage?channel=C1', Buffer.from('{"channel":"C2"}'), { 'content-type': 'application/x-www-form-urlencoded' }),
      /declared a form .* but is JSON.*send it with Content-Type: application\/json/,
    );
  });

  it('8: channel[]=C2, channel[0]=C2 and a[b]-style keys count as values of channel', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', Buffer.from('channel%5B%5D=C2'), form), /it was "C2"/);
    await expectRefused(post('/svc/slack/chat.postMessage', Buffer.from('channel=C1&channel[0]=C2'), form), /it was "C2"/);
    await expectRefused(post('/svc/slack/chat.postMessage?channel[x]=C1', Buffer.from('channel=C1'), form), /it was \{"x":"C1"\}/);
    await expectRefused(post('/svc/slack/chat.postMessage?channel=C1', multipart([['channel[]', 'C2']]), { 'content-type': MULTIPART }), /it was "C2"/);
  });
});

describe('bodies that keep the rule', () => {
  const cases: Array<[string, Buffer, Record<string, string>]> = [
    ['JSON', Buffer.from('{"channel":"C1","text":"hi"}'), { 'content-type': 'application/json; charset=utf-8' }],
    ['a form', Buffer.from('channel=C1&text=hi+there'), { 'content-type': 'application/x-www-form-urlencoded' }],
    ['multipart', multipart([['channel', 'C1'], ['text', 'hi']]), { 'content-type': MULTIPART }],
    ['gzip-encoded JSON', gzipSync(Buffer.from('{"channel":"C1"}')), { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
    ['UTF-16 JSON with its mark', utf16('{"channel":"C1"}', true), { 'content-type': 'application/json' }],
    ['vendor JSON', Buffer.from('{"channel":"C1"}'), { 'content-type': 'application/vnd.slack+json' }],
  ];
  it.each(cases)('go through unchanged: %s', async (_what, body, headers) => {
    const answer = await post('/svc/slack/chat.postMessage', body, headers);
    expect(answer.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]!.body.equals(body)).toBe(true);
    expect(received[0]!.headers['content-type']).toBe(headers['content-type']);
    expect(received[0]!.headers['content-encoding']).toBe(headers['content-encoding']);
    expect(rest(gateway.endAction(task.id))[0]!.refused).toBeNull();
  });

  it('a real multipart body built by FormData, with a file part', async () => {
    const form = new FormData();
    form.append('channel', 'C1');
    form.append('file', new Blob(['col\n1\n'], { type: 'text/csv' }), 'data.csv');
    const built = new Request('http://x/', { method: 'POST', body: form });
    const body = Buffer.from(await built.arrayBuffer());
    const answer = await post('/svc/slack/chat.postMessage', body, { 'content-type': built.headers.get('content-type')! });
    expect(answer.status).toBe(200);
    expect(received[0]!.body.equals(body)).toBe(true);
  });

  it('a call the rule does not look at goes as it came, whatever its body', async () => {
    const body = Buffer.from('channel=C2 in plain words');
    const answer = await post('/svc/slack/files.upload', body, { 'content-type': 'text/plain' });
    expect(answer.status).toBe(200);
    expect(received[0]!.body.equals(body)).toBe(true);
  });
});
