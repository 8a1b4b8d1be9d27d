// The one list of channels. A new channel is a folder beside this file (effect.ts, spec.ts) and one line
// here: the effect union, the reverse plan and its words, the agent's observation, the CLI's lines and the
// confinement facts all read this list. The order is undo's: local channels in this order first, then the
// calls that leave the machine (services, then tools), each newest first.
import type { z } from 'zod';
import type { AnyChannelSpec } from './channel-spec';
import { databases } from './databases/spec';
import { files } from './files/spec';
import { memory } from './memory/spec';
import { packages } from './packages/spec';
import { services } from './services/spec';
import { tools } from './tools/spec';

export const CHANNELS = [files, databases, memory, services, tools, packages] as const;

export type Channels = typeof CHANNELS;
/** The id of a channel: 'fs', 'db', 'rest', 'mcp', 'memory', 'packages'. */
export type ChannelId = Channels[number]['id'];
/** Each channel's effect schema, as a tuple (the domain's Effect union is built from it). */
export type EffectSchemas<T extends readonly AnyChannelSpec[]> = { [I in keyof T]: T[I]['effect'] };
/** Each channel's reverse-step schema that has one. */
type StepSchemaOf<T> = T extends { step: infer SS } ? SS : never;
export type StepSchemas = Exclude<StepSchemaOf<Channels[number]>, null>;

export const CHANNEL_IDS = CHANNELS.map((c) => c.id) as [ChannelId, ...ChannelId[]];

/** The effect schemas of a list of channels, for a zod discriminated union. */
export function effectSchemas<T extends readonly AnyChannelSpec[]>(channels: T): EffectSchemas<T> {
  return channels.map((c) => c.effect) as unknown as EffectSchemas<T>;
}

/** The step schemas of the channels that have one, for a zod discriminated union. */
export function stepSchemas(channels: readonly AnyChannelSpec[]): [StepSchemas, ...StepSchemas[]] {
  return channels.flatMap((c) => (c.step ? [c.step] : [])) as [StepSchemas, ...StepSchemas[]];
}

/** A channel's spec by id. */
export function channelOf(id: string, channels: readonly AnyChannelSpec[] = CHANNELS): AnyChannelSpec | undefined {
  return channels.find((c) => c.id === id);
}

/** A channel's word for the person ("files"), from its id. */
export function channelLabel(id: string): string {
  return channelOf(id)?.label ?? id;
}

/** A channel's heading where an undo's steps are listed ("Files"), from its id. */
export function channelHeading(id: string): string {
  return channelOf(id)?.heading ?? id;
}

/** The effects of one channel, typed. */
export function effectsOf<K extends ChannelId>(effects: readonly { channel: string }[], id: K): Array<z.output<Extract<Channels[number], { id: K }>['effect']>> {
  return effects.filter((e) => e.channel === id) as never;
}
