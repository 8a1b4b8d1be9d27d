// One task: its header, the conversation with the action cards where they happened, the live reply, the
// answer, what waits for the person (a banner above the composer), and either Stop (while running) or a
// follow-up. Stop says "Stopping…" until the task has stopped: main kills the running action and records it.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { buildConversation, findAnswerMessageId } from '../model/conversation';
import { answerActions } from '../model/answer-results';
import { AnswerResults } from './answer-results';
import { appActions, useAppStore } from '../state/app-store';
import { selectActions, selectMessages, selectStreamingText, selectTask } from '../state/tasks-state';
import { selectHeld } from '../state/attention';
import { ActionCard } from './action-card';
import { AttentionBanner } from './attention-banner';
import './control.css';
import { FollowUpForm } from './follow-up-form';
import { InterruptedNotice } from './interrupted-notice';
import { AssistantText, MessageView, StreamingMessage } from './message-view';
import { StatusDot } from './status-dot';
import { UndoTimeline } from './timeline';
import { UsageLine } from './usage-line';
import { PlanView } from './plan-view';
import { answerRewoundWords, planRewoundWords, taskState } from '../model/task-state';
import { TaskResources } from './task-resources';
import './task-state.css';

/** Distance from the bottom (px) within which the view keeps following new output. */
const FOLLOW_THRESHOLD = 80;

/** The view at the end: the bottom, or a finished task's answer at the top when it is taller than the view (its text, numbers and figure first). */
function settle(element: HTMLElement): void {
  const answerBlock = element.querySelector('[data-testid="task-answer"]');
  const answerTop = answerBlock === null ? Infinity : answerBlock.getBoundingClientRect().top - element.getBoundingClientRect().top + element.scrollTop - 8;
  element.scrollTop = Math.min(element.scrollHeight, answerTop);
}

