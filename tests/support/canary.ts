// Looking for a secret everywhere it must not be: in text (raw, URL-encoded, JSON-escaped, base64 at any
// alignment — the same forms the gateway redacts) and in every file under a folder.
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redactor } from '../../main/gateway/redaction';

export function secretFinder(secrets: string[]): (text: string) => boolean {
  const r = new Redactor(secrets);
  if (r.size !== secrets.length) throw new Error('A canary must be long enough to be redacted (6+ characters).');
  return (text) => r.finds(text);
}

/** Files under `dir` whose bytes hold the secret in any form (sockets and the like are skipped). */
export async function findSecretInFiles(dir: string, finds: (text: string) => boolean): Promise<string[]> {
  const hits: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const entry of await readdir(d)) {
      const path = join(d, entry);
      const st = await lstat(path);
      if (st.isDirectory()) await walk(path);
      else if (st.isFile() && finds((await readFile(path)).toString('latin1'))) hits.push(path);
    }
  };
  await walk(dir);
  return hits;
}

/**
 * Everything this process writes to its stdout and stderr (and console) from now on, as the canary's "logs";
 * `restore` puts the streams and the console back.
 */
export function captureProcessLogs(): { logs: string[]; restore(): void } {
  const logs: string[] = [];
  const undo: Array<() => void> = [];
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      logs.push(String(chunk));
      return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    undo.push(() => (stream.write = original));
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level];
    console[level] = (...args: unknown[]) => {
      logs.push(args.map(String).join(' '));
      original(...args);
    };
    undo.push(() => (console[level] = original));
  }
  return { logs, restore: () => undo.reverse().forEach((r) => r()) };
}
