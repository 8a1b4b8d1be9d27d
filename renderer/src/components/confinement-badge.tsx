// The confinement level of an action, colour-coded, on the card's summary line; the reason is its title here
// and stands in full in the card's expanded part.
import type { Confinement } from '../../../shared/domain';

const levelHint: Record<Confinement['level'], string> = {
  reversible: 'Every effect has an exact reversal.',
  compensable: 'A reversal exists but is not guaranteed.',
  confined: 'Irreversible, but bounded by policy.',
  unconfined: 'Could do unbounded irreversible harm.',
};

export function ConfinementBadge({ confinement }: { confinement: Confinement }) {
  return (
    <span
      className={`confinement-badge confinement-${confinement.level}`}
      data-testid="confinement-badge"
      data-level={confinement.level}
      title={`${levelHint[confinement.level]} ${confinement.reason}`}
    >
      {confinement.level}
    </span>
  );
}