export function TaskView({ taskId }: { taskId: string }) {
  const task = useAppStore((s) => selectTask(s.tasks, taskId));
  const messages = useAppStore((s) => selectMessages(s.tasks, taskId));
  const actions = useAppStore((s) => selectActions(s.tasks, taskId));
  const streaming = useAppStore((s) => selectStreamingText(s.tasks, taskId));
  const retrying = useAppStore((s) => s.tasks.streamingByTask[taskId]?.retrying ?? null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [cancelError, setCancelError] = useState<string | null>(null);
  // Set when Stop was pressed during this run; cleared once the task is no longer running.
  const [stopping, setStopping] = useState(false);
  const held = useAppStore((s) => selectHeld(s.tasks, taskId));
  const taskStatus = task?.status;
  const footer = useRef<HTMLElement>(null);
  const wasRunning = useRef(false);
  useEffect(() => {
    if (taskStatus !== 'running') setStopping(false);
    // The run ended and took the focused control with it (Stop): the focus goes on to the follow-up box.
    const active = document.activeElement;
    if (wasRunning.current && taskStatus !== 'running' && (active === null || active === document.body)) {
      footer.current?.querySelector<HTMLTextAreaElement>('[data-testid="follow-up-input"]')?.focus();
    }
    wasRunning.current = taskStatus === 'running';
  }, [taskStatus]);

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
  // The run's work the answer shows (figures, numbers, tables, files), each with its card.
  const resultActions = useMemo(() => answerActions(items), [items]);

  // Follow new output while the person is at the bottom; leave them alone when they scrolled up.
  // A new run (the person sent a follow-up) follows again, wherever Tab or the wheel had left the view.
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const lastStatus = useRef(task?.status);
  useLayoutEffect(() => {
    const element = scroller.current;
    if (task?.status === 'running' && lastStatus.current !== undefined && lastStatus.current !== 'running') following.current = true;
    lastStatus.current = task?.status;
    if (element !== null && following.current) settle(element);
  }, [items, streaming, task?.status, task?.answer]);
  // The answer grows as its pictures and tables load: the view settles again while the person has not scrolled.
  const hasAnswer = task?.answer != null && task.status !== 'running';
  useEffect(() => {
    const element = scroller.current;
    const answerBlock = element?.querySelector('[data-testid="task-answer"]');
    if (!hasAnswer || element == null || answerBlock == null || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (following.current) settle(element);
    });
    observer.observe(answerBlock);
    return () => observer.disconnect();
  }, [hasAnswer]);

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
  // "rewound" once its actions were undone from the newest back: the plan and the answer follow.
  const state = taskState(task, actions);
  const answerRewound = answerRewoundWords(state);

  async function stop(): Promise<void> {
    setStopping(true);
    const result = await appActions.cancelTask(taskId);
    // The button stays "Stopping…" until the task's status changes (task:updated), unless Stop failed.
    if (!result.ok) setStopping(false);
    setCancelError(result.ok ? null : result.error.message);
  }
  const waiting = running && held.length > 0;

  return (
    <div className="task-view" data-testid="task-view" data-task-id={task.id}>
      <header className="task-header">
        <div className="task-heading">
          <h1 className="task-title">{task.title || 'Untitled task'}</h1>
          <span className={`task-status task-status-${task.status}`}>
            {waiting ? <span className="status-dot status-dot-waiting" role="img" aria-label="needs you" /> : <StatusDot status={state.rewound !== null ? 'rewound' : task.status} />}
            <span data-testid="task-status" data-status={task.status} title={state.detail ?? undefined}>
              {state.word}
            </span>
            {waiting && <span className="needs-you-badge" data-testid="task-needs-you">needs you</span>}
          </span>
        </div>
        <div className="task-meta">
          <TaskResources task={task} />
          {task.model !== '' && <span className="task-model muted">{task.model}</span>}
          {task.usage && task.usage.calls > 0 && <UsageLine usage={task.usage} testId="task-usage" title="Every model call of this task" />}
        </div>
      </header>

      <PlanView plan={task.plan} rewound={planRewoundWords(state, task.plan ?? [])} />

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
          {running && streaming === null && !actionRunning && !waiting && (
            <p className="working muted" data-testid="task-working">
              The agent is thinking…
            </p>
          )}
          {answer !== null && (
            <section className="task-answer" data-testid="task-answer">
              <div className="message-label">Answer</div>
              {answerRewound !== null && (
                <p className="task-answer-rewound" role="note" data-testid="task-answer-rewound">
                  {answerRewound}
                </p>
              )}
              <AssistantText text={answerText ?? ''} foldActionCode={false} />
              <AnswerResults actions={resultActions} />
            </section>
          )}
          {task.status === 'failed' && task.error !== null && (
            <p className="task-error" role="alert" data-testid="task-error">
              {task.error}
            </p>
          )}
          {task.status === 'cancelled' && (
            <p className="muted task-cancelled" data-testid="task-cancelled">
              Stopped. The action that was running was ended and what it changed is recorded; every action stays undoable above.
            </p>
          )}
        </div>
        <UndoTimeline taskId={task.id} />
      </div>

      <footer className="task-footer" ref={footer}>
        <AttentionBanner taskId={task.id} />
        {running && (
          <div className="task-running-bar">
            <span className={waiting ? 'task-waiting' : 'muted'} data-testid="task-running-note">
              {stopping
                ? 'Stopping: ending the running action and recording what it changed, so you can undo it.'
                : waiting
                  ? 'The agent waits for your decision above.'
                  : 'The agent is working. Its actions run at once; each one can be undone afterwards.'}
            </span>
            <button
              type="button"
              className="button button-danger"
              data-testid="task-cancel"
              data-stopping={stopping}
              disabled={stopping}
              title="End the running action now and stop the agent; what it changed so far stays undoable"
              onClick={() => void stop()}
            >
              {stopping ? 'Stopping…' : 'Stop'}
            </button>
          </div>
        )}
        {task.status === 'interrupted' && <InterruptedNotice task={task} />}
        {/* One box for the follow-up and for steering: Enter sends and the focus stays in it as the run starts and ends. */}
        <FollowUpForm taskId={task.id} steering={running} />
        {cancelError !== null && (
          <p className="form-error" role="alert" data-testid="cancel-error">
            {cancelError}
          </p>
        )}
      </footer>
    </div>
  );
}
