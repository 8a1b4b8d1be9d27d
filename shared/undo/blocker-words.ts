// Why a path stops an undo, redo or rewind, in words: one wording for the app, the CLI and the messages
// of the undo service. Pure; a leaf like the rest of shared/.
import type { UndoBlocker } from '../domain';

export function describeBlocker(b: UndoBlocker): string {
  // A database or a service says why in its own words.
  if (b.reason) return b.reason;
  switch (b.by) {
    case 'external':
      if (b.ambiguous) return `also edited outside Posthoc while action ${b.whileActionSeq ?? '?'} ran, so undo cannot tell your edit from the action's and leaves it`;
      return b.whileActionSeq != null ? `edited outside Posthoc while action ${b.whileActionSeq} ran` : 'edited outside Posthoc since';
    case 'content':
      return 'no longer holds what the action left there';
    case 'action':
      return b.taskTitle !== null ? `changed by action ${b.actionSeq ?? '?'} of "${b.taskTitle}"` : `changed by action ${b.actionSeq ?? '?'}`;
  }
}
