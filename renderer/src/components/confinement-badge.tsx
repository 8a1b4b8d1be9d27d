// The confinement level of an action, colour-coded, with the one-line reason beside it.
import type { Confinement } from '../../../shared/domain';

const levelHint: Record<Confinement['level'], string> = {
  reversible: 'Every effect has an exact reversal.',
  compensable: 'A reversal exists but is not guaranteed.',
  confined: 'Irreversible, but bounded by policy.',
  unconfined: 'Could do unbounded irreversible harm.',
};

export function ConfinementBadge({ confinement }: { confinement: Confinement }) {
  return (
    <div className="confinement">
      <span
        className={`confinement-badge confinement-${confinement.level}`}
        data-testid="confinement-badge"
        data-level={confinement.level}
        title={levelHint[confinement.level]}
      >
        {confinement.level}
      </span>
      <span className="confinement-reason" data-testid="confinement-reason">
        {confinement.reason}
      </span>
    </div>
  );
}
