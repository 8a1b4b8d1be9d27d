// The notes an action wrote to the agent's memory (DATA/memory.md, through the gateway): each one, or why
// it was refused. Undo takes them off (unless the person edited the memory since); Settings → Memory shows it all.
import type { Effect, MemoryEffect } from '../../../shared/domain';

export function listMemoryNotes(effects: readonly Effect[]): MemoryEffect[] {
  return effects.filter((e): e is MemoryEffect => e.channel === 'memory');
}

export function MemoryNotes({ effects }: { effects: readonly Effect[] }) {
  const notes = listMemoryNotes(effects);
  if (notes.length === 0) return null;
  return (
    <section className="package-downloads" data-testid="memory-notes">
      <div className="section-label">Memory</div>
      <ul>
        {notes.map((n, i) => (
          <li key={i} data-testid="memory-note" data-refused={n.refused ? 'yes' : 'no'}>
            {n.refused ? <span className="call-refused">not remembered: {n.refused}</span> : <span>remembered: {n.note}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
