// Loads one of Posthoc's native addons (built by scripts/build-native.mjs) from the package's root, or says
// why it is not there. Every addon has a JavaScript fallback, so a missing one is a reason, not an error.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../platform/package-root';

export type AddonLoad<T> = { addon: T; reason: null } | { addon: null; reason: string };

/**
 * The addon at `file` (relative to the package root), unless `switchVar` is set to 0 in the environment.
 * `name` is how reasons call it: "the native lister is not built: npm run build:native".
 */
export function loadAddon<T>(file: string, name: string, switchVar: string): AddonLoad<T> {
  if (process.env[switchVar] === '0') return { addon: null, reason: `${switchVar}=0` };
  const root = packageRoot();
  const path = root ? join(root, file) : null;
  if (!path || !existsSync(path)) return { addon: null, reason: `the ${name} is not built: npm run build:native` };
  try {
    return { addon: createRequire(import.meta.url)(path) as T, reason: null };
  } catch (error) {
    return { addon: null, reason: `the ${name} did not load: ${error instanceof Error ? error.message : String(error)}` };
  }
}
