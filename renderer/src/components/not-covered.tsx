// "Not covered by undo": paths the checkpoints before or after an action could not hold (large files over
// the folder's storage budget, sockets and devices, undecodable names, files unreadable or not kept because
// the disk was full), and whether the action changed them. The words are the level's (shared/undo).
import type { Effect } from '../../../shared/domain';
import { NOT_COVERED_WHY } from '../../../shared/undo/not-covered-words';
import { formatBytes } from '../model/diff-rows';

const when = { before: 'before this action', after: 'after this action', both: 'before and after' } as const;

export function NotCovered({ effects }: { effects: readonly Effect[] }) {
  const items = effects.flatMap((e) => (e.channel === 'fs' ? (e.notCovered ?? []).map((n) => ({ ...n, where: e.workspace })) : []));
  if (items.length === 0) return null;
  return (
    <div className="not-covered" data-testid="not-covered">
      <span className="not-covered-label">Not covered by undo:</span>
      <ul>
        {items.map((n) => (
          <li key={`${n.where}\u0000${n.path}`} data-changed={n.changed}>
            <code>{n.path}</code>
            {n.size !== null && <span className="muted"> ({formatBytes(n.size)})</span>}
            <span className="muted">
              {' '}
              — {NOT_COVERED_WHY[n.reason]}, {when[n.when]}
            </span>
            {n.changed && <strong className="not-covered-changed"> · changed by this action: undo cannot bring back what it held</strong>}
          </li>
        ))}
      </ul>
    </div>
  );
}
