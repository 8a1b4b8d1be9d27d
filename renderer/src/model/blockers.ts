// Why a path stops an undo, redo or rewind, in words. Pure.
import { assertNever, type UndoBlocker } from '../../../shared/domain';

export function describeBlocker(b: UndoBlocker): string {
  switch (b.by) {
    case 'external':
      if (b.ambiguous) return `also edited outside Posthoc while action ${b.whileActionSeq ?? '?'} ran: undo cannot tell your edit from the action’s and leaves it`;
      return b.whileActionSeq != null ? `edited outside Posthoc while action ${b.whileActionSeq} ran` : 'edited outside Posthoc since';
    case 'content':
      return 'no longer holds what the action left there';
    case 'action':
      return b.taskTitle !== null ? `changed by action ${b.actionSeq ?? '?'} of “${b.taskTitle}”` : `changed by action ${b.actionSeq ?? '?'}`;
    default:
      return assertNever(b.by, 'blocker');
  }
}
