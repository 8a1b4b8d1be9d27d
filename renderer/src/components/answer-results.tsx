// The work under a finished task's answer, so what the person asked to see is on screen without opening a
// card: the numbers the run printed, its pictures (each once), the tables it wrote, where its query rows are,
// and the files it made; each names the card that made it, and a click on that name goes to the card.
// model/answer-results.ts picks them; everything here is text or a data: image, never markup.
import { useMemo } from 'react';
import type { Action } from '../../../shared/domain';
import { answerTables, keyNumbers, madeFiles, queryRows } from '../model/answer-results';
import { Figure, FilePreviewView, pictureKey, usePictures } from './action-figures';
import './answer-results.css';

/** At most this many rows of each table in the answer (its card has the rest). */
const TABLE_ROWS = 8;
/** At most this many files listed by name. */
const MAX_FILES = 12;

/** Goes to the action's card: scrolls it into view, opens it and puts the focus on its toggle. */
export function CardLink({ actionId, seq }: { actionId: string; seq: number }) {
  return (
    <button
      type="button"
      className="card-link"
      data-testid="card-link"
      data-action-id={actionId}
      title={`Go to action ${seq}, which made this`}
      onClick={() => {
        const card = document.querySelector<HTMLElement>(`[data-testid="action-card"][data-action-id="${CSS.escape(actionId)}"]`);
        const toggle = card?.querySelector<HTMLButtonElement>('[data-testid="action-toggle"]');
        if (card === null || card === undefined || toggle === null || toggle === undefined) return;
        if (card.dataset.expanded !== 'true') toggle.click();
        toggle.focus({ preventScroll: true });
        card.scrollIntoView({ block: 'start' });
      }}
    >
      Action {seq}
    </button>
  );
}

function From({ actionId, seq }: { actionId: string; seq: number }) {
  return (
    <>
      {' · '}
      <CardLink actionId={actionId} seq={seq} />
    </>
  );
}

export function AnswerResults({ actions }: { actions: readonly Action[] }) {
  const numbers = useMemo(() => keyNumbers(actions), [actions]);
  const files = useMemo(() => madeFiles(actions), [actions]);
  const tables = useMemo(() => answerTables(files), [files]);
  const queries = useMemo(() => queryRows(actions), [actions]);
  const { pictures, previews } = usePictures(actions);
  const shownPictures = (pictures ?? []).filter((p) => p.kind === 'file' || !p.figure.released);
  const anyFigure = actions.some((a) => (a.figures ?? []).some((f) => !f.released));
  if (numbers.length === 0 && files.length === 0 && queries.length === 0 && !anyFigure) return null;

  return (
    <section className="answer-results" data-testid="answer-results" aria-label="What the task made">
      {numbers.length > 0 && (
        <dl className="answer-numbers" data-testid="answer-numbers">
          {numbers.map((n) => (
            <div className="answer-number" key={n.label} data-testid="answer-number">
              <dt>{n.label}</dt>
              <dd>
                <span className="answer-number-value">{n.value}</span>
                <From actionId={n.actionId} seq={n.seq} />
              </dd>
            </div>
          ))}
        </dl>
      )}
      {shownPictures.length > 0 && (
        <div className="pictures answer-pictures" data-testid="answer-pictures">
          {shownPictures.map((p) =>
            p.kind === 'figure' ? (
              <Figure key={pictureKey(p)} actionId={p.actionId} figure={p.figure} testId="answer-figure" after={<From actionId={p.actionId} seq={p.seq} />} />
            ) : (
              <FilePreviewView key={pictureKey(p)} actionId={p.actionId} change={p.change} preview={previews.get(pictureKey(p))} after={<From actionId={p.actionId} seq={p.seq} />} />
            ),
          )}
        </div>
      )}
      {tables.map((t) => (
        <FilePreviewView key={`${t.actionId}\u0000${t.change.where}\u0000${t.change.path}`} actionId={t.actionId} change={t.change} maxRows={TABLE_ROWS} after={<From actionId={t.actionId} seq={t.seq} />} />
      ))}
      {queries.length > 0 && (
        <p className="answer-queries" data-testid="answer-queries">
          {queries.map((q, i) => (
            <span key={`${q.actionId}/${i}`}>
              {i > 0 && '; '}
              {q.rowCount === 1 ? '1 row' : `${q.rowCount} rows`} from <code>{q.database}</code>, on the card of <CardLink actionId={q.actionId} seq={q.seq} />
            </span>
          ))}
        </p>
      )}
      {files.length > 0 && (
        <div className="answer-files" data-testid="answer-files">
          <span className="answer-files-label">Files</span>
          <ul>
            {files.slice(0, MAX_FILES).map((f) => (
              <li key={`${f.change.where}\u0000${f.change.path}`} data-testid="answer-file" data-mark={f.change.mark}>
                <code title={f.change.where}>{f.change.path}</code> <span className="muted">{f.change.mark === 'added' ? 'made' : f.change.mark === 'renamed' ? 'renamed' : 'changed'}</span>
                <From actionId={f.actionId} seq={f.seq} />
              </li>
            ))}
          </ul>
          {files.length > MAX_FILES && <p className="muted">and {files.length - MAX_FILES} more, on their cards</p>}
        </div>
      )}
    </section>
  );
}
