// The undo timeline beside a task's conversation: every action with its status, level and changes, the
// edits made outside Posthoc between them, and the undo operations (with what crash recovery did), with
// Undo, Redo and Rewind-to-here on each action. It reloads whenever one of the task's actions changes.
import { useEffect, useRef, useState } from 'react';
import type { TimelineEntry } from '../../../shared/domain/undo';
import type { UndoStep } from '../../../shared/domain';
import { externalNote, externalPaths, foldStepItems } from '../model/timeline-view';
import { foldGitPaths } from '../../../shared/undo/git-internals';
import { channelHeading } from '../../../shared/channels/registry';
import { useAppStore } from '../state/app-store';
import { selectActions } from '../state/tasks-state';
import { useMediaQuery } from '../state/theme';
import { timelineActions, useTimelineStore } from '../state/timeline-store';
import { DiffView } from './diff-view';
import { TimelineActionRow } from './timeline-action-row';
import './timeline.css';

export function UndoTimeline({ taskId }: { taskId: string }) {
  const slot = useTimelineStore((s) => s.byTask[taskId]);
  const actions = useAppStore((s) => selectActions(s.tasks, taskId));
  // Open beside the conversation from 1200 px; a rail (opened over the conversation) below. The person's
  // choice holds until the window crosses that width.
  const wide = useMediaQuery('(min-width: 1200px)');
  const [choice, setChoice] = useState<{ wide: boolean; open: boolean } | null>(null);
  const open = choice !== null && choice.wide === wide ? choice.open : wide;
  // The toggle is a different button open and closed: the focus follows it when the person used it.
  const toggle = useRef<HTMLButtonElement>(null);
  const [refocus, setRefocus] = useState(false);
  const setOpen = (next: boolean) => {
    setChoice({ wide, open: next });
    setRefocus(true);
  };
  useEffect(() => {
    if (!refocus) return;
    toggle.current?.focus();
    setRefocus(false);
  }, [refocus, open]);
  // Any change to the task's actions (a new one, a status) can change what the timeline allows.
  const signature = actions.map((a) => `${a.id}:${a.status}`).join(',');

  useEffect(() => {
    const timer = setTimeout(() => void timelineActions.loadTimeline(taskId), 120);
    return () => clearTimeout(timer);
  }, [taskId, signature]);

  // A refused undo changes no action but may have found outside edits: main says so.
  useEffect(
    () =>
      window.posthoc.on('timeline:updated', (event) => {
        if (event.taskId === taskId) void timelineActions.loadTimeline(taskId);
      }),
    [taskId],
  );

  if (!open) {
    return (
      <aside className="timeline-panel timeline-collapsed" data-testid="timeline">
        <button ref={toggle} type="button" className="button button-small" data-testid="timeline-toggle" onClick={() => setOpen(true)} title="Show the undo timeline">
          Timeline ({actions.length})
        </button>
        <DiffView />
      </aside>
    );
  }

  const entries = slot?.timeline?.entries ?? [];
  const rewindOrder = slot?.timeline?.rewindOrder ?? NO_SEQS;
  return (
    <aside className="timeline-panel" data-testid="timeline" aria-label="Undo timeline">
      <header className="timeline-header">
        <h2>Undo timeline</h2>
        <button ref={toggle} type="button" className="button button-small" data-testid="timeline-toggle" onClick={() => setOpen(false)} title="Hide the timeline">
          Hide
        </button>
      </header>
      {slot?.error && (
        <p className="form-error" role="alert" data-testid="timeline-error">
          {slot.error}
        </p>
      )}
      {entries.length === 0 ? (
        <p className="muted timeline-empty">{slot?.loading || slot === undefined ? 'Loading…' : 'No actions yet. Each action the agent runs appears here, with Undo.'}</p>
      ) : (
        <ol className="timeline-list">
          {entries.map((entry, i) => (
            <Entry key={entryKey(entry, i)} taskId={taskId} entry={entry} rewindOrder={rewindOrder} note={entry.kind === 'external' ? externalNote(entries, i) : ''} />
          ))}
        </ol>
      )}
      <DiffView />
    </aside>
  );
}

