// The sidebar: New task, the task list (newest first) and the way to Settings.
import type { ReactNode } from 'react';
import type { Task } from '../../../shared/domain';
import { selectSandboxProblem, selectVaultProblem } from '../state/system-state';
import { appActions, useAppStore, type View } from '../state/app-store';
import { selectTasks } from '../state/tasks-state';
import { selectNeedsYou } from '../state/attention';
import './control.css';
import { StatusDot } from './status-dot';

export function Sidebar({ view }: { view: View }) {
  const tasks = useAppStore((s) => selectTasks(s.tasks));
  const listError = useAppStore((s) => s.tasks.listError);
  const needsAttention = useAppStore((s) => selectSandboxProblem(s.system) !== null || selectVaultProblem(s.system) !== null);
  const openTaskId = view.kind === 'task' ? view.taskId : null;

  return (
    <nav className="sidebar" aria-label="Tasks">
      <div className="sidebar-brand">Posthoc</div>
      <button
        type="button"
        className="button button-primary sidebar-new-task"
        data-testid="new-task-button"
        aria-current={view.kind === 'new-task' ? 'page' : undefined}
        onClick={() => appActions.showNewTask()}
      >
        New task
      </button>

      <div className="sidebar-tasks">
        <ul className="task-list" data-testid="task-list">
          {tasks.map((task) => (
            <li key={task.id}>
              <button
                type="button"
                className={`task-list-item${task.id === openTaskId ? ' is-active' : ''}`}
                data-testid="task-list-item"
                data-task-id={task.id}
                aria-current={task.id === openTaskId ? 'page' : undefined}
                onClick={() => appActions.openTask(task.id)}
                title={task.title}
              >
                <NeedsYou taskId={task.id} status={task.status}>
                  <span className="task-list-title">{task.title || 'Untitled task'}</span>
                </NeedsYou>
              </button>
            </li>
          ))}
        </ul>
        {tasks.length === 0 && listError === null && <p className="sidebar-empty">No tasks yet.</p>}
        {listError !== null && (
          <p className="sidebar-error" role="alert">
            Could not load tasks: {listError}
          </p>
        )}
      </div>

      <div className="sidebar-footer">
        <button
          type="button"
          className={`sidebar-link${view.kind === 'connections' ? ' is-active' : ''}`}
          data-testid="connections-link"
          aria-current={view.kind === 'connections' ? 'page' : undefined}
          onClick={() => appActions.showConnections()}
        >
          Connections
        </button>
        <button
          type="button"
          className={`sidebar-link${view.kind === 'settings' ? ' is-active' : ''}`}
          data-testid="settings-link"
          aria-current={view.kind === 'settings' ? 'page' : undefined}
          onClick={() => appActions.showSettings()}
        >
          Settings
          {needsAttention && (
            <span className="attention-dot" title="The sandbox or the keychain needs attention" aria-label="needs attention" />
          )}
        </button>
      </div>
    </nav>
  );
}

/**
 * The task's dot and title; while it holds something for the person (a held action or call), an amber dot
 * and a "needs you" badge instead of the ordinary running dot, until it is decided.
 */
function NeedsYou({ taskId, status, children }: { taskId: string; status: Task['status']; children: ReactNode }) {
  const needsYou = useAppStore((s) => status === 'running' && selectNeedsYou(s.tasks, taskId));
  return (
    <>
      {needsYou ? <span className="status-dot status-dot-waiting" role="img" aria-label="needs you" title="needs you" /> : <StatusDot status={status} />}
      {children}
      {needsYou && (
        <span className="needs-you-badge" data-testid="task-needs-you-badge">
          needs you
        </span>
      )}
    </>
  );
}
