// One task: its header, the conversation with the action cards where they happened, the live reply, the
// answer, and either Cancel (while running) or a follow-up.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { buildConversation, findAnswerMessageId } from '../model/conversation';
import { appActions, useAppStore } from '../state/app-store';
import { selectActions, selectMessages, selectStreamingText, selectTask } from '../state/tasks-state';
import { ActionCard } from './action-card';
import { FollowUpForm } from './follow-up-form';
import { AssistantText, MessageView, StreamingMessage } from './message-view';
import { StatusDot } from './status-dot';
import { UndoTimeline } from './timeline';
import { UsageLine } from './usage-line';
import { PlanView } from './plan-view';

/** Distance from the bottom (px) within which the view keeps following new output. */
const FOLLOW_THRESHOLD = 80;

export function TaskView({ taskId }: { taskId: string }) {
  const task = useAppStore((s) => selectTask(s.tasks, taskId));
  const messages = useAppStore((s) => selectMessages(s.tasks, taskId));
  const actions = useAppStore((s) => selectActions(s.tasks, taskId));
  const streaming = useAppStore((s) => selectStreamingText(s.tasks, taskId));
  const retrying = useAppStore((s) => s.tasks.streamingByTask[taskId]?.retrying ?? null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(false);

  useEffect(() => {
    let current = true;
    void appActions.loadTask(taskId).then((result) => {
      if (current) setLoadError(result.ok ? null : result.error.message);
    });
    return () => {
      current = false;
    };
  }, [taskId]);

  const items = useMemo(() => buildConversation(messages, actions), [messages, actions]);

  // Follow new output while the person is at the bottom; leave them alone when they scrolled up.
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element !== null && following.current) element.scrollTop = element.scrollHeight;
  }, [items, streaming, task?.status, task?.answer]);

  if (task === undefined) {
    return loadError !== null ? (
      <div className="page" role="alert" data-testid="task-load-error">
        Could not open this task: {loadError}
      </div>
    ) : (
      <div className="page muted">Loading task…</div>
    );
  }

  const running = task.status === 'running';
  const answer = !running ? task.answer : null;
  const answerMessageId = answer !== null ? findAnswerMessageId(items) : null;
  // The reply the answer came from, when shown in its place: its reasoning stays there, folded.
  const answerItem = items.find((item) => item.kind === 'message' && item.message.id === answerMessageId);
  const answerText = answerItem?.kind === 'message' ? answerItem.message.content : answer;
  const actionRunning = actions.some((action) => action.status === 'running');

  async function cancel(): Promise<void> {
    setCancelling(true);
    const result = await appActions.cancelTask(taskId);
    setCancelling(false);
    setCancelError(result.ok ? null : result.error.message);
  }

  return (
    <div className="task-view" data-testid="task-view" data-task-id={task.id}>
      <header className="task-header">
        <div className="task-heading">
          <h1 className="task-title">{task.title || 'Untitled task'}</h1>
          <span className={`task-status task-status-${task.status}`}>
            <StatusDot status={task.status} />
            <span data-testid="task-status">{task.status}</span>
          </span>
        </div>
        <div className="task-meta">
          {task.workspaces.length === 0 && <span className="muted">No folders granted</span>}
          {task.workspaces.map((grant) => (
            <span className="workspace-chip" key={grant.mountPath} title={`${grant.hostPath} → ${grant.mountPath}`}>
              {grant.hostPath}
              {grant.readOnly && <span className="muted"> (read-only)</span>}
            </span>
          ))}
          {task.model !== '' && <span className="task-model muted">{task.model}</span>}
          {task.usage && task.usage.calls > 0 && <UsageLine usage={task.usage} testId="task-usage" title="Every model call of this task" />}
        </div>
      </header>

      <PlanView plan={task.plan} />

      <div className="task-body">
        <div
          className="conversation"
          ref={scroller}
          onScroll={(event) => {
            const element = event.currentTarget;
            following.current = element.scrollHeight - element.scrollTop - element.clientHeight < FOLLOW_THRESHOLD;
          }}
        >
          {loadError !== null && (
            <p className="form-error" role="alert" data-testid="task-load-error">
              Could not load the whole task: {loadError}
            </p>
          )}
          {items.map((item) =>
            item.kind === 'message' ? (
              item.message.id === answerMessageId ? null : <MessageView key={item.message.id} message={item.message} />
            ) : (
              <ActionCard key={item.action.id} action={item.action} />
            ),
          )}
          {running && retrying !== null && (
            <p className="working muted" data-testid="task-retrying" role="status">
              {retrying}
            </p>
          )}
          {streaming !== null && <StreamingMessage text={streaming} />}
          {running && streaming === null && !actionRunning && (
            <p className="working muted" data-testid="task-working">
              The agent is thinking…
            </p>
          )}
          {answer !== null && (
            <section className="task-answer" data-testid="task-answer">
              <div className="message-label">Answer</div>
              <AssistantText text={answerText ?? ''} foldActionCode={false} />
            </section>
          )}
          {task.status === 'failed' && task.error !== null && (
            <p className="task-error" role="alert" data-testid="task-error">
              {task.error}
            </p>
          )}
          {task.status === 'cancelled' && (
            <p className="muted task-cancelled" data-testid="task-cancelled">
              Cancelled. Actions that already ran stay as they are; undo them above if you want.
            </p>
          )}
        </div>
        <UndoTimeline taskId={task.id} />
      </div>

      <footer className="task-footer">
        {running ? (
          <div className="task-running-bar">
            <span className="muted">The agent is working. Its actions run at once; each one can be undone afterwards.</span>
            <button
              type="button"
              className="button button-danger"
              data-testid="task-cancel"
              disabled={cancelling}
              onClick={() => void cancel()}
            >
              {cancelling ? 'Cancelling…' : 'Cancel'}
            </button>
          </div>
        ) : (
          <FollowUpForm taskId={task.id} />
        )}
        {running && <FollowUpForm taskId={task.id} steering />}
        {cancelError !== null && (
          <p className="form-error" role="alert" data-testid="cancel-error">
            {cancelError}
          </p>
        )}
      </footer>
    </div>
  );
}
