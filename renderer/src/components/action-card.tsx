// One action as a folded card: a summary line (status, language, what changed, the confinement level, Undo)
// with "Undo will: …" under it, expanding to the code, its output, what it changed (files, diffs, figures,
// tables, calls, rows), the confinement's reason and Keep. A running action and one that needs the person
// (held, failed, stopped) start expanded; finished ones folded, until the person opens or closes the card.
import { useId, useMemo, useState } from 'react';
import type { Result } from '../../../shared/contract';
import type { Action, UndoResult } from '../../../shared/domain';
import { describeReversePlan, partlyUndone } from '../../../shared/undo/reverse-plan';
import { canKeep, canUndo, describeUndo, listCalls, listChanges, listDbEffects, undoableDbEffects } from '../model/action-summary';
import { appActions } from '../state/app-store';
import { useUndoEntry, useUndoTruth, type UndoEntry } from '../state/undo-truth';
import { ActionPictures } from './action-figures';
import { ActionOutput } from './action-output';
import { ChangedFiles } from './changed-files';
import { CodeView } from './code-view';
import { ConfinementBadge } from './confinement-badge';
import { CopyButton } from './markdown';
import { UsageLine } from './usage-line';
import { DbChanges } from './db-changes';
import { QueryGlance } from './query-result-table';
import { NotCovered } from './not-covered';
import { MemoryNotes } from './memory-notes';
import { PackageDownloads } from './package-downloads';
import { WhileRunning } from './while-running';
import { RewindOffer } from './rewind-offer';
import { ServiceCalls } from './service-calls';
import { McpCalls } from './mcp-calls';
import { changeCount, isPersonsEdit, statusWords } from '../model/timeline-view';
import { KeepCopyOffer } from './keep-copy';
import { UndoBlocked } from './undo-blocked';
import type { OperationOutcome } from '../state/timeline-state';
import './action-card.css';


