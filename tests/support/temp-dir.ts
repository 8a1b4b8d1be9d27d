// Temporary folders for tests, removed afterwards.
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FALLBACK_SANDBOX_UID } from '../../main/sandbox/container-policy';

export function tempDirs(): { make(prefix?: string): string; workspace(): string; cleanup(): void } {
  const made: string[] = [];
  const make = (prefix = 'posthoc-test-'): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
  return {
    make,
    /**
     * A folder to grant to a task. The sandbox never runs as root: when the tests run as root (CI), it
     * runs as the folder's owner, so the folder is given to the unprivileged sandbox uid, as a person's
     * own folder would belong to them.
     */
    workspace() {
      const dir = make('posthoc-ws-');
      if (process.getuid?.() === 0) chownSync(dir, FALLBACK_SANDBOX_UID, FALLBACK_SANDBOX_UID);
      return dir;
    },
    cleanup() {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
