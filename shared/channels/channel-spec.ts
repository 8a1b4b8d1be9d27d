// What a channel of effects is, in one place: everything the house needs to know about one kind of effect
// to record it, tell the agent and the person about it, rate its confinement and plan its undo. Each channel
// is a folder beside this file (files/, databases/, services/, tools/, memory/, packages/) exporting one
// spec; registry.ts lists them, and everything else (the effect union, the reverse plan and its words, the
// agent's observation, the CLI's lines, the level) reads the list and names no channel.
// Main-side parts (the route, the UndoChannel, keep) are the composition root's: main/services/undo-channels.ts
// holds one entry per channel id, checked complete by the compiler.
// Types only: the specs import their own effect.ts (zod alone) and type-only domain, so the domain can build
// its unions from the registry without an import cycle.
import type { z } from 'zod';
import type { Action } from '../domain';
import type { FsEffect } from './files/effect';

type NotCovered = NonNullable<FsEffect['notCovered']>[number];

/** What the reverse plan is built from: an action as it stands. */
export type PlanInput = Pick<Action, 'kind' | 'status' | 'output' | 'effects'>;

/** A call named on the plan: one with no known inverse, or one an earlier partial undo already took back. */
export type PlanCall = { channel: string; name: string; summary: string };

/** One channel's part of an action's reverse plan. */
export type PlanPart<S> = {
  /** In the order undo takes them (within the channel). */
  steps: S[];
  /** What nothing can take back. */
  irreversible?: Array<Omit<PlanCall, 'summary'>>;
  /** What an earlier undo that did not finish already took back. */
  takenBack?: PlanCall[];
  /** Granted folders checkpointed by the action (paths are named with their folder when several were). */
  folders?: number;
};

/** What the reverse plan's words know when a channel says its sentence. */
export type WordsContext = {
  /** Sentences said before this channel's (the connectors: "Then …", "Last, send …"). */
  before: number;
  /** Granted folders the action touched (paths are named with their folder when several). */
  folders: number;
};

/**
 * The facts an action's effects give the confinement rules (main/policy/confinement.ts): each channel adds
 * what its effects did; the rules read the facts, never a channel.
 */
export type LevelFacts = {
  /** Files added, changed, deleted or moved in checkpointed folders. */
  fileChanges: number;
  /** Rows (and schemas) changed, restored exactly by undo. */
  rowChanges: number;
  /** "N rows of NAME", per database effect that undo takes back. */
  changedRows: string[];
  /** Databases whose transaction is held open until keep or undo. */
  heldOn: Set<string>;
  /** Every database the action touched. */
  databases: Set<string>;
  /** Calls that may have changed something off the machine and have no known inverse. */
  writes: string[];
  /** Calls with a recorded inverse undo sends (the provider may refuse it). */
  compensable: string[];
  /** What the action only read from. */
  reads: Set<string>;
  /** Paths undo does not cover that keep the action from being reversible. */
  notCovered: NotCovered[];
  /** Large files over the budget the action left untouched. */
  untouched: NotCovered[];
  /** Notes written to the agent's memory. */
  notes: number;
  /** Tool calls whose changes no inverse and no checkpoint covers. */
  toolWrites: string[];
  /** One of those came from a local (stdio) server, confined to the granted folders. */
  stdioToolWrites: boolean;
};

export function emptyLevelFacts(): LevelFacts {
  return {
    fileChanges: 0,
    rowChanges: 0,
    changedRows: [],
    heldOn: new Set(),
    databases: new Set(),
    writes: [],
    compensable: [],
    reads: new Set(),
    notCovered: [],
    untouched: [],
    notes: 0,
    toolWrites: [],
    stdioToolWrites: false,
  };
}

/** A count on an action's one-line summary (`posthoc actions`): "3 file(s), 2 call(s), 10 row(s)". */
export type Tally = { noun: string; always: boolean };

/** An effect's or a step's schema: a zod object discriminated on `channel`. */
export type ChannelSchema = z.ZodObject<{ channel: z.ZodLiteral<string> } & z.ZodRawShape>;

/**
 * One channel, typed by its effect schema `ES` and its reverse-step schema `SS` (null when undo has nothing to
 * do for it). Every member is required: a channel without a complete spec does not compile.
 */
export interface ChannelSpec<ES extends ChannelSchema = ChannelSchema, SS extends ChannelSchema | null = ChannelSchema | null> {
  /** The one id of the channel, in effects, reverse steps, undo steps and blockers alike. */
  readonly id: z.output<ES>['channel'];
  /** Its word in undo results, blockers and the timeline ("files", "databases"). */
  readonly label: string;
  /** Its heading where an undo's steps are listed ("Files", "Service calls"). */
  readonly heading: string;
  /** The effect an action records (stored with the action). */
  readonly effect: ES;
  /** Its step in the reverse plan (null: undo has nothing to do for it). */
  readonly step: SS;
  /**
   * Where undo puts it: 'local' steps are exact and go first (in the registry's order), 'remote' steps are
   * calls that leave the machine and go last, 'none' has no undo (it lives in the task's own environment).
   */
  readonly undo: 'local' | 'remote' | 'none';
  /** Whether its steps rest on the files' record (an action whose file changes are unrecorded shows only the others). */
  readonly checkpointed: boolean;
  /** Its part of an action's reverse plan, from the action's effects of this channel (in recorded order). */
  plan(effects: z.output<ES>[], action: PlanInput): PlanPart<StepOf<SS>>;
  /** Local channels: its sentences on the plan ([] when it has nothing to say). */
  words(steps: StepOf<SS>[], context: WordsContext): string[];
  /** Remote channels: a step as a call (its name, its inverse's summary), said with the other calls: "Last, send …". */
  call(step: StepOf<SS>): { name: string; summary: string } | null;
  /** What the agent reads about one effect, in its observation (one line). */
  observe(effect: z.output<ES>): string;
  /** Its lines under an action in the CLI (`posthoc show`, `posthoc run`). */
  lines(effect: z.output<ES>): string[];
  /** Adds what the effect did to the confinement facts. */
  level(effect: z.output<ES>, facts: LevelFacts): void;
  /** Its count on an action's one-line summary, or null for none. */
  tally: (Tally & { of(effect: z.output<ES>): number }) | null;
}

export type StepOf<SS> = SS extends ChannelSchema ? z.output<SS> : never;

/** Any channel, as lists of them are handled. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list holds specs of every effect type
export type AnyChannelSpec = ChannelSpec<any, any>;

export function list(paths: readonly string[]): string {
  return paths.length <= 5 ? paths.join(', ') : `${paths.slice(0, 5).join(', ')} and ${paths.length - 5} more`;
}

export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
