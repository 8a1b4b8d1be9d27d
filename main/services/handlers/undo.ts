// Undo, redo, rewind and keep (the saga in undo-service.ts), and what the timeline reads: task:timeline,
// action:diff, the storage budgets.
import type { UndoService } from '../undo-service';
import type { UndoViews } from '../undo-views';
import type { HandlersOf } from './handlers';

export function undoHandlers(
  undo: UndoService,
  views: UndoViews,
): HandlersOf<'action:undo' | 'action:redo' | 'action:rewind' | 'action:keep' | 'action:diff' | 'task:timeline' | 'budget:get' | 'budget:set'> {
  return {
    'action:undo': ({ actionId, keepCopies }) => undo.undo(actionId, { keepCopies }),
    'action:redo': ({ actionId }) => undo.redo(actionId),
    'action:rewind': ({ actionId, keepCopies }) => undo.rewind(actionId, { keepCopies }),
    'action:keep': ({ actionId }) => undo.keep(actionId),
    'action:diff': (input) => views.diff(input),
    'task:timeline': ({ taskId }) => views.timelineChecked(taskId),
    'budget:get': () => views.storage(),
    'budget:set': (input) => views.setBudget(input),
  };
}
