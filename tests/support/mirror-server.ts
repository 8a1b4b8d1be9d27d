// A careless service that reflects the key it was sent in transformed forms (upper- and lower-case, hex,
// base64url, reversed, …), and records the messages posted to it: what the canary test checks redaction
// and body rules against.
import { createServer } from 'node:http';

export type MirrorServer = { baseUrl: string; posts: Array<{ url: string; type: string; body: string }>; close(): Promise<void> };

/** Every transformed form a secret is reflected in, by name. */
export function mirrorForms(key: string): Record<string, string> {
  const bytes = Buffer.from(key, 'utf8');
  const b64 = bytes.toString('base64');
  const b64url = bytes.toString('base64url');
  return {
    upper: key.toUpperCase(),
    lower: key.toLowerCase(),
    hex: bytes.toString('hex'),
    hexUpper: bytes.toString('hex').toUpperCase(),
    base64url: b64url,
    base64urlPadded: b64url + '='.repeat(b64.length - b64url.length),
    base64OfUpper: Buffer.from(key.toUpperCase()).toString('base64'),
    reversed: [...key].reverse().join(''),
    reversedUpper: [...key].reverse().join('').toUpperCase(),
    urlEncodedUpper: encodeURIComponent(key).toUpperCase(),
  };
}

export async function startMirrorServer(): Promise<MirrorServer> {
  const posts: MirrorServer['posts'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/_mirror') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-mirror': mirrorForms(key).upper, connection: 'close' });
        return res.end(JSON.stringify(mirrorForms(key)));
      }
      posts.push({ url: req.url ?? '', type: String(req.headers['content-type'] ?? ''), body });
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    posts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
