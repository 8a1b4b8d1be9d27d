// Why a path stops an undo, redo or rewind, in words. Pure.
import { assertNever, type UndoBlocker } from '../../../shared/domain';

export function describeBlocker(b: UndoBlocker): string {
  switch (b.by) {
    case 'external':
      return 'edited outside Posthoc since';
    case 'content':
      return 'no longer holds what the action left there';
    case 'action':
      return b.taskTitle !== null ? `changed by action ${b.actionSeq ?? '?'} of “${b.taskTitle}”` : `changed by action ${b.actionSeq ?? '?'}`;
    default:
      return assertNever(b.by, 'blocker');
  }
}
