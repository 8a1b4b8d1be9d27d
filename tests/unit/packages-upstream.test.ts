// The package routes' requests to an upstream, against fake upstreams on 127.0.0.1: a port with nothing
// listening, a server that accepts and never answers, one that stalls mid-answer or trickles forever, a
// name that never resolves (a lookup that never calls back: nothing leaves the machine). Each fails with
// its reason in words (UpstreamUnreachable), by the deadlines of its kind; one that timed out is answered
// at once for a while, one that refused is asked again.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEADLINES, DOWN_MEMO_MS, fetchUpstream, readIndexText, UpstreamRefused, UpstreamUnreachable } from '../../main/gateway/packages/upstream';
import { packageEnv } from '../../main/sandbox/container-policy';

const servers: Array<Server | TcpServer> = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const signal = () => new AbortController().signal;

async function listen<T extends Server | TcpServer>(server: T): Promise<string> {
  servers.push(server);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** A port on 127.0.0.1 with nothing listening: it was bound, then closed. */
async function closedPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Accepts connections, reads the request, never answers; counts connections. */
async function silent(): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  const server = createTcpServer((socket) => {
    n++;
    socket.resume();
  });
  return { url: await listen(server), connections: () => n };
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

describe('an upstream that cannot be reached', () => {
  it('fails with "connection refused" when nothing listens, and asks again the next time (nothing is remembered)', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const error = await failure(fetchUpstream(`${url}/simple/x/`, [url], { signal: signal() }));
    expect(error).toBeInstanceOf(UpstreamUnreachable);
    expect(error.message).toBe(`${url} could not be reached: connection refused (nothing listens there)`);
    // The upstream comes back on the same port: the next request reaches it.
    const server = createServer((_req, res) => res.end('<a href="x-1.0.tar.gz">x-1.0.tar.gz</a>'));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const response = await fetchUpstream(`${url}/simple/x/`, [url], { signal: signal() });
    expect(await readIndexText(response)).toContain('x-1.0.tar.gz');
  });

  it('fails when the connection does not stand by the connect deadline (a name that never resolves)', async () => {
    const neverResolves = () => undefined;
    const url = 'http://index.example.test';
    const error = await failure(fetchUpstream(`${url}/simple/x/`, [url], { signal: signal(), lookup: neverResolves, deadlines: { connectMs: 200 } }));
    expect(error).toBeInstanceOf(UpstreamUnreachable);
    expect(error.message).toBe(`no connection to ${url} within 0.2 s`);
  });

  it('fails when a server accepts and never answers, then answers the next request at once with the same reason', async () => {
    const hang = await silent();
    const first = await failure(fetchUpstream(`${hang.url}/npm/x`, [hang.url], { signal: signal(), deadlines: { answerMs: 300 } }));
    expect(first).toBeInstanceOf(UpstreamUnreachable);
    expect(first.message).toBe(`${hang.url} accepted the connection but sent no answer within 0.3 s`);
    expect(hang.connections()).toBe(1);
    const again = await failure(fetchUpstream(`${hang.url}/npm/y`, [hang.url], { signal: signal(), deadlines: { answerMs: 300 } }));
    expect(again).toBeInstanceOf(UpstreamUnreachable);
    expect(again.message).toMatch(new RegExp(`^${hang.url} accepted the connection but sent no answer within 0.3 s, when the gateway last asked it; it asks again in \\d+ s$`));
    expect(hang.connections()).toBe(1);
    // Once the memo is over, the gateway asks again.
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + DOWN_MEMO_MS + 1000);
    const later = await failure(fetchUpstream(`${hang.url}/npm/z`, [hang.url], { signal: signal(), deadlines: { answerMs: 300 } }));
    expect(later.message).toMatch(/sent no answer within 0.3 s$/);
    expect(hang.connections()).toBe(2);
  });

  it('takes one slow answer for down only when the origin has not answered lately: a burst of requests is not failed by one', async () => {
    let connections = 0;
    const server = createServer((req, res) => {
      if (req.url === '/npm/slow') return; // never answers
      res.end('{}');
    });
    server.on('connection', () => connections++);
    const url = await listen(server);
    await readIndexText(await fetchUpstream(`${url}/npm/a`, [url], { signal: signal() }));
    const slow = await failure(fetchUpstream(`${url}/npm/slow`, [url], { signal: signal(), deadlines: { answerMs: 300 } }));
    expect(slow.message).toBe(`${url} accepted the connection but sent no answer within 0.3 s`);
    // The next request is asked, not answered from a memo of the registry being down.
    expect(await readIndexText(await fetchUpstream(`${url}/npm/b`, [url], { signal: signal() }))).toBe('{}');
    // Kept connections are used again: /npm/a's served /npm/b (the slow one's was closed at its deadline).
    expect(connections).toBe(2);
  });

  it('asks again on a new connection when a kept one was closed by the upstream as it was used', async () => {
    let served = 0;
    const perSocket = new WeakMap<object, number>();
    const server = createServer((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      // A kept connection's second request: the upstream drops the connection instead of answering.
      if (n === 2) return req.socket.destroy();
      served++;
      res.end('{}');
    });
    const url = await listen(server);
    await readIndexText(await fetchUpstream(`${url}/npm/a`, [url], { signal: signal() }));
    expect(await readIndexText(await fetchUpstream(`${url}/npm/b`, [url], { signal: signal() }))).toBe('{}');
    expect(served).toBe(2);
  });

  it('stops waiting when the sandbox is gone, without calling the upstream down', async () => {
    const hang = await silent();
    const stop = new AbortController();
    const pending = failure(fetchUpstream(`${hang.url}/x`, [hang.url], { signal: stop.signal }));
    await vi.waitFor(() => expect(hang.connections()).toBe(1));
    stop.abort();
    const error = await pending;
    expect(error).not.toBeInstanceOf(UpstreamUnreachable);
    expect(error.message).toMatch(/the sandbox stopped waiting/);
    // Not remembered as down: the next request connects again.
    await failure(fetchUpstream(`${hang.url}/x`, [hang.url], { signal: signal(), deadlines: { answerMs: 100 } }));
    expect(hang.connections()).toBe(2);
  });
});

