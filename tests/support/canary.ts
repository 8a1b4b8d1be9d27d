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
