// What an action printed: stdout, stderr in its own colour, then the exit code and any notes. Its line count
// and Copy above it; past SHOWN_LINES lines only a part is shown (the start of a finished action's output,
// the end of a running or failed one's, where the news and the errors are) until the person asks for all.
import { useState } from 'react';
import type { Action } from '../../../shared/domain';
import { describeExit } from '../model/action-summary';
import { CopyButton } from './markdown';

export const SHOWN_LINES = 20;

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** `keep` lines of stdout then stderr, from the start or the end (each line ends with a newline). */
export function clipOutput(stdout: string, stderr: string, keep: number, from: 'start' | 'end'): { stdout: string; stderr: string } {
  const lines = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
  const all = [...lines(stdout).map((text) => ({ text, err: false })), ...lines(stderr).map((text) => ({ text, err: true }))];
  const kept = from === 'start' ? all.slice(0, keep) : all.slice(Math.max(0, all.length - keep));
  const join = (err: boolean) => kept.filter((l) => l.err === err).map((l) => `${l.text}\n`).join('');
  return { stdout: join(false), stderr: join(true) };
}

/** `hideStdout`: a SQL action whose results the card shows as tables (its stdout is the same rows as text, for the model). */
export function ActionOutput({ action, hideStdout = false }: { action: Action; hideStdout?: boolean }) {
  const [showAll, setShowAll] = useState(false);
  const { stderr, exitCode, timedOut, truncated } = action.output;
  const stdout = hideStdout ? '' : action.output.stdout;
  const running = action.status === 'running';
  const exit = describeExit(action);
  const hasOutput = stdout !== '' || stderr !== '';
  const lines = lineCount(stdout) + lineCount(stderr);
  const clipped = !showAll && lines > SHOWN_LINES;
  const from = running || action.status === 'failed' || stderr !== '' ? 'end' : 'start';
  const shown = clipped ? clipOutput(stdout, stderr, SHOWN_LINES, from) : { stdout, stderr };
  const separator = shown.stdout !== '' && shown.stderr !== '' && !shown.stdout.endsWith('\n') ? '\n' : '';
  const all = `${stdout}${stdout !== '' && stderr !== '' && !stdout.endsWith('\n') ? '\n' : ''}${stderr}`;

  return (
    <div className="action-output" data-testid="action-output">
      {hasOutput && (
        <div className="output-bar">
          <span className="muted" data-testid="action-output-lines">
            Output · {lines === 1 ? '1 line' : `${lines} lines`}
            {clipped ? ` · the ${from === 'start' ? 'first' : 'last'} ${SHOWN_LINES} shown` : ''}
          </span>
          {lines > SHOWN_LINES && (
            <button type="button" className="button button-small" data-testid="action-output-all" aria-pressed={showAll} onClick={() => setShowAll(!showAll)}>
              {showAll ? `Show ${SHOWN_LINES} lines` : `Show all ${lines} lines`}
            </button>
          )}
          <CopyButton text={all} testId="action-output-copy" label="Copy output" />
        </div>
      )}
      {hasOutput ? (
        <pre className="output-pre">
          {shown.stdout !== '' && (
            <span className="output-stdout" data-testid="action-stdout">
              {shown.stdout}
            </span>
          )}
          {separator}
          {shown.stderr !== '' && (
            <span className="output-stderr" data-testid="action-stderr">
              {shown.stderr}
            </span>
          )}
        </pre>
      ) : (
        !hideStdout && <p className="output-empty muted">{running ? 'Running…' : 'No output.'}</p>
      )}
      {action.output.interrupted && (
        <p className="output-interrupted" data-testid="action-interrupted">
          {action.output.interrupted.reason}
        </p>
      )}
      {(exit !== null || timedOut || truncated) && (
        <div className="output-notes">
          {exit !== null && !timedOut && (
            <span className={`note ${exitCode === 0 ? 'note-ok' : 'note-bad'}`} data-testid="action-exit">
              {exit}
            </span>
          )}
          {timedOut && (
            <span className="note note-bad" data-testid="action-timed-out">
              timed out
            </span>
          )}
          {truncated && (
            <span className="note note-warn" data-testid="action-truncated">
              output truncated
            </span>
          )}
        </div>
      )}
    </div>
  );
}
