// What an action drew and the pictures and tables it wrote, on its card: its figures (PNG, from
// action:figure) and previews of the image, CSV and XLSX files it added or changed (action:preview, read
// from the checkpoint after it). Images are shown only as <img src="data:…">: an SVG's script never runs,
// and nothing the action wrote is ever inserted as markup. A thumbnail opens full size on click.
import { useEffect, useState } from 'react';
import type { FilePreview } from '../../../shared/contract';
import type { Action, ActionFigure } from '../../../shared/domain';
import type { Change } from '../model/action-summary';
import { ModalDialog } from './modal-dialog';
import './action-figures.css';

type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; value: T };

const PREVIEWED = /\.(png|jpe?g|gif|webp|svg|csv|xlsx)$/i;
const TABLES = /\.(csv|xlsx)$/i;
/** At most this many files get a preview on one card. */
const MAX_PREVIEWS = 8;

function useCall<T>(key: string, load: () => Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    setLoaded({ state: 'loading' });
    load().then(
      (result) => {
        if (live) setLoaded(result.ok ? { state: 'ready', value: result.value } : { state: 'error', message: result.error.message });
      },
      (error: unknown) => {
        if (live) setLoaded({ state: 'error', message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => {
      live = false;
    };
    // The key names everything load depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return loaded;
}

function FullSize({ src, alt, onClose }: { src: string; alt: string; onClose: () => void }) {
  return (
    <ModalDialog className="picture-full" label={alt} testId="picture-full" onClose={onClose}>
      <div className="picture-full-body" onClick={onClose}>
        <img src={src} alt={alt} />
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}

function Thumbnail({ src, alt, caption, testId }: { src: string; alt: string; caption: string; testId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <figure className="picture" data-testid={testId}>
      <button type="button" className="picture-open" title="Show full size" onClick={() => setOpen(true)}>
        <img src={src} alt={alt} />
      </button>
      <figcaption className="muted">{caption}</figcaption>
      {open && <FullSize src={src} alt={alt} onClose={() => setOpen(false)} />}
    </figure>
  );
}

function Figure({ actionId, figure }: { actionId: string; figure: ActionFigure }) {
  const loaded = useCall(`${actionId}/${figure.n}/${figure.released}`, () =>
    figure.released ? Promise.resolve({ ok: false as const, error: { message: 'released' } }) : window.posthoc.actionFigure({ actionId, n: figure.n }),
  );
  const caption = `Figure ${figure.n} · ${figure.width} × ${figure.height} · ${kib(figure.bytes)}`;
  if (figure.released) {
    return (
      <p className="muted" data-testid="figure-released">
        Figure {figure.n} ({figure.width} × {figure.height}) was released when the action was kept.
      </p>
    );
  }
  if (loaded.state === 'loading') return <p className="muted">Loading figure {figure.n}…</p>;
  if (loaded.state === 'error') return <p className="muted">Figure {figure.n}: {loaded.message}</p>;
  return <Thumbnail src={`data:image/png;base64,${loaded.value.base64}`} alt={`Figure ${figure.n} drawn by this action`} caption={caption} testId="action-figure" />;
}

function PreviewTable({ preview }: { preview: Extract<FilePreview, { kind: 'table' }> }) {
  const [head, ...rest] = preview.rows;
  return (
    <div className="preview-table-wrap">
      <table className="preview-table" data-testid="preview-table">
        {head && (
          <thead>
            <tr>
              {head.map((cell, i) => (
                <th key={i}>{cell}</th>
              ))}
            </tr>
          </thead>
        )}
        <tbody>
          {rest.map((row, r) => (
            <tr key={r}>
              {row.map((cell, i) => (
                <td key={i}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {preview.truncated && <p className="muted">First rows only{preview.sheet ? ` of sheet “${preview.sheet}”` : ''}.</p>}
    </div>
  );
}

function FilePreviewView({ actionId, change }: { actionId: string; change: Change }) {
  const loaded = useCall(`${actionId}/${change.where}/${change.path}`, () => window.posthoc.actionPreview({ actionId, path: change.path, workspace: change.where }));
  if (loaded.state === 'loading') return null;
  if (loaded.state === 'error') return null;
  const preview = loaded.value;
  if (preview.kind === 'none') {
    return (
      <p className="muted" data-testid="preview-none">
        <code>{change.path}</code>: no preview ({preview.reason}).
      </p>
    );
  }
  if (preview.kind === 'image') {
    return (
      <Thumbnail
        src={`data:${preview.mime};base64,${preview.base64}`}
        alt={`${change.path}, written by this action`}
        caption={`${change.path} · ${kib(preview.bytes)}`}
        testId="file-thumbnail"
      />
    );
  }
  return (
    <div className="file-table" data-testid="file-table">
      <p className="preview-name">
        <code>{change.path}</code>
      </p>
      <PreviewTable preview={preview} />
    </div>
  );
}

export function ActionPictures({ action, changes }: { action: Action; changes: readonly Change[] }) {
  const figures = action.figures ?? [];
  const files = changes.filter((c) => c.channel === 'fs' && (c.mark === 'added' || c.mark === 'modified' || c.mark === 'renamed') && PREVIEWED.test(c.path)).slice(0, MAX_PREVIEWS);
  if (figures.length === 0 && files.length === 0) return null;
  // Pictures side by side, then each table on its own line.
  const images = files.filter((c) => !TABLES.test(c.path));
  const tables = files.filter((c) => TABLES.test(c.path));
  return (
    <section className="action-pictures" data-testid="action-pictures" aria-label="Figures and files">
      {figures.length > 0 && (
        <div className="pictures">
          {figures.map((f) => (
            <Figure key={f.n} actionId={action.id} figure={f} />
          ))}
        </div>
      )}
      {images.length > 0 && (
        <div className="pictures">
          {images.map((c) => (
            <FilePreviewView key={`${c.where}\u0000${c.path}`} actionId={action.id} change={c} />
          ))}
        </div>
      )}
      {tables.map((c) => (
        <FilePreviewView key={`${c.where}\u0000${c.path}`} actionId={action.id} change={c} />
      ))}
    </section>
  );
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
