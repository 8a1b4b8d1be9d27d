// The web host: the built renderer and the same contract over a WebSocket, on 127.0.0.1 only. A random
// token in the URL (per launch, or kept for the data folder by web-host-state.ts) and an Origin check keep
// other pages and local programs out. sirv serves the
// renderer's files (nothing outside its folder), with the CSP and the content types the app:// scheme gives.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import sirv from 'sirv';
import { WebSocket, WebSocketServer } from 'ws';
import type { CallName, Result } from '../../shared/contract';
import {
  FRAME_TOO_LARGE_REASON,
  MAX_FRAME_BYTES,
  readClientFrame,
  WEB_SOCKET_PATH,
  WEB_TOKEN_PARAM,
  type ServerFrame,
} from '../../shared/contract/wire';
import type { AppServices } from '../services/app-services';
import { registerContract, type Transport } from './register-contract';
import { rendererContentType } from './renderer-files';

export type WebHost = { url: string; port: number; token: string; close(): Promise<void> };

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws://127.0.0.1:* ws://localhost:*; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

type Connection = { socket: WebSocket; trusted: boolean };

/**
 * ws closes a socket whose frame exceeds maxPayload with a bare 1009; this says why, so the page (and a
 * person reading its console) learns the limit instead of seeing a silent disconnect.
 */
class BoundedSocket extends WebSocket {
  override close(code?: number, data?: string | Buffer): void {
    super.close(code, code === 1009 && data === undefined ? FRAME_TOO_LARGE_REASON : data);
  }
}

/**
 * `port`: that port or fail; `preferredPort`: that port when free, else any (a restart keeps its address);
 * `token`: the one to require (else a new one).
 */
export async function startWebHost(services: AppServices, options: { port?: number; preferredPort?: number; token?: string; rendererDir: string }): Promise<WebHost> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const serveStatic = sirv(options.rendererDir, {
    // Looked up on disk at each request (not listed once at start), so a rebuilt renderer is served as it is now.
    dev: true,
    etag: false,
    // Only the file named: '/' is index.html (below), and no other name gains an extension.
    extensions: [],
    setHeaders: (res: ServerResponse, pathname: string) => {
      res.setHeader('content-type', rendererContentType(pathname));
      res.setHeader('content-security-policy', CSP);
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'no-referrer');
      res.setHeader('cache-control', 'no-store');
    },
    onNoMatch: (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    },
  });
  const server = createServer((req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/') req.url = `/index.html${url.search}`;
      serveStatic(req, res);
    } catch {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  if (options.port === undefined && options.preferredPort !== undefined) {
    await listen(options.preferredPort).catch(() => listen(0));
  } else await listen(options.port ?? 0);
  const port = (server.address() as { port: number }).port;
  const allowedOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, WebSocket: BoundedSocket });
  const connections = new Set<Connection>();
  const listeners = new Map<CallName, (sender: Connection, raw: unknown) => Promise<Result<unknown>>>();

  const transport: Transport<Connection> = {
    isTrustedSender: (c) => c.trusted && connections.has(c),
    handle: (name, listener) => listeners.set(name, listener),
    push: (event, payload) => {
      const frame = JSON.stringify({ kind: 'event', event, payload } satisfies ServerFrame);
      for (const c of connections) if (c.socket.readyState === c.socket.OPEN) c.socket.send(frame);
    },
  };
  const unsubscribe = registerContract(transport, services.handlers, services.events);

  server.on('upgrade', (req, socket, head) => {
    const refusal = checkUpgrade(req, token, allowedOrigins);
    if (refusal) {
      socket.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection: Connection = { socket: ws, trusted: true };
      connections.add(connection);
      ws.on('close', () => connections.delete(connection));
      // A protocol error (a frame over maxPayload, a bad opcode) is emitted here after ws has sent its close
      // code; without a listener it would be thrown and take the whole host down.
      ws.on('error', () => connections.delete(connection));
      ws.on('message', (data) => {
        void answer(connection, data.toString());
      });
    });
  });

  async function answer(connection: Connection, text: string): Promise<void> {
    const read = readClientFrame(text);
    let reply: ServerFrame;
    if (!read.ok) {
      reply = { kind: 'error', id: read.id, error: { code: 'invalid-input', message: read.message } };
    } else {
      const listener = listeners.get(read.frame.call);
      const result: Result<unknown> = listener
        ? await listener(connection, read.frame.input)
        : { ok: false, error: { code: 'internal', message: `No handler for ${read.frame.call}.` } };
      reply = { kind: 'result', id: read.frame.id, result };
    }
    if (connection.socket.readyState === connection.socket.OPEN) connection.socket.send(JSON.stringify(reply));
  }

  const url = `http://127.0.0.1:${port}/?${WEB_TOKEN_PARAM}=${token}`;
  return {
    url,
    port,
    token,
    async close() {
      unsubscribe();
      for (const c of connections) c.socket.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Returns an HTTP status line when the upgrade must be refused, or undefined when it may proceed. */
export function checkUpgrade(req: IncomingMessage, token: string, allowedOrigins: Set<string>): string | undefined {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== WEB_SOCKET_PATH) return '404 Not Found';
  const given = url.searchParams.get(WEB_TOKEN_PARAM) ?? '';
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return '401 Unauthorized';
  const origin = req.headers.origin;
  if (!origin || !allowedOrigins.has(origin)) return '403 Forbidden';
  return undefined;
}
