// The composer's folder field: a path typed with completion (folder:complete) in a listbox under it, per
// ARIA's combobox pattern — arrow keys move, Enter takes the highlighted folder (and lists what is inside
// it), Enter again adds the path as a chip, Escape closes the list. "Folder…" opens the desktop app's own
// folder picker (folder:pick); where there is none (the web host) it brings the person to this field.
import { forwardRef, useEffect, useId, useImperativeHandle, useRef, useState, type KeyboardEvent } from 'react';

export type FolderFieldHandle = { focus(): void };

/** A typed path as a grant: trimmed, without a trailing separator (except the root). */
export function typedFolder(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return trimmed.length > 1 ? trimmed.replace(/[\\/]+$/, '') || trimmed : trimmed;
}

export const FolderField = forwardRef<FolderFieldHandle, { value: string; onValue(next: string): void; onAdd(path: string): void; full: boolean }>(function FolderField(
  { value, onValue: setValue, onAdd, full },
  ref,
) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [entries, setEntries] = useState<string[]>([]);
  const [truncated, setTruncated] = useState(false);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [problem, setProblem] = useState<string | null>(null);
  const asked = useRef(0);

  // The highlighted folder stays in view as the arrows move through a long list.
  useEffect(() => {
    if (active >= 0) document.getElementById(`${id}-folder-${active}`)?.scrollIntoView({ block: 'nearest' });
  }, [active, id]);

  useImperativeHandle(ref, () => ({
    focus: () => input.current?.focus(),
  }));

  function complete(prefix: string): void {
    const ask = ++asked.current;
    setActive(-1);
    if (!/^(\/|~|[A-Za-z]:\\)/.test(prefix)) {
      setEntries([]);
      setOpen(false);
      setProblem(null);
      return;
    }
    void window.posthoc.folderComplete({ prefix }).then((result) => {
      if (ask !== asked.current) return;
      if (!result.ok) {
        setEntries([]);
        setOpen(false);
        setProblem(result.error.message);
        return;
      }
      setProblem(null);
      setEntries(result.value.entries);
      setTruncated(result.value.truncated);
      setOpen(result.value.entries.length > 0);
    });
  }

  function change(next: string): void {
    setValue(next);
    complete(next);
  }

  function pick(entry: string): void {
    // The list held the picked folder's siblings: gone at once, not shown until the answer for inside it.
    setEntries([]);
    setOpen(false);
    change(entry + '/');
    input.current?.focus();
  }

  function add(): void {
    const path = typedFolder(value);
    if (path === null || full) return;
    onAdd(path);
    asked.current++;
    setValue('');
    setEntries([]);
    setOpen(false);
    setProblem(null);
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>): void {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (entries.length === 0) return;
      e.preventDefault();
      setOpen(true);
      const n = entries.length;
      setActive((current) => (e.key === 'ArrowDown' ? (current + 1) % n : current <= 0 ? n - 1 : current - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const chosen = open && active >= 0 ? entries[active] : undefined;
      if (chosen !== undefined) pick(chosen);
      else add();
    } else if (e.key === 'Escape' && open) {
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
      setActive(-1);
    } else if (e.key === 'Tab') {
      setOpen(false);
    }
  }

  const listId = `${id}-folders`;
  const optionId = (index: number) => `${id}-folder-${index}`;
  const expanded = open && entries.length > 0;
  return (
    <div className="folder-field">
      <label htmlFor={`${id}-input`}>Add a folder the agent may change</label>
      <div className="folder-field-row">
        <div className="folder-combobox">
          <input
            ref={input}
            id={`${id}-input`}
            type="text"
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={expanded}
            aria-controls={listId}
            aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
            aria-describedby={`${id}-hint`}
            data-testid="new-task-workspace"
            placeholder="/Users/me/Documents/project"
            value={value}
            onChange={(e) => change(e.target.value)}
            onKeyDown={onKeyDown}
            onBlur={() => setOpen(false)}
            spellCheck={false}
            autoComplete="off"
            disabled={full}
          />
          <ul id={listId} role="listbox" aria-label="Folders" className="folder-options" data-testid="folder-options" hidden={!expanded}>
            {entries.map((entry, index) => (
              <li
                key={entry}
                id={optionId(index)}
                role="option"
                aria-selected={index === active}
                className={index === active ? 'folder-option active' : 'folder-option'}
                // mousedown, not click: the field keeps focus, so the list does not close under the pointer.
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(entry);
                }}
              >
                {entry}
              </li>
            ))}
          </ul>
        </div>
        <button type="button" className="button button-small" data-testid="new-task-add-folder" disabled={full || typedFolder(value) === null} onClick={add}>
          Add
        </button>
      </div>
      <p className="field-hint" id={`${id}-hint`} role="status" data-testid="folder-hint">
        {problem ??
          (full
            ? 'That is the most folders one task may have.'
            : expanded && truncated
              ? 'More folders than shown: type more of the name.'
              : 'A full path on this computer; ↓ lists the folders in it, Enter adds it. Only these folders exist in the sandbox, and every change to them can be undone.')}
      </p>
    </div>
  );
});
