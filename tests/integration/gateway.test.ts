// The gateway without Docker: its doors (unix socket, TCP with a token), the service route, and the
// effects it records on the running action.
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain';
import { Gateway, TOKEN_HEADER } from '../../main/gateway/gateway';
import { ServiceRegistry, validateService } from '../../main/gateway/service-registry';
import { serviceRoute } from '../../main/gateway/service-route';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { startEchoServer, type EchoServer } from '../support/echo-server';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let db: AppDatabase;
let echo: EchoServer;
let gateway: Gateway;
let registry: ServiceRegistry;
const task: Task = {
  id: 'task-gw',
  title: 't',
  status: 'running',
  workspaces: [],
  services: ['echo'],
  model: 'm',
  answer: null,
  error: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

beforeEach(async () => {
  db = openDatabase(dirs.make());
  echo = await startEchoServer();
  registry = new ServiceRegistry(db);
  registry.add('echo', `${echo.baseUrl}/api`);
  registry.add('other', `${echo.baseUrl}/other`);
  gateway = new Gateway(dirs.make('posthoc-gw-'), (id) => (id === task.id ? task : undefined));
  gateway.route('svc', serviceRoute(registry));
});
afterEach(async () => {
  await gateway.closeAll();
  await echo.close();
  db.close();
  dirs.cleanup();
});

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

function call(target: { socketPath: string } | { url: string; token?: string }, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const options =
      'socketPath' in target
        ? { socketPath: target.socketPath, path, method, headers }
        : (() => {
            const u = new URL(target.url);
            if (target.token) headers[TOKEN_HEADER] = target.token;
            return { host: u.hostname, port: Number(u.port), path, method, headers };
          })();
    const req = request(options, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('gateway over a unix socket', () => {
  it('forwards a granted service call to its base URL and records it on the running action', async () => {
    const door = await gateway.open(task.id);
    const socketPath = `${door.dir}/gateway.sock`;
    gateway.beginAction(task.id, 'action-1');
    const res = await call({ socketPath }, 'POST', '/svc/echo/items/7?x=1', '{"name":"pen"}');
    const effects = gateway.endAction(task.id);

    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ method: 'POST', url: '/api/items/7?x=1', body: '{"name":"pen"}' });
    expect(res.headers['x-echo']).toBe('yes');
    expect(echo.received[0]!.headers.host).toBe(new URL(echo.baseUrl).host);
    expect(effects).toEqual([
      expect.objectContaining({ channel: 'rest', service: 'echo', method: 'POST', path: '/items/7?x=1', status: 200, mutating: true, refused: null, requestBytes: 14 }),
    ]);
    expect((effects[0] as { responseBytes: number }).responseBytes).toBe(Buffer.byteLength(res.body));
  });

  it('refuses a service not granted to the task with a message the agent can act on, and sends nothing', async () => {
    const door = await gateway.open(task.id);
    gateway.beginAction(task.id, 'a');
    const res = await call({ socketPath: `${door.dir}/gateway.sock` }, 'DELETE', '/svc/other/everything');
    const effects = gateway.endAction(task.id);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error).toMatch(/"other" is not granted to this task.*Granted: echo/);
    expect(echo.received).toHaveLength(0);
    expect(effects).toEqual([expect.objectContaining({ service: 'other', status: 403, refused: expect.stringContaining('not granted') })]);
  });

  it('answers 403 for anything but its routes, 400 for paths climbing out, 409 when no action runs', async () => {
    const door = await gateway.open(task.id);
    const socketPath = `${door.dir}/gateway.sock`;
    expect((await call({ socketPath }, 'GET', '/svc/echo/x')).status).toBe(409);
    gateway.beginAction(task.id, 'a');
    const nowhere = await call({ socketPath }, 'GET', '/http://example.com/');
    expect(nowhere.status).toBe(403);
    expect(JSON.parse(nowhere.body).error).toMatch(/\$POSTHOC_GATEWAY\/svc\/NAME\/PATH/);
    expect((await call({ socketPath }, 'GET', '/svc/echo/..%2Fother/x')).status).toBe(400);
    // A plain or dot-encoded '..' is folded by the URL parser before routing: it lands on another service, refused.
    const folded = await call({ socketPath }, 'GET', '/svc/echo/%2e%2e/other/x');
    expect(folded.status).toBe(403);
    expect(JSON.parse(folded.body).error).toMatch(/"other" is not granted/);
    expect(echo.received).toHaveLength(0);
  });

  it('removes the socket when the door closes', async () => {
    const door = await gateway.open(task.id);
    await gateway.close(task.id);
    await expect(call({ socketPath: `${door.dir}/gateway.sock` }, 'GET', '/svc/echo/')).rejects.toThrow();
  });
});

describe('gateway over TCP with a token (Docker Desktop)', () => {
  it('listens on 127.0.0.1 and demands the token', async () => {
    const door = await gateway.open(task.id, { kind: 'tcp' });
    expect(door.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    gateway.beginAction(task.id, 'a');
    expect((await call({ url: door.url! }, 'GET', '/svc/echo/ping')).status).toBe(401);
    expect((await call({ url: door.url!, token: 'wrong' }, 'GET', '/svc/echo/ping')).status).toBe(401);
    const ok = await call({ url: door.url!, token: door.token! }, 'GET', '/svc/echo/ping');
    expect(ok.status).toBe(200);
    expect(echo.received.map((r) => r.url)).toEqual(['/api/ping']);
    expect(echo.received[0]!.headers[TOKEN_HEADER]).toBeUndefined();
  });
});

describe('service definitions', () => {
  it('accept http(s) base URLs and refuse credentials, queries and bad names with what to do', () => {
    expect(validateService('github', 'https://api.github.com/')).toEqual({ name: 'github', baseUrl: 'https://api.github.com' });
    expect(() => validateService('Bad Name', 'https://x.test')).toThrow(/lower-case/);
    expect(() => validateService('x', 'ftp://x.test')).toThrow(/http or https/);
    expect(() => validateService('x', 'https://user:pw@x.test')).toThrow(/vault/);
    expect(() => validateService('x', 'https://x.test/?k=1')).toThrow(/query/);
    expect(() => validateService('x', 'not a url')).toThrow(/not a URL/);
  });
});

describe('actions and doors', () => {
  it('attributes calls to an action begun before its task\'s door opened (the first action starts the container)', async () => {
    gateway.beginAction(task.id, 'first-action');
    const door = await gateway.open(task.id);
    const res = await call({ socketPath: `${door.dir}/gateway.sock` }, 'GET', '/svc/echo/ping');
    expect(res.status).toBe(200);
    expect(gateway.endAction(task.id)).toEqual([expect.objectContaining({ service: 'echo', method: 'GET', path: '/ping', status: 200, mutating: false })]);
  });
});
