// What the host kept of each action's figures (main/effects/figures/): number, type, size, SHA-256 and
// dimensions, and when keep released the file. The PNGs themselves are files in the data folder.
import type { ActionFigure } from '../../shared/domain';
import type { AppDatabase } from './database';

type Row = { n: number; mime: 'image/png'; bytes: number; sha256: string; width: number; height: number; released_at: string | null };

/** An action's figures in order (empty when it drew none). */
export function listFigures(db: AppDatabase, actionId: string): ActionFigure[] {
  const rows = db.prepare('SELECT n, mime, bytes, sha256, width, height, released_at FROM action_figures WHERE action_id = ? ORDER BY n').all(actionId) as Row[];
  return rows.map(toFigure);
}

/** A reader of the figures of every action `actionIds` (a SELECT of ids, taking the reader's `args`) names, in one query, by action; prepared once. */
export function figuresReader(db: AppDatabase, actionIds: string): (args: readonly unknown[]) => Map<string, ActionFigure[]> {
  const statement = db.prepare(`SELECT action_id, n, mime, bytes, sha256, width, height, released_at FROM action_figures WHERE action_id IN (${actionIds}) ORDER BY action_id, n`);
  return (args) => {
    const out = new Map<string, ActionFigure[]>();
    for (const r of statement.all(...args) as Array<Row & { action_id: string }>) {
      const figure = toFigure(r);
      const list = out.get(r.action_id);
      if (list) list.push(figure);
      else out.set(r.action_id, [figure]);
    }
    return out;
  };
}

function toFigure(r: Row): ActionFigure {
  return { n: r.n, mime: r.mime, bytes: r.bytes, sha256: r.sha256, width: r.width, height: r.height, released: r.released_at !== null };
}

export class FigureStore {
  constructor(private readonly db: AppDatabase) {}

  add(actionId: string, figures: ActionFigure[]): void {
    const insert = this.db.prepare(
      'INSERT INTO action_figures (action_id, n, mime, bytes, sha256, width, height, released_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)',
    );
    this.db.transaction(() => {
      for (const f of figures) insert.run(actionId, f.n, f.mime, f.bytes, f.sha256, f.width, f.height);
    })();
  }

  list(actionId: string): ActionFigure[] {
    return listFigures(this.db, actionId);
  }

  /** Keep released the files: the figures stay listed, as released. */
  markReleased(actionId: string): void {
    this.db.prepare('UPDATE action_figures SET released_at = ? WHERE action_id = ? AND released_at IS NULL').run(new Date().toISOString(), actionId);
  }
}
