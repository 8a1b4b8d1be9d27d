// Which way the tests capture SQLite actions (see main/effects/db/sqlite-pages.ts).
import { afterEach, beforeEach } from 'vitest';

/**
 * How SQLite actions are captured: 'pages' (the default where the page differ is built: images of the file
 * before and after, compared) or 'triggers' (per-row capture triggers, what files over the page-capture
 * limit get). Tests of capture run in both.
 */
export type SqliteCapture = 'pages' | 'triggers';
export const CAPTURE_MODES: SqliteCapture[] = ['pages', 'triggers'];

/** Runs the tests of the enclosing describe with this SQLite capture. */
export function useSqliteCapture(mode: SqliteCapture): void {
  beforeEach(() => {
    if (mode === 'triggers') process.env.POSTHOC_SQLITE_CAPTURE = 'triggers';
    else delete process.env.POSTHOC_SQLITE_CAPTURE;
  });
  afterEach(() => {
    delete process.env.POSTHOC_SQLITE_CAPTURE;
  });
}
