// A folder as a plain object for assertions: every file under it with its text, folders as "name/".
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export function folderContents(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      if (lstatSync(abs).isDirectory()) {
        out[`${relative(root, abs)}/`] = '';
        walk(abs);
      } else out[relative(root, abs)] = readFileSync(abs, 'utf8');
    }
  };
  walk(root);
  return out;
}
