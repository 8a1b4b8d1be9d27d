// How people read a database engine's id: one table for main (prompts, messages) and the renderer (cards).
import type { DatabaseEngine } from './index';

export const ENGINE_LABELS: Readonly<Record<DatabaseEngine, string>> = {
  sqlite: 'SQLite',
  postgres: 'PostgreSQL',
};

export function engineLabel(engine: DatabaseEngine): string {
  return ENGINE_LABELS[engine];
}
