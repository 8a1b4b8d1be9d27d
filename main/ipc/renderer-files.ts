// The content type of a file of the built renderer (out/renderer), for the two places that serve it: the
// web host over HTTP and the desktop app's app:// scheme.
import { extname } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export function rendererContentType(file: string): string {
  return CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
}
