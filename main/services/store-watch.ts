// Changes another process makes to the data folder (the CLI's `posthoc mcp add`, `service add`, `run`)
// reach the open windows at once: SQLite's data_version changes exactly when another connection commits,
// so one pragma a second tells this process, and the front ends hear `store:changed` and read again.
import type { AppDatabase } from '../store/database';

export const STORE_WATCH_MS = 1000;

/** Calls `onChange` after each second in which another connection committed; returns the stop. */
export function watchStore(db: AppDatabase, onChange: () => void, intervalMs = STORE_WATCH_MS): () => void {
  const version = (): number | null => {
    try {
      return db.open ? (db.pragma('data_version', { simple: true }) as number) : null;
    } catch {
      return null;
    }
  };
  let last = version();
  const timer = setInterval(() => {
    const now = version();
    if (now === null || now === last) return;
    last = now;
    onChange();
  }, intervalMs);
  // Never what keeps a process alive (a CLI command ends when its work does).
  timer.unref();
  return () => clearInterval(timer);
}
