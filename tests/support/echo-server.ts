// A local HTTP server that records each request and answers with what it received: a stand-in for a
// REST service outside the machine.
import { createServer, type IncomingHttpHeaders } from 'node:http';

export type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
export type EchoServer = { baseUrl: string; received: Received[]; close(): Promise<void> };

export async function startEchoServer(): Promise<EchoServer> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      received.push(entry);
      const status = req.url?.startsWith('/status/') ? Number(req.url.split('/')[2]) : 200;
      res.writeHead(status, { 'content-type': 'application/json', 'x-echo': 'yes', connection: 'close' });
      res.end(JSON.stringify({ method: entry.method, url: entry.url, body }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