const NO_SEQS: readonly number[] = [];

function entryKey(entry: TimelineEntry, i: number): string {
  return entry.kind === 'action' ? entry.action.id : `${entry.kind}-${entry.at}-${i}`;
}

function Entry({ taskId, entry, rewindOrder, note }: { taskId: string; entry: TimelineEntry; rewindOrder: readonly number[]; note: string }) {
  switch (entry.kind) {
    case 'action':
      return <TimelineActionRow taskId={taskId} entry={entry} rewindOrder={rewindOrder} />;
    case 'external': {
      // A git command run outside Posthoc (a commit, even git status refreshing its index) is one line per repository.
      const paths = foldGitPaths(externalPaths(entry.changes));
      return (
        <li className="tl-entry tl-external" data-testid="timeline-external">
          <div className="tl-line">
            <span className="tl-dot tl-dot-external" aria-hidden="true" />
            <span>Edited outside Posthoc in {entry.workspace}</span>
          </div>
          <ul className="tl-paths">
            {paths.slice(0, 8).map((p) => (
              <li key={p}>
                <code>{p}</code>
              </li>
            ))}
            {paths.length > 8 && <li className="muted">and {paths.length - 8} more</li>}
          </ul>
          <p className="tl-note muted" data-testid="timeline-external-note">
            {note}
          </p>
        </li>
      );
    }
    case 'operation': {
      const seqs = entry.actionSeqs.map((s) => `#${s}`).join(', ');
      const word = entry.operation === 'rewind' ? `Rewind (${seqs})` : `${entry.operation === 'undo' ? 'Undo' : 'Redo'} of ${seqs}`;
      const state = operationState(entry);
      return (
        <li
          className={`tl-entry tl-operation tl-operation-${entry.state} tl-outcome-${entry.outcome}`}
          data-testid="timeline-operation"
          data-state={entry.state}
          data-outcome={entry.outcome}
          data-recovered={entry.recovered}
        >
          <div className="tl-line">
            <span className="tl-dot tl-dot-operation" aria-hidden="true" />
            <span>
              {word}: {state}
            </span>
          </div>
          {entry.note && <p className="tl-note">{entry.note}</p>}
          {entry.steps.length > 0 && (
            <ul className="tl-steps" aria-label="Steps">
              {entry.steps.map((step, i) => (
                <li key={i} className={`tl-step tl-step-${step.result}`} data-testid="timeline-step" data-channel={step.channel} data-result={step.result}>
                  <span className="tl-step-head">
                    {channelHeading(step.channel)}: {STEP_WORDS[step.result]}
                  </span>
                  {step.items.length > 0 && (
                    <StepItems items={foldStepItems(step.items)} />
                  )}
                </li>
              ))}
            </ul>
          )}
        </li>
      );
    }
  }
}

const STEP_WORDS: Record<UndoStep['result'], string> = {
  done: 'done',
  refused: 'refused',
  compensated: 'put back',
  'not-run': 'not started',
};

function operationState(entry: Extract<TimelineEntry, { kind: 'operation' }>): string {
  if (entry.state === 'pending') return 'unfinished';
  if (entry.outcome === 'partial') return 'partly done';
  if (entry.outcome === 'refused') return entry.steps.length > 0 ? 'refused, nothing changed' : 'rolled back';
  return entry.recovered ? 'completed after a restart' : 'done';
}

/** A step's lines, a git repository's internals folded into one line each. */
function StepItems({ items }: { items: readonly string[] }) {
  return (
    <span className="tl-step-items muted">
      {' '}
      — {items.slice(0, 4).join('; ')}
      {items.length > 4 ? `; and ${items.length - 4} more` : ''}
    </span>
  );
}