function duration(action: Action): string | null {
  if (action.finishedAt === null) return null;
  const ms = Date.parse(action.finishedAt) - Date.parse(action.startedAt);
  if (!Number.isFinite(ms) || ms < 0) return null;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function UndoFeedback({
  result,
  action,
  onStart,
  onSettled,
}: {
  result: Result<UndoResult>;
  action: Action;
  onStart: () => void;
  onSettled: (outcome: OperationOutcome) => void;
}) {
  const { tone, text, paths } = describeUndo(result);
  const offerRewind = result.ok && result.value.outcome === 'conflict' && result.value.canRewind === true;
  // The same way out as the timeline's: keep a copy of the person's edit, then undo.
  const keepCopyPaths = result.ok && result.value.outcome === 'conflict' && result.value.canKeepCopies === true ? (result.value.blockers ?? []).filter(isPersonsEdit).map((b) => b.path) : null;
  return (
    <div className={`undo-result tone-${tone}`} role="status" data-testid="undo-result" data-tone={tone}>
      <span>{text}</span>
      {paths.length > 0 && (
        <ul className="conflict-paths">
          {paths.map((path) => (
            <li key={path}>
              <code>{path}</code>
            </li>
          ))}
        </ul>
      )}
      {offerRewind && <RewindOffer action={action} onStart={onStart} onSettled={onSettled} />}
      {keepCopyPaths !== null && <KeepCopyOffer action={action} paths={keepCopyPaths} onStart={onStart} onSettled={onSettled} />}
    </div>
  );
}

function lineTotal(source: string): string {
  const n = source.replace(/\n$/, '').split('\n').length;
  return n === 1 ? '1 line' : `${n} lines`;
}

/** Open at first: a running action, and one that needs the person (held, failed, stopped). */
export function opensExpanded(status: Action['status']): boolean {
  return status === 'running' || status === 'awaiting-approval' || status === 'failed' || status === 'interrupted';
}

export function ActionCard({ action }: { action: Action }) {
  const [busy, setBusy] = useState<'undo' | 'keep' | 'approve' | null>(null);
  // How the card's own Undo went (and the way out it offered); shown while the action keeps the status the
  // last of them left it in: a redo or an undo from the timeline since makes the message stale.
  const [undoResult, setUndoResult] = useState<Result<UndoResult> | null>(null);
  const [resultStatus, setResultStatus] = useState<Action['status'] | null>(null);
  // A way out it offered is running: the message stays whatever the status does meanwhile.
  const [offerRunning, setOfferRunning] = useState(false);
  const [keepError, setKeepError] = useState<string | null>(null);
  // A way out taken from the blocked-undo note: the timeline row it started from, and the status it left
  // (null while it runs); its outcome stays while the action keeps that status.
  const [wayOut, setWayOut] = useState<{ entry: UndoEntry; status: Action['status'] | null } | null>(null);
  // null: follow the status; true/false once the person opened or closed the card.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const bodyId = useId();
  const changes = useMemo(() => listChanges(action.effects), [action.effects]);
  const calls = useMemo(() => listCalls(action.effects), [action.effects]);
  const dbEffects = useMemo(() => listDbEffects(action.effects), [action.effects]);
  const changed = useMemo(() => changeCount(action).text, [action]);
  const dbUndoable = undoableDbEffects(action.effects).length;
  const finished = action.status !== 'running';
  const took = duration(action);
  const expanded = chosen ?? opensExpanded(action.status);
  const firstLine = action.source.split('\n').find((line) => line.trim() !== '')?.trim() ?? '';

  async function undo(): Promise<void> {
    setBusy('undo');
    setKeepError(null);
    const result = await appActions.undoAction(action.id);
    setUndoResult(result);
    setResultStatus(result.ok ? result.value.action.status : null);
    setBusy(null);
  }

  async function decide(approve: boolean): Promise<void> {
    // The person who decided will want to see how it went: the card stays open when it finishes.
    setChosen((current) => current ?? true);
    setBusy('approve');
    const result = approve ? await appActions.approveAction(action.id) : await appActions.rejectAction(action.id);
    setKeepError(result.ok ? null : result.error.message);
    setBusy(null);
  }

  async function keep(): Promise<void> {
    setBusy('keep');
    setUndoResult(null);
    const result = await appActions.keepAction(action.id);
    setKeepError(result.ok ? null : result.error.message);
    setBusy(null);
  }

  // One truth with the timeline: the service's answer (task:timeline, blockers included) once loaded.
  const truth = useUndoTruth(action);
  const undoable = canUndo(action) && truth?.possible !== false;
  const undoTitle = undoable
    ? 'Revert what this action changed'
    : canUndo(action) && truth !== null
      ? (truth.reason ?? 'Undo is not possible now.')
    : action.status === 'undone'
      ? 'Already undone'
      : action.status === 'kept'
        ? 'Kept: this action is final'
        : action.status === 'running'
          ? 'Still running'
          : 'Nothing to undo';
  const feedbackShown = undoResult !== null && (offerRunning || resultStatus === null || resultStatus === action.status);
  // The timeline already knows the undo is refused: say why and offer its way out here too, unless the
  // card's own refused Undo already does.
  const live = useUndoEntry(action);
  const blockedNow = live !== undefined && canUndo(action) && !live.undo.possible && live.undo.blockers.length > 0 && !feedbackShown;
  const wayOutShown = wayOut !== null && (wayOut.status === null || wayOut.status === action.status);
  const blockedEntry = wayOutShown ? wayOut.entry : blockedNow ? live : undefined;
  // Once undone, "Undo will" would describe what is already taken back: the status and the timeline say it.
  const showPlan = finished && action.status !== 'undone' && changes.length + calls.length + dbUndoable + action.reverse.steps.filter((s) => s.channel === 'memory' || s.channel === 'mcp').length + action.reverse.irreversible.length > 0;

  return (
    <article
      className={`action-card action-${action.status}${expanded ? ' is-expanded' : ' is-folded'}`}
      data-testid="action-card"
      data-action-id={action.id}
      data-status={action.status}
      data-expanded={expanded}
      aria-label={`Action ${action.seq}`}
    >
      <header className="action-header action-summary">
        <button
          type="button"
          className="action-toggle"
          data-testid="action-toggle"
          aria-expanded={expanded}
          aria-controls={expanded ? bodyId : undefined}
          title={expanded ? 'Hide the code and output' : 'Show the code and output'}
          onClick={() => setChosen(!expanded)}
        >
          <span className="action-chevron" aria-hidden="true" />
          <span className="action-title">
            Action {action.seq} · {action.language}
          </span>
          <span className={`action-status action-status-${action.status}`} data-testid="action-status">
            {statusWords[action.status]}
          </span>
          <span className="action-changed" data-testid="action-changed">
            {finished ? changed : firstLine}
          </span>
        </button>
        {partlyUndone(action) && (
          <span
            className="action-status action-status-partial"
            data-testid="action-partly-undone"
            title={`An undo took back ${action.reverse.takenBack.length} call${action.reverse.takenBack.length === 1 ? '' : 's'}, then the provider refused the next: the files and rows were put back, and undo again sends only the rest.`}
          >
            partly undone
          </span>
        )}
        <ConfinementBadge confinement={action.confinement} />
        {took !== null && <span className="action-duration muted">{took}</span>}
        <button
          type="button"
          className="button button-small"
          data-testid="action-undo"
          disabled={!undoable || busy !== null}
          title={undoTitle}
          onClick={() => void undo()}
        >
          {busy === 'undo' ? 'Undoing…' : 'Undo'}
        </button>
      </header>

      {showPlan && (
        <p className="reverse-plan" data-testid="reverse-plan" data-state={action.reverse.state}>
          <span className="reverse-label">Undo will:</span> {describeReversePlan(action.reverse, action.kind)}
        </p>
      )}

      {!expanded && finished && <QueryGlance effects={dbEffects} />}

      {blockedEntry !== undefined && (
        <UndoBlocked
          entry={blockedEntry}
          settled={wayOutShown && wayOut.status !== null}
          onStart={() => setWayOut({ entry: blockedEntry, status: null })}
          onSettled={(o) => setWayOut((w) => (w === null ? w : { ...w, status: o.status ?? action.status }))}
        />
      )}

      {expanded && (
        // A click inside (Cancel on a held call, a diff, Show all) keeps the card open when the action finishes.
        <div className="action-body" id={bodyId} data-testid="action-body" onClickCapture={() => setChosen((current) => current ?? true)}>
          <p className="confinement-reason" data-testid="confinement-reason">
            {action.confinement.reason}
          </p>
          <div className="action-code-bar">
            <span className="muted">
              Code · {action.language} · {lineTotal(action.source)}
            </span>
            <CopyButton text={action.source} testId="action-code-copy" label="Copy code" />
          </div>
          <CodeView code={action.source} language={action.language} />
          <ActionOutput action={action} hideStdout={action.kind === 'sql' && dbEffects.some((e) => e.statements.some((st) => st.result !== null))} />
          {finished && action.kind !== 'sql' && <ChangedFiles changes={changes} actionId={action.id} />}
          {finished && action.kind !== 'sql' && <ActionPictures action={action} changes={changes} />}
          {finished && <NotCovered effects={action.effects} />}
          {finished && <WhileRunning effects={action.effects} />}
          {(finished || calls.some((c) => c.hold?.state === 'waiting')) && <ServiceCalls calls={calls} />}
          <McpCalls effects={action.effects} finished={finished} />
          {finished && <DbChanges effects={dbEffects} rolledBack={action.status === 'failed' || action.status === 'awaiting-approval'} />}
          {finished && <PackageDownloads effects={action.effects} />}
          {finished && <MemoryNotes effects={action.effects} />}
          <div className="action-body-footer">
            {action.usage && <UsageLine usage={action.usage} testId="action-usage" title="The model reply this action came from" />}
            <button
              type="button"
              className="button button-small"
              data-testid="action-keep"
              disabled={!canKeep(action) || busy !== null}
              title={action.status === 'kept' ? 'Already kept' : 'Mark this action final'}
              onClick={() => void keep()}
            >
              {busy === 'keep' ? 'Keeping…' : 'Keep'}
            </button>
          </div>
        </div>
      )}

      {action.status === 'awaiting-approval' && (
        <footer className="action-footer">
          <button type="button" className="button button-primary" data-testid="action-approve" disabled={busy !== null} onClick={() => void decide(true)}>
            {busy === 'approve' ? 'Working…' : 'Approve'}
          </button>
          <button type="button" className="button" data-testid="action-reject" disabled={busy !== null} onClick={() => void decide(false)}>
            Reject
          </button>
          <span className="muted">Held: this action waits for your approval before it runs; nothing was changed yet.</span>
        </footer>
      )}
      {feedbackShown && (
        <UndoFeedback
          result={undoResult}
          action={action}
          onStart={() => setOfferRunning(true)}
          onSettled={(o) => {
            setResultStatus(o.status ?? null);
            setOfferRunning(false);
          }}
        />
      )}
      {keepError !== null && (
        <p className="form-error" role="alert" data-testid="keep-error">
          {keepError}
        </p>
      )}
    </article>
  );
}
