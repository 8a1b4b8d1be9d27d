// Settings → Memory: the notes the agent keeps across tasks (DATA/memory.md), as plain Markdown the
// person reads, edits and clears here (or with `posthoc memory show|edit|clear`). An undo of a note the
// agent wrote refuses once the person changed the memory here.
import { useEffect, useId, useState } from 'react';
import type { MemoryView, Result } from '../../../shared/contract';

async function call<T>(fn: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await fn();
  } catch (error) {
    return { ok: false, error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } };
  }
}

export function MemorySettings() {
  const [memory, setMemory] = useState<Result<MemoryView> | null>(null);
  const [draft, setDraft] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const id = useId();

  const show = (result: Result<MemoryView>) => {
    setMemory(result);
    if (result.ok) setDraft(result.value.text);
  };
  useEffect(() => {
    void call(() => window.posthoc.memoryGet({})).then(show);
  }, []);

  async function save(text: string | null): Promise<void> {
    const result = await call(() => (text === null ? window.posthoc.memoryClear({}) : window.posthoc.memoryUpdate({ text })));
    setMessage(result.ok ? { ok: true, text: text === null ? 'Cleared.' : 'Saved.' } : { ok: false, text: result.error.message });
    if (result.ok) show(result);
  }

  if (memory === null) return <p className="muted">Loading…</p>;
  if (!memory.ok) return <p className="form-error">{memory.error.message}</p>;
  const changed = draft !== memory.value.text;
  return (
    <form
      className="memory-settings"
      data-testid="memory-settings"
      onSubmit={(e) => {
        e.preventDefault();
        void save(draft);
      }}
    >
      <p className="muted">
        Notes the agent keeps across tasks: facts about your folders, services and preferences it learned. Each task starts with them
        in its prompt (unless run with <code>--no-memory</code>); each note the agent writes is listed on its action, and undo takes it
        off. Kept in <code>{memory.value.path}</code>.
      </p>
      <div className="field">
        <label htmlFor={`${id}-text`}>Memory</label>
        <textarea
          id={`${id}-text`}
          rows={8}
          value={draft}
          placeholder="The memory is empty."
          onChange={(e) => setDraft(e.target.value)}
          data-testid="memory-text"
          spellCheck={false}
        />
      </div>
      <div className="form-actions">
        <button type="submit" className="button" disabled={!changed} data-testid="memory-save">
          Save
        </button>
        <button type="button" className="button" disabled={memory.value.text === ''} onClick={() => void save(null)} data-testid="memory-clear">
          Clear
        </button>
        {message && (
          <span className={message.ok ? 'muted' : 'form-error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </span>
        )}
      </div>
    </form>
  );
}
