// Calls a task's gateway door the way code in the sandbox does (HTTP over the unix socket).
import { request } from 'node:http';

export type GatewayAnswer = { status: number; headers: Record<string, string | string[] | undefined>; body: string; json(): any };

export function callDoor(socketPath: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<GatewayAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(
      { socketPath, path, method, headers: { ...(payload !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        let data = '';
        res.on('data', (c) => (data += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data, json: () => JSON.parse(data) }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
