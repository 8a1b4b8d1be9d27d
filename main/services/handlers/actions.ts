// action:* that read an action or answer it: the record, its figures and file previews, approve and reject.
// (Undo, redo, rewind, keep and diff are in undo.ts.)
import type { TaskStore } from '../../store/task-store';
import type { approvalDoors } from '../approval-relay';
import type { FilePreviews } from '../file-previews';
import { ServiceError } from '../service-error';
import type { TaskService } from '../task-service';
import type { HandlersOf } from './handlers';

export function actionHandlers(deps: {
  store: TaskStore;
  tasks: TaskService;
  previews: FilePreviews;
  approvals: ReturnType<typeof approvalDoors>;
}): HandlersOf<'action:list' | 'action:get' | 'action:figure' | 'action:preview' | 'action:approve' | 'action:reject'> {
  const { store, tasks, previews, approvals } = deps;
  return {
    'action:list': async ({ taskId }) => {
      if (taskId !== undefined) tasks.requireTask(taskId);
      return store.listActions(taskId);
    },
    'action:get': async ({ actionId }) => {
      const action = store.getAction(actionId);
      if (!action) throw new ServiceError('not-found', `No action ${actionId}. List actions with "posthoc actions".`);
      return action;
    },
    'action:figure': async (input) => {
      const { figure, bytes } = await previews.figure(input);
      return { figure, base64: bytes.toString('base64') };
    },
    'action:preview': (input) => previews.preview(input),
    'action:approve': ({ actionId }) => approvals.action(actionId, true),
    'action:reject': ({ actionId }) => approvals.action(actionId, false),
  };
}
