// What an action printed: stdout, stderr in its own colour, then the exit code and any notes.
import type { Action } from '../../../shared/domain';
import { describeExit } from '../model/action-summary';

export function ActionOutput({ action }: { action: Action }) {
  const { stdout, stderr, exitCode, timedOut, truncated } = action.output;
  const running = action.status === 'running';
  const exit = describeExit(action);
  const hasOutput = stdout !== '' || stderr !== '';
  const separator = stdout !== '' && stderr !== '' && !stdout.endsWith('\n') ? '\n' : '';

  return (
    <div className="action-output" data-testid="action-output">
      {hasOutput ? (
        <pre className="output-pre">
          {stdout !== '' && (
            <span className="output-stdout" data-testid="action-stdout">
              {stdout}
            </span>
          )}
          {separator}
          {stderr !== '' && (
            <span className="output-stderr" data-testid="action-stderr">
              {stderr}
            </span>
          )}
        </pre>
      ) : (
        <p className="output-empty muted">{running ? 'Running…' : 'No output.'}</p>
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
