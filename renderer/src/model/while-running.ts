// What the card lists as changed by someone else while an action ran (kept by undo), and why changes
// could not be told apart when they could not. Pure.
import type { Effect } from '../../../shared/domain';

export type OutsideItem = { key: string; path: string; what: 'added' | 'modified' | 'deleted' | 'moved'; both: boolean };

export function listWhileRunning(effects: readonly Effect[]): { items: OutsideItem[]; notes: string[] } {
  const fs = effects.flatMap((e) => (e.channel === 'fs' ? [e] : []));
  const name = (workspace: string, path: string) => (fs.length > 1 ? `${workspace}/${path}` : path);
  const items = fs.flatMap((e) => {
    const w = e.whileRunning;
    if (!w) return [];
    const both = new Set(w.ambiguous);
    const item = (what: OutsideItem['what']) => (p: string): OutsideItem => ({ key: `${what}\u0000${e.workspace}\u0000${p}`, path: name(e.workspace, p), what, both: both.has(p) });
    return [
      ...w.added.map(item('added')),
      ...w.modified.map(item('modified')),
      ...w.deleted.map(item('deleted')),
      ...w.renamed.map((r) => ({ ...item('moved')(r.from), path: `${name(e.workspace, r.from)} → ${r.to}` })),
    ];
  });
  const owned = fs.flatMap((e) =>
    e.ownersRestored?.length
      ? [
          `Given back to the folder's owner (the action, root in its sandbox, had made ${e.ownersRestoredCount ?? e.ownersRestored.length} path(s) another user's): ${e.ownersRestored.map((p) => name(e.workspace, p)).join(', ')}${(e.ownersRestoredCount ?? 0) > e.ownersRestored.length ? ', …' : ''}.`,
        ]
      : [],
  );
  const notes = [...new Set([...fs.flatMap((e) => (e.unattributed ? [e.unattributed] : [])), ...owned])];
  return { items, notes };
}
