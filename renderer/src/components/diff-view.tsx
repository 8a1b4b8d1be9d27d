// One file's change by one action, in a modal dialog (focus in, Tab kept inside, Escape closes, focus back
// to the opener): text side by side or unified (rendered as text, never as HTML), binary files by size and
// SHA-256, links by target.
import { useState } from 'react';
import type { DiffSide, FileDiff } from '../../../shared/domain/undo';
import { formatBytes, sideBySideRows, unifiedRows, type Cell } from '../model/diff-rows';
import { timelineActions, useTimelineStore } from '../state/timeline-store';
import { ModalDialog } from './modal-dialog';

type Mode = 'split' | 'unified';

export function DiffView() {
  const diff = useTimelineStore((s) => s.diff);
  const [mode, setMode] = useState<Mode>('split');

  if (diff === null) return null;
  const result = diff.result;
  return (
    <ModalDialog className="diff-dialog" label={`Changes to ${diff.request.path}`} testId="diff-view" onClose={() => timelineActions.closeDiff()}>
      <header className="diff-header">
        <div className="diff-title">
          <code data-testid="diff-path">{result?.ok && result.value.oldPath ? `${result.value.oldPath} \u2192 ${diff.request.path}` : diff.request.path}</code>
          {result?.ok && <span className={`diff-status diff-status-${result.value.status}`}>{result.value.status}</span>}
          {diff.request.since && (
            <span className="muted" data-testid="diff-since">
              Edited after the action: what it left, then the file now
            </span>
          )}
        </div>
        <div className="diff-modes" role="group" aria-label="Layout">
          <button type="button" className="button button-small" aria-pressed={mode === 'split'} data-testid="diff-mode-split" onClick={() => setMode('split')}>
            Side by side
          </button>
          <button type="button" className="button button-small" aria-pressed={mode === 'unified'} data-testid="diff-mode-unified" onClick={() => setMode('unified')}>
            Unified
          </button>
          <button type="button" className="button button-small" data-testid="diff-close" onClick={() => timelineActions.closeDiff()}>
            Close
          </button>
        </div>
      </header>
      <div className="diff-body">
        {result === null && <p className="muted">Loading…</p>}
        {result !== null && !result.ok && (
          <p className="form-error" role="alert" data-testid="diff-error">
            {result.error.message}
          </p>
        )}
        {result?.ok && <DiffBody diff={result.value} mode={mode} />}
      </div>
    </ModalDialog>
  );
}

function DiffBody({ diff, mode }: { diff: FileDiff; mode: Mode }) {
  const { before, after } = diff;
  const textOf = (side: DiffSide | null): string | null => (side === null ? '' : side.kind === 'text' ? side.text : null);
  const a = textOf(before);
  const b = textOf(after);
  if (a !== null && b !== null) {
    const modeNote = modeChange(before, after);
    return (
      <>
        {modeNote && <p className="diff-note">{modeNote}</p>}
        {a === b ? <p className="muted">The content is the same.</p> : mode === 'split' ? <SplitText before={a} after={b} /> : <UnifiedText before={a} after={b} />}
      </>
    );
  }
  return (
    <table className="diff-sides" data-testid="diff-sides">
      <thead>
        <tr>
          <th />
          <th>Before</th>
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <th>Content</th>
          <td>{describeSide(before)}</td>
          <td>{describeSide(after)}</td>
        </tr>
        <tr>
          <th>SHA-256</th>
          <td>
            <code className="diff-hash">{hashOf(before)}</code>
          </td>
          <td>
            <code className="diff-hash">{hashOf(after)}</code>
          </td>
        </tr>
      </tbody>
    </table>
  );
}

function SplitText({ before, after }: { before: string; after: string }) {
  const rows = sideBySideRows(before, after);
  const cell = (c: Cell, side: 'left' | 'right') =>
    c === null ? (
      <>
        <td className="diff-num" />
        <td className="diff-text diff-empty" />
      </>
    ) : (
      <>
        <td className="diff-num">{c.line}</td>
        <td className={`diff-text diff-${c.kind}`} data-side={side}>
          {c.text}
        </td>
      </>
    );
  return (
    <table className="diff-table diff-split" data-testid="diff-split">
      {/* The fixed layout takes its widths from here: the first row may be a hunk line spanning all four. */}
      <colgroup>
        <col className="diff-num-col" />
        <col />
        <col className="diff-num-col" />
        <col />
      </colgroup>
      <tbody>
        {rows.map((row, i) =>
          row.kind === 'hunk' ? (
            <tr key={i} className="diff-hunk">
              <td colSpan={4}>{row.text}</td>
            </tr>
          ) : (
            <tr key={i}>
              {cell(row.left, 'left')}
              {cell(row.right, 'right')}
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function UnifiedText({ before, after }: { before: string; after: string }) {
  const rows = unifiedRows(before, after);
  return (
    <table className="diff-table diff-unified" data-testid="diff-unified">
      <tbody>
        {rows.map((row, i) =>
          row.kind === 'hunk' ? (
            <tr key={i} className="diff-hunk">
              <td colSpan={3}>{row.text}</td>
            </tr>
          ) : (
            <tr key={i}>
              <td className="diff-num">{row.oldLine ?? ''}</td>
              <td className="diff-num">{row.newLine ?? ''}</td>
              <td className={`diff-text diff-${row.kind}`}>
                {row.kind === 'removed' ? '-' : row.kind === 'added' ? '+' : ' '}
                {row.text}
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function describeSide(side: DiffSide | null): string {
  if (side === null) return 'absent';
  switch (side.kind) {
    case 'text':
      return `text, ${formatBytes(side.size)}`;
    case 'binary':
      return `${side.reason === 'binary' ? 'binary' : 'text too long to show'}, ${formatBytes(side.size)}${side.executable ? ', executable' : ''}`;
    case 'link':
      return `symbolic link to ${side.target}`;
    case 'folder':
      return 'folder';
    case 'not-covered':
      return 'not covered by undo (over the storage budget)';
  }
}

function hashOf(side: DiffSide | null): string {
  return side?.kind === 'binary' ? side.sha256 : '—';
}

function modeChange(before: DiffSide | null, after: DiffSide | null): string | null {
  if (before?.kind !== 'text' || after?.kind !== 'text' || before.executable === after.executable) return null;
  return after.executable ? 'Made executable.' : 'No longer executable.';
}
