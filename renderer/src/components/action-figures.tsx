// What an action drew and the pictures and tables it wrote, on its card: its figures (PNG, from
// action:figure) and previews of the image, CSV and XLSX files it added or changed (action:preview, read
// from the checkpoint after it). Images are shown only as <img src="data:…">: an SVG's script never runs,
// and nothing the action wrote is ever inserted as markup. A thumbnail opens full size on click.
// Each picture once: a figure plt.show() handed over that the action also saved to a file, or the same bytes
// twice, shows as the file (model/answer-results.ts); the answer under a finished task uses the same pictures.
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { FilePreview } from '../../../shared/contract';
import type { Action, ActionFigure } from '../../../shared/domain';
import { listChanges, type Change } from '../model/action-summary';
import { dedupePictures, pictureFiles, pngSize, TABLE_FILE, type PictureCandidate } from '../model/answer-results';
import { ModalDialog } from './modal-dialog';
import './action-figures.css';

type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; value: T };

/** At most this many files get a preview on one card. */
const MAX_PREVIEWS = 8;

export function useCall<T>(key: string, load: () => Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>): Loaded<T> {
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

export function Thumbnail({ src, alt, caption, testId }: { src: string; alt: string; caption: ReactNode; testId: string }) {
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

export function Figure({ actionId, figure, testId = 'action-figure', after }: { actionId: string; figure: ActionFigure; testId?: string; after?: ReactNode }) {
  const loaded = useCall(`${actionId}/${figure.n}/${figure.released}`, () =>
    figure.released ? Promise.resolve({ ok: false as const, error: { message: 'released' } }) : window.posthoc.actionFigure({ actionId, n: figure.n }),
  );
  const caption = (
    <>
      Figure {figure.n} · {figure.width} × {figure.height} · {kib(figure.bytes)}
      {after}
    </>
  );
  if (figure.released) {
    return (
      <p className="muted" data-testid="figure-released">
        Figure {figure.n} ({figure.width} × {figure.height}) was released when the action was kept.
      </p>
    );
  }
  if (loaded.state === 'loading') return <p className="muted">Loading figure {figure.n}…</p>;
  if (loaded.state === 'error') return <p className="muted">Figure {figure.n}: {loaded.message}</p>;
  return <Thumbnail src={`data:image/png;base64,${loaded.value.base64}`} alt={`Figure ${figure.n} drawn by this action`} caption={caption} testId={testId} />;
}

export function PreviewTable({ preview, maxRows }: { preview: Extract<FilePreview, { kind: 'table' }>; maxRows?: number }) {
  const [head, ...all] = preview.rows;
  const rest = maxRows === undefined ? all : all.slice(0, maxRows);
  return (
    <div className="preview-table-wrap" tabIndex={0} role="region" aria-label={preview.sheet ? `First rows of sheet ${preview.sheet}` : 'First rows'}>
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
      {(preview.truncated || rest.length < all.length) && <p className="muted">First rows only{preview.sheet ? ` of sheet “${preview.sheet}”` : ''}.</p>}
    </div>
  );
}

/** A file's preview: a thumbnail, its first rows, or why there is none. `after` follows its name (a link to its card). */
export function FilePreviewView({ actionId, change, preview, maxRows, after }: { actionId: string; change: Change; preview?: FilePreview; maxRows?: number; after?: ReactNode }) {
  const loaded = useCall(`${actionId}/${change.where}/${change.path}/${preview === undefined}`, () =>
    preview !== undefined ? Promise.resolve({ ok: true as const, value: preview }) : window.posthoc.actionPreview({ actionId, path: change.path, workspace: change.where }),
  );
  if (loaded.state === 'loading') return null;
  if (loaded.state === 'error') return null;
  const shown = loaded.value;
  if (shown.kind === 'none') {
    return (
      <p className="muted" data-testid="preview-none">
        <code>{change.path}</code>: no preview ({shown.reason}).{after}
      </p>
    );
  }
  if (shown.kind === 'image') {
    return (
      <Thumbnail
        src={`data:${shown.mime};base64,${shown.base64}`}
        alt={`${change.path}, written by this action`}
        caption={
          <>
            {change.path} · {kib(shown.bytes)}
            {after}
          </>
        }
        testId="file-thumbnail"
      />
    );
  }
  return (
    <div className="file-table" data-testid="file-table">
      <p className="preview-name">
        <code>{change.path}</code>
        {after}
      </p>
      <PreviewTable preview={shown} maxRows={maxRows} />
    </div>
  );
}

/** A picture file's preview with what the dedupe needs of its bytes. */
type LoadedPicture = { preview: FilePreview | null; sha256: string | null; width: number | null; height: number | null };

async function loadPicture(actionId: string, change: Change): Promise<LoadedPicture> {
  const result = await window.posthoc.actionPreview({ actionId, path: change.path, workspace: change.where });
  if (!result.ok) return { preview: null, sha256: null, width: null, height: null };
  const preview = result.value;
  if (preview.kind !== 'image') return { preview, sha256: null, width: null, height: null };
  const bytes = Uint8Array.from(atob(preview.base64), (c) => c.charCodeAt(0));
  const size = pngSize(bytes);
  let sha256: string | null = null;
  // crypto.subtle is there in a secure context (app://, http://127.0.0.1); without it only names pair pictures.
  if (globalThis.crypto?.subtle !== undefined) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  }
  return { preview, sha256, width: size?.width ?? null, height: size?.height ?? null };
}

export function pictureKey(c: PictureCandidate): string {
  return c.kind === 'figure' ? `${c.actionId}\u0000figure\u0000${c.figure.n}` : `${c.actionId}\u0000${c.change.where}\u0000${c.change.path}`;
}

/**
 * The pictures these actions drew and wrote, each once (dedupePictures), once every picture file's bytes are
 * read (null until then, so a picture never shows and then vanishes); with the previews read, by pictureKey.
 */
export function usePictures(actions: readonly Action[]): { pictures: PictureCandidate[] | null; previews: ReadonlyMap<string, FilePreview> } {
  const files = useMemo(() => actions.flatMap((a) => pictureFiles(listChanges(a.effects)).slice(0, MAX_PREVIEWS).map((change) => ({ action: a, change }))), [actions]);
  const key = actions.map((a) => `${a.id}:${a.status}:${(a.figures ?? []).map((f) => `${f.n}${f.released ? 'r' : ''}`).join(',')}`).join('|') + '#' + files.map((f) => `${f.change.where}/${f.change.path}`).join('|');
  const loaded = useCall<LoadedPicture[]>(key, async () => ({ ok: true, value: await Promise.all(files.map((f) => loadPicture(f.action.id, f.change))) }));
  return useMemo(() => {
    // Until the files of this key are read (a stale answer for other files is not theirs).
    if (loaded.state !== 'ready' || loaded.value.length !== files.length) return { pictures: null, previews: new Map() };
    const previews = new Map<string, FilePreview>();
    const candidates: PictureCandidate[] = [];
    for (const action of actions) {
      for (const figure of action.figures ?? []) candidates.push({ kind: 'figure', actionId: action.id, seq: action.seq, figure });
      files.forEach((f, i) => {
        if (f.action.id !== action.id) return;
        const picture = loaded.value[i]!;
        const candidate: PictureCandidate = { kind: 'file', actionId: action.id, seq: action.seq, change: f.change, sha256: picture.sha256, width: picture.width, height: picture.height };
        if (picture.preview !== null) previews.set(pictureKey(candidate), picture.preview);
        candidates.push(candidate);
      });
    }
    return { pictures: dedupePictures(candidates, new Map(actions.map((a) => [a.id, a.source]))), previews };
  }, [loaded, actions, files]);
}

export function ActionPictures({ action, changes }: { action: Action; changes: readonly Change[] }) {
  const actions = useMemo(() => [action], [action]);
  const { pictures, previews } = usePictures(actions);
  const tables = changes.filter((c) => c.channel === 'fs' && c.mark !== 'deleted' && TABLE_FILE.test(c.path)).slice(0, MAX_PREVIEWS);
  const hasPictures = (action.figures ?? []).length > 0 || pictureFiles(changes).length > 0;
  if (!hasPictures && tables.length === 0) return null;
  // Pictures side by side (figures first), then each table on its own line.
  return (
    <section className="action-pictures" data-testid="action-pictures" aria-label="Figures and files">
      {pictures === null && hasPictures && <p className="muted">Loading pictures…</p>}
      {pictures !== null && pictures.length > 0 && (
        <div className="pictures">
          {pictures
            .slice()
            .sort((x, y) => Number(x.kind === 'file') - Number(y.kind === 'file'))
            .map((p) =>
              p.kind === 'figure' ? (
                <Figure key={pictureKey(p)} actionId={action.id} figure={p.figure} />
              ) : (
                <FilePreviewView key={pictureKey(p)} actionId={action.id} change={p.change} preview={previews.get(pictureKey(p))} />
              ),
            )}
        </div>
      )}
      {tables.map((c) => (
        <FilePreviewView key={`${c.where}\u0000${c.path}`} actionId={action.id} change={c} />
      ))}
    </section>
  );
}

export function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
