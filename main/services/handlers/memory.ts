// memory:* — the agent's memory (DATA/memory.md) as the person reads, edits and clears it.
import type { MemoryFile } from '../../effects/memory/memory-file';
import type { HandlersOf } from './handlers';

export function memoryHandlers(memory: MemoryFile): HandlersOf<'memory:get' | 'memory:update' | 'memory:clear'> {
  return {
    'memory:get': async () => ({ text: memory.read(), path: memory.path }),
    'memory:update': async ({ text }) => (memory.write(text), { text: memory.read(), path: memory.path }),
    'memory:clear': async () => (memory.write(''), { text: '', path: memory.path }),
  };
}
