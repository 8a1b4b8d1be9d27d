// The packages channel: package files the sandbox's pip, npm or apt fetched through the gateway's package
// routes (main/gateway/packages). They land in the task's own environment, removed with the task: no undo.
import type { ChannelSpec } from '../channel-spec';
import { PackagesEffect } from './effect';

export const packages: ChannelSpec<typeof PackagesEffect, null> = {
  id: 'packages',
  label: 'packages',
  heading: 'Packages',
  effect: PackagesEffect,
  step: null,
  undo: 'none',
  checkpointed: false,
  plan: () => ({ steps: [] }),
  words: () => [],
  call: () => null,
  observe: (effect) =>
    effect.refused
      ? `${effect.manager} download of ${effect.name} refused: ${effect.refused}`
      : `${effect.manager} downloaded ${effect.name}${effect.version ? ` ${effect.version}` : ''}${effect.source === 'cache' ? ' (from the host cache)' : ''}`,
  lines: (effect) => [
    `  ↓ ${effect.manager} ${effect.name}${effect.version ? ` ${effect.version}` : ''}${effect.file ? ` (${effect.file})` : ''}  ${effect.refused ? `refused: ${effect.refused}` : effect.source === 'cache' ? 'from the host cache' : effect.source}`,
  ],
  // A GET of a public index file into the task's own environment: changes nothing anyone else sees.
  level: () => undefined,
  tally: null,
};
