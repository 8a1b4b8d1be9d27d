// Sends a call whose request body is a stream, over node:http(s). fetch reads a streamed request body
// ahead of the socket (40 parallel 31 MB uploads grew the process by ~1.3 GB); node:http writes it with
// the socket's backpressure. Answers are shaped like fetch's: redirects not followed, the body decoded.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

export type StreamedAnswer = { status: number; headers: Headers; body: Readable };

export function sendStreamed(url: URL, init: { method: string; headers: Headers; body: Readable; signal: AbortSignal }): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    init.headers.forEach((value, key) => (headers[key] = value));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: init.method, headers, signal: init.signal }, (res) => {
      resolve({ status: res.statusCode ?? 502, headers: headersOf(res), body: decoded(res) });
    });
    req.on('error', reject);
    // An answer may come before the whole body left (a refusal): the upload error is then not the caller's.
    pipeline(init.body, req, () => undefined);
  });
}

function headersOf(res: IncomingMessage): Headers {
  const out = new Headers();
  for (const [key, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(key, v);
  }
  // As fetch does: the body is handed on decoded, so its encoding and length no longer describe it.
  if (decoder(res)) {
    out.delete('content-encoding');
    out.delete('content-length');
  }
  return out;
}

function decoder(res: IncomingMessage): (() => NodeJS.ReadWriteStream) | null {
  switch (String(res.headers['content-encoding'] ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip;
    case 'deflate':
      return createInflate;
    case 'br':
      return createBrotliDecompress;
    default:
      return null;
  }
}

function decoded(res: IncomingMessage): Readable {
  const make = decoder(res);
  if (!make) return res;
  return pipeline(res, make(), () => undefined) as unknown as Readable;
}
