// The web host: the contract over a WebSocket on 127.0.0.1, guarded by the per-launch token and the Origin.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startWebHost, type WebHost } from '../../main/ipc/web-host';
import { createServices, type AppServices } from '../../main/services/app-services';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let services: AppServices;
let host: WebHost;
let rendererDir: string;

beforeAll(async () => {
  rendererDir = dirs.make('posthoc-renderer-');
  mkdirSync(join(rendererDir, 'assets'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Posthoc</title>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(rendererDir, 'assets', 'app.css'), 'body{}');
  writeFileSync(join(dirs.make('posthoc-secret-'), 'secret.txt'), 'nope');
  // A sibling whose name starts with the renderer folder's: a prefix test without the separator would let it out.
  mkdirSync(`${rendererDir}-evil`);
  writeFileSync(join(`${rendererDir}-evil`, 'secret.txt'), 'nope');
  services = createServices({ dataDir: dirs.make('posthoc-data-'), env: {} });
  host = await startWebHost(services, { rendererDir });
});
afterAll(async () => {
  await host.close();
  await services.close();
  rmSync(`${rendererDir}-evil`, { recursive: true, force: true });
  dirs.cleanup();
});

/** A GET whose path is sent as written (fetch would fold its '..' segments first). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function connect(path: string, origin?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}${path}`, { headers: origin ? { origin } : {} });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function call(ws: WebSocket, id: number, name: string, input: unknown): Promise<any> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const frame = JSON.parse(data.toString());
      if (frame.kind === 'result' && frame.id === id) {
        ws.off('message', onMessage);
        resolve(frame.result);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, call: name, input }));
  });
}

describe('web host', () => {
  it('binds 127.0.0.1 and prints a URL with a long random token', () => {
    expect(host.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/\\?token=[A-Za-z0-9_-]{32}$`));
  });

  it('serves the renderer with a CSP, and nothing outside its folder', async () => {
    const page = await fetch(`http://127.0.0.1:${host.port}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<title>Posthoc</title>');
    expect((await fetch(`http://127.0.0.1:${host.port}/assets/app.js`)).headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`http://127.0.0.1:${host.port}/..%2f..%2fetc%2fpasswd`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${host.port}/%2e%2e/%2e%2e/etc/passwd`)).status).toBe(404);
  });

  it('serves index.html for / with the token, the app:// content types, and a plain 404 for anything else', async () => {
    const page = await fetch(host.url);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect((await fetch(`http://127.0.0.1:${host.port}/assets/app.js`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`http://127.0.0.1:${host.port}/assets/app.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const missing = await fetch(`http://127.0.0.1:${host.port}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/plain');
    expect(await missing.text()).toBe('Not found');
    expect((await fetch(`http://127.0.0.1:${host.port}/assets`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${host.port}/assets/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${host.port}/index`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${host.port}/%E0%A4%A`)).status).toBe(404);
  });

  it('answers a path that climbs out of the renderer folder, however spelt, with 404', async () => {
    const sibling = `${basename(rendererDir)}-evil`;
    for (const path of [
      `/../${sibling}/secret.txt`,
      `/assets/../../${sibling}/secret.txt`,
      `/%2e%2e/${sibling}/secret.txt`,
      `/..%2f${sibling}%2fsecret.txt`,
      `/..%5c${sibling}%5csecret.txt`,
      '/../../../../../../etc/passwd',
      '//etc/passwd',
    ]) {
      expect(await rawGet(path), path).toEqual({ status: 404, body: 'Not found' });
    }
    expect(await rawGet('/assets/../index.html')).toMatchObject({ status: 200, body: expect.stringContaining('<title>Posthoc</title>') });
  });

  it('refuses a WebSocket without the token, with a wrong token, or from another origin', async () => {
    const origin = `http://127.0.0.1:${host.port}`;
    await expect(connect('/ws', origin)).rejects.toThrow('HTTP 401');
    await expect(connect(`/ws?token=${'x'.repeat(host.token.length)}`, origin)).rejects.toThrow('HTTP 401');
    await expect(connect(`/ws?token=${host.token}`, 'http://evil.example')).rejects.toThrow('HTTP 403');
    await expect(connect(`/ws?token=${host.token}`)).rejects.toThrow('HTTP 403');
  });

  it('answers contract calls with {ok, value} or {ok: false, error}, and pushes events', async () => {
    const ws = await connect(`/ws?token=${host.token}`, `http://127.0.0.1:${host.port}`);
    try {
      expect(await call(ws, 1, 'task:list', {})).toEqual({ ok: true, value: [] });
      expect(await call(ws, 2, 'task:start', { prompt: '', workspaces: [] })).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
      expect(await call(ws, 3, 'task:get', { taskId: 'nope' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
      const event = new Promise<any>((resolve) => ws.once('message', (d) => resolve(JSON.parse(d.toString()))));
      const task = services.store.createTask({ title: 't', workspaces: [], model: 'm' });
      services.events.emit('task:updated', task);
      expect(await event).toEqual({ kind: 'event', event: 'task:updated', payload: task });
    } finally {
      ws.close();
    }
  });

  it('answers every malformed frame with an error frame that names the problem', async () => {
    const ws = await connect(`/ws?token=${host.token}`, `http://127.0.0.1:${host.port}`);
    try {
      expect(await sendRaw(ws, '{not json')).toMatchObject({ kind: 'error', id: null, error: { code: 'invalid-input', message: expect.stringMatching(/^The frame is not JSON/) } });
      expect(await sendRaw(ws, '[1,2]')).toMatchObject({ kind: 'error', id: null, error: { message: expect.stringMatching(/not a JSON object/) } });
      expect(await sendRaw(ws, JSON.stringify({ call: 'task:list', input: {} }))).toMatchObject({ kind: 'error', id: null, error: { message: expect.stringMatching(/no whole-number "id"/) } });
      expect(await sendRaw(ws, JSON.stringify({ id: 7, input: {} }))).toMatchObject({ kind: 'error', id: 7, error: { message: expect.stringMatching(/has no "call"/) } });
      expect(await sendRaw(ws, JSON.stringify({ id: 8, call: 'no:such', input: {} }))).toMatchObject({ kind: 'error', id: 8, error: { message: 'Frame 8: unknown call "no:such".' } });
      expect(await sendRaw(ws, JSON.stringify({ id: 9, call: 'task:get' }))).toEqual({
        kind: 'error',
        id: 9,
        error: { code: 'invalid-input', message: 'Frame 9 (task:get) has no "input", and task:get needs one.' },
      });
      // A call whose input is all optional may leave it out, and the socket still answers afterwards.
      expect(await call(ws, 10, 'task:list', undefined)).toMatchObject({ ok: true, value: expect.any(Array) });
    } finally {
      ws.close();
    }
  });

  it('closes a socket that sends a 5 MiB frame with 1009 and a reason, and keeps serving', async () => {
    const ws = await connect(`/ws?token=${host.token}`, `http://127.0.0.1:${host.port}`);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('error', () => undefined);
    ws.send(JSON.stringify({ id: 1, call: 'task:list', input: { pad: 'x'.repeat(5 * 1024 * 1024) } }));
    expect(await closed).toEqual({ code: 1009, reason: expect.stringContaining('larger than 4 MiB') });
    const again = await connect(`/ws?token=${host.token}`, `http://127.0.0.1:${host.port}`);
    try {
      expect(await call(again, 1, 'task:list', {})).toMatchObject({ ok: true, value: expect.any(Array) });
    } finally {
      again.close();
    }
    expect((await fetch(`http://127.0.0.1:${host.port}/`)).status).toBe(200);
  });
});

function sendRaw(ws: WebSocket, text: string): Promise<any> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(data.toString())));
    ws.send(text);
  });
}
