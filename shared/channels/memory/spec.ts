// The memory channel: notes the agent appended to its memory file (main/effects/memory). Undo takes each off
// the end of the file again, newest first, while the file is exactly as the write left it.
import type { ChannelSpec } from '../channel-spec';
import { MemoryEffect, MemoryStep } from './effect';

export const memory: ChannelSpec<typeof MemoryEffect, typeof MemoryStep> = {
  id: 'memory',
  label: 'memory',
  heading: 'Memory',
  effect: MemoryEffect,
  step: MemoryStep,
  undo: 'local',
  checkpointed: false,
  // The memory's notes, newest first (each comes off the end of the file it was appended to).
  plan: (effects) => ({ steps: effects.flatMap((e): MemoryStep[] => (e.refused === null ? [{ channel: 'memory', note: e.note }] : [])).reverse() }),
  words: (steps, { before }) =>
    steps.length === 0 ? [] : [`${before > 0 ? 'Then take' : 'Take'} ${steps.map((n) => `"${n.note}"`).join(', ')} off the memory, if it was not edited since.`],
  call: () => null,
  observe: (effect) => (effect.refused ? `memory write refused: ${effect.refused}` : `remembered: ${effect.note}`),
  lines: (effect) => [`  ✎ memory: ${effect.refused ? `refused — ${effect.refused}` : `+ ${effect.note}`}`],
  level(effect, facts) {
    // A note appended to Posthoc's own memory file: undo takes it off (effects/memory).
    if (effect.refused === null) facts.notes++;
  },
  tally: null,
};