describe('an answer that stalls or never ends', () => {
  it('errors the body when nothing comes for the idle deadline', async () => {
    const url = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<a href="x-1.0.tar.gz">');
      }),
    );
    const response = await fetchUpstream(`${url}/simple/x/`, [url], { signal: signal(), deadlines: { idleMs: 300 } });
    expect(response.status).toBe(200);
    const error = await failure(readIndexText(response));
    expect(error).toBeInstanceOf(UpstreamUnreachable);
    expect(error.message).toBe(`the answer from ${url} stalled: nothing came for 0.3 s`);
  });

  it('errors the body at the total deadline even while bytes keep coming', async () => {
    const url = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const tick = setInterval(() => (res.destroyed ? clearInterval(tick) : res.write('x')), 20);
      }),
    );
    const response = await fetchUpstream(`${url}/files/x.whl`, [url], { signal: signal(), kind: 'file', deadlines: { idleMs: 5_000, totalMs: 400 } });
    const error = await failure(new Response(response.body).arrayBuffer());
    expect(error.message).toBe(`the answer from ${url} was not complete within 0.4 s`);
  });
});

describe('what the upstream answers', () => {
  it('decompresses an index page, passes a file as sent, and gives the last hop as the URL', async () => {
    const page = '<a href="../../files/x-1.0.tar.gz#sha256=00">x-1.0.tar.gz</a>';
    let fileEncoding: string | undefined;
    const url = await listen(
      createServer((req, res) => {
        if (req.url === '/simple/old/') return res.writeHead(301, { location: '/simple/x/' }).end();
        if (req.url === '/simple/x/') return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(page));
        fileEncoding = req.headers['accept-encoding'];
        res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('bytes'));
      }),
    );
    const index = await fetchUpstream(`${url}/simple/old/`, [url], { signal: signal() });
    expect(index.url).toBe(`${url}/simple/x/`);
    expect(index.headers.get('content-encoding')).toBeNull();
    expect(await readIndexText(index)).toBe(page);
    const file = await fetchUpstream(`${url}/files/x-1.0.tar.gz`, [url], { signal: signal(), kind: 'file' });
    expect(fileEncoding).toBe('identity');
    expect(Buffer.from(await file.arrayBuffer()).equals(gzipSync('bytes'))).toBe(true);
  });

  it('refuses an encoding it does not read, and a redirect to another origin', async () => {
    const url = await listen(
      createServer((req, res) => {
        if (req.url === '/away') return res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
        res.writeHead(200, { 'content-encoding': 'zstd' }).end('?');
      }),
    );
    const encoding = await failure(fetchUpstream(`${url}/simple/x/`, [url], { signal: signal() }));
    expect(encoding).toBeInstanceOf(UpstreamRefused);
    expect(encoding.message).toMatch(/an encoding the gateway does not read \(zstd\)/);
    const away = await failure(fetchUpstream(`${url}/away`, [url], { signal: signal() }));
    expect(away).toBeInstanceOf(UpstreamRefused);
    expect(away.message).toMatch(/^http:\/\/127\.0\.0\.1:1 is not the package index's own origin/);
  });
});

describe('the deadlines and the clients in the sandbox', () => {
  it('gives an index a quick answer or none, a file long but never a stall, and the clients wait for the gateway longer', () => {
    expect(DEADLINES.index.totalMs).toBeLessThan(DEADLINES.file.totalMs);
    expect(DEADLINES.index.answerMs).toBeLessThanOrEqual(DEADLINES.index.totalMs);
    const env = Object.fromEntries(packageEnv(true).map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]));
    // pip and npm must not give up while the gateway may still answer (a file is answered once it is whole).
    expect(Number(env.PIP_TIMEOUT) * 1000).toBeGreaterThan(DEADLINES.file.totalMs);
    expect(Number(env.NPM_CONFIG_FETCH_TIMEOUT)).toBeGreaterThan(DEADLINES.file.totalMs);
    // npm retries a failed answer once after a second, not twice over 70 s (its defaults: 2 retries, 10 s then 60 s).
    expect(env).toMatchObject({ NPM_CONFIG_FETCH_RETRIES: '1', NPM_CONFIG_FETCH_RETRY_MINTIMEOUT: '1000', NPM_CONFIG_FETCH_RETRY_MAXTIMEOUT: '1000' });
    expect(packageEnv(false)).toEqual(expect.arrayContaining(['PIP_TIMEOUT=1860', 'NPM_CONFIG_FETCH_RETRIES=1']));
  });
});
