// The sidebar: New task, a search box, the task list (newest first, grouped Today / Yesterday / Earlier, each
// task with its date in plain words) and the way to Settings.
import { useEffect, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { Task } from '../../../shared/domain';
import { selectSandboxProblem, selectVaultProblem } from '../state/system-state';
import { appActions, useAppStore, type View } from '../state/app-store';
import { selectTasks } from '../state/tasks-state';
import { selectNeedsYou } from '../state/attention';
import { dateWords, filterTasks, fullDate, groupTasks } from '../model/task-dates';
import './control.css';
import './sidebar.css';
import { StatusDot } from './status-dot';
import { helpKeys, openShortcutHelp } from './keyboard-shortcuts';

export function Sidebar({ view }: { view: View }) {
  const tasks = useAppStore((s) => selectTasks(s.tasks));
  const listError = useAppStore((s) => s.tasks.listError);
  const needsAttention = useAppStore((s) => selectSandboxProblem(s.system) !== null || selectVaultProblem(s.system) !== null);
  const openTaskId = view.kind === 'task' ? view.taskId : null;
  const [query, setQuery] = useState('');
  const now = useMinuteClock();
  const groups = groupTasks(filterTasks(tasks, query), now);
  const onSearchKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape' && query !== '') {
      event.preventDefault();
      event.stopPropagation();
      setQuery('');
    }
  };

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

      {tasks.length > 0 && (
        <input
          type="search"
          className="sidebar-search"
          data-testid="task-search"
          placeholder="Search tasks"
          aria-label="Search tasks by title or prompt"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={onSearchKey}
        />
      )}

      <div className="sidebar-tasks">
        <div className="task-list" data-testid="task-list">
          {groups.map((group) => (
            <section key={group.group} className="task-group" aria-labelledby={`task-group-${group.group}`} data-testid="task-group" data-group={group.group}>
              <h2 className="task-group-label" id={`task-group-${group.group}`}>
                {group.label}
              </h2>
              <ul className="task-group-list">
                {group.tasks.map((task) => (
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
                        <time className="task-list-date" data-testid="task-date" dateTime={task.createdAt} title={fullDate(task.createdAt)}>
                          {dateWords(task.createdAt, now)}
                        </time>
                      </NeedsYou>
                    </button>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </div>
        {tasks.length > 0 && groups.length === 0 && (
          <p className="sidebar-empty" data-testid="task-search-empty" role="status">
            No task matches “{query.trim()}”.
          </p>
        )}
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
        <button type="button" className="sidebar-link" data-testid="shortcuts-link" title={`Keyboard shortcuts (${helpKeys()})`} onClick={() => openShortcutHelp()}>
          Keyboard shortcuts
        </button>
      </div>
    </nav>
  );
}

/** Now, renewed every minute, so a task moves from Today to Yesterday at midnight without a reload. */
function useMinuteClock(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
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
