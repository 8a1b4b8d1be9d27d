// What changed in a granted folder while the action ran that was not the action's own (the person's
// edits, another program's): kept by undo. Paths both wrote are named apart, since undo refuses there.
// When the changes could not be told apart, the card says so.
import type { Effect } from '../../../shared/domain';

export function WhileRunning({ effects }: { effects: readonly Effect[] }) {
  const fs = effects.flatMap((e) => (e.channel === 'fs' ? [e] : []));
  const multi = fs.length > 1;
  const name = (workspace: string, path: string) => (multi ? `${workspace}/${path}` : path);
  const others = fs.flatMap((e) => {
    const w = e.whileRunning;
    if (!w) return [];
    const both = new Set(w.ambiguous);
    return [
      ...w.added.map((p) => ({ key: `+${e.workspace}/${p}`, path: name(e.workspace, p), what: 'added', both: both.has(p) })),
      ...w.modified.map((p) => ({ key: `~${e.workspace}/${p}`, path: name(e.workspace, p), what: 'modified', both: both.has(p) })),
      ...w.deleted.map((p) => ({ key: `-${e.workspace}/${p}`, path: name(e.workspace, p), what: 'deleted', both: both.has(p) })),
      ...w.renamed.map((r) => ({ key: `>${e.workspace}/${r.from}`, path: `${name(e.workspace, r.from)} → ${r.to}`, what: 'moved', both: false })),
    ];
  });
  const unattributed = [...new Set(fs.flatMap((e) => (e.unattributed ? [e.unattributed] : [])))];
  if (others.length === 0 && unattributed.length === 0) return null;
  return (
    <div className="while-running" data-testid="while-running">
      {others.length > 0 && (
        <>
          <span className="while-running-label">Changed by someone else while it ran (kept by undo):</span>
          <ul>
            {others.map((o) => (
              <li key={o.key} data-ambiguous={o.both}>
                <code>{o.path}</code> <span className="muted">{o.what}</span>
                {o.both && <strong> · also written by this action: undo cannot tell the two apart and refuses for it</strong>}
              </li>
            ))}
          </ul>
        </>
      )}
      {unattributed.map((note) => (
        <p key={note} className="muted" data-testid="unattributed">
          {note}
        </p>
      ))}
    </div>
  );
}
