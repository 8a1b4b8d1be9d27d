// The channel registry (shared/channels/registry.ts): every kind of effect has one complete channel spec, the
// domain's unions and the main side's undo channels follow the list, and a channel made up in this test joins
// the reverse plan, its words, the agent's observation, the CLI's lines and the level with its spec and one
// line in a list alone.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeObservation } from '../../main/agent/agent-loop';
import { formatAction, formatActionLine } from '../../main/cli/format';
import { confinementOf } from '../../main/policy/confinement';
import { undoChannelsById, type UndoChannelsDeps } from '../../main/services/undo-channels';
import type { ChannelSpec } from '../../shared/channels/channel-spec';
import { CHANNEL_IDS, CHANNELS, channelHeading, channelLabel, effectSchemas, stepSchemas } from '../../shared/channels/registry';
import { Effect, ReverseStep, type Action } from '../../shared/domain';
import { describeReversePlan, reversePlanOf } from '../../shared/undo/reverse-plan';

describe('the channel registry', () => {
  it('has one complete spec per channel, ids and words unique', () => {
    const ids = CHANNELS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(CHANNELS.map((c) => c.label)).size).toBe(ids.length);
    for (const c of CHANNELS) {
      expect(c.label, c.id).toMatch(/^[a-z ]+$/);
      expect(c.heading, c.id).toMatch(/^[A-Z]/);
      // The effect and the step are the channel's own: their discriminator is its id.
      expect(c.effect.shape.channel.value, c.id).toBe(c.id);
      if (c.step) expect(c.step.shape.channel.value, c.id).toBe(c.id);
      expect(['local', 'remote', 'none']).toContain(c.undo);
      // Undo has something to do for a channel exactly when it has a step.
      expect(c.step === null, c.id).toBe(c.undo === 'none');
      for (const member of ['plan', 'words', 'call', 'observe', 'lines', 'level'] as const) expect(typeof c[member], `${c.id}.${member}`).toBe('function');
    }
  });

  it('is where the domain unions come from: every effect kind and every reverse step has its channel', () => {
    const effectKinds = Effect.options.map((o) => o.shape.channel.value);
    expect(effectKinds).toEqual(CHANNEL_IDS);
    const stepKinds = ReverseStep.options.map((o) => o.shape.channel.value);
    expect(stepKinds).toEqual(CHANNELS.filter((c) => c.step).map((c) => c.id));
    expect(channelLabel('fs')).toBe('files');
    expect(channelHeading('rest')).toBe('Service calls');
  });

  it('asks the main side for one undo channel entry per channel id (the compiler checks the record; this checks the names)', () => {
    const deps = { store: {}, fs: {}, reverter: {}, memory: {} } as unknown as UndoChannelsDeps;
    const byId = undoChannelsById(deps);
    expect(Object.keys(byId).sort()).toEqual([...CHANNEL_IDS].sort());
    for (const [id, channel] of Object.entries(byId)) {
      if (channel) expect(channel.name).toBe(id);
      // A channel with undo has an undo channel on the main side; one without has none.
      expect(channel === null, id).toBe(CHANNELS.find((c) => c.id === id)!.undo === 'none');
    }
  });

  it('refuses, at compile time, a spec that lacks a part', () => {
    const Bare = z.object({ channel: z.literal('bare') });
    // @ts-expect-error -- no observe, lines, level or tally: not a channel
    const incomplete: ChannelSpec<typeof Bare, null> = {
      id: 'bare',
      label: 'bare',
      heading: 'Bare',
      effect: Bare,
      step: null,
      undo: 'none',
      checkpointed: false,
      plan: () => ({ steps: [] }),
      words: () => [],
      call: () => null,
    };
    expect(incomplete.id).toBe('bare');
  });
});

// A channel that does not exist: bookmarks an action added to the person's browser, each taken off by undo.
const BookmarkEffect = z.object({ channel: z.literal('bookmarks'), url: z.string(), title: z.string(), refused: z.string().nullable() });
const BookmarkStep = z.object({ channel: z.literal('bookmarks'), url: z.string() });
const bookmarks: ChannelSpec<typeof BookmarkEffect, typeof BookmarkStep> = {
  id: 'bookmarks',
  label: 'bookmarks',
  heading: 'Bookmarks',
  effect: BookmarkEffect,
  step: BookmarkStep,
  undo: 'local',
  checkpointed: false,
  plan: (effects) => ({ steps: effects.filter((e) => e.refused === null).map((e) => ({ channel: 'bookmarks' as const, url: e.url })).reverse() }),
  words: (steps, { before }) => (steps.length ? [`${before > 0 ? 'Then remove' : 'Remove'} the bookmarks ${steps.map((s) => s.url).join(', ')}.`] : []),
  call: () => null,
  observe: (e) => (e.refused ? `bookmark ${e.url} refused: ${e.refused}` : `bookmarked ${e.url} as "${e.title}"`),
  lines: (e) => [`  ★ ${e.url}  ${e.title}`],
  level(e, facts) {
    if (e.refused === null) facts.compensable.push(`bookmark ${e.url}`);
  },
  tally: { noun: 'bookmark', always: false, of: () => 1 },
};

describe('a new channel: its folder and one line in the list', () => {
  const channels = [...CHANNELS, bookmarks] as const;
  const TestEffect = z.discriminatedUnion('channel', effectSchemas(channels));
  const TestStep = z.discriminatedUnion('channel', stepSchemas(channels));
  const fsEffect = { channel: 'fs', workspace: 'notes', added: ['a.txt'], modified: [], deleted: [], checkpointBefore: 'c1', checkpointAfter: 'c2' };
  const mark = { channel: 'bookmarks', url: 'https://example.org/', title: 'Example', refused: null };
  const note = { channel: 'memory', note: 'likes tea', appended: '- likes tea\n', beforeSha256: 'a', afterSha256: 'b', refused: null };
  const action = (effects: unknown[]) =>
    ({
      id: 'a1',
      taskId: 't1',
      seq: 3,
      kind: 'code',
      language: 'python',
      source: 'add_bookmark()',
      status: 'done',
      output: { stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false },
      effects,
      confinement: { level: 'reversible', reason: '' },
    }) as unknown as Action;

  it('is parsed by the effect union built from the list, and its step by the step union', () => {
    expect(TestEffect.parse(mark)).toEqual(mark);
    expect(() => TestEffect.parse({ ...mark, url: 3 })).toThrow();
    expect(TestStep.parse({ channel: 'bookmarks', url: 'x' })).toEqual({ channel: 'bookmarks', url: 'x' });
    // Without the line in the list, it is not an effect.
    expect(Effect.safeParse(mark).success).toBe(false);
  });

  it('takes its place in the reverse plan and its words, in the list order, between the local channels and the calls', () => {
    const a = action([fsEffect, mark, note]);
    const plan = reversePlanOf(a, channels);
    expect(plan.steps.map((s) => s.channel)).toEqual(['fs', 'memory', 'bookmarks']);
    expect(describeReversePlan(plan, 'code', channels)).toBe('Delete a.txt. Then take "likes tea" off the memory, if it was not edited since. Then remove the bookmarks https://example.org/.');
    const alone = reversePlanOf(action([mark]), channels);
    expect(describeReversePlan(alone, 'code', channels)).toBe('Remove the bookmarks https://example.org/.');
    // The registry without it plans nothing for it.
    expect(reversePlanOf(action([mark])).steps).toEqual([]);
  });

  it('is told to the agent, printed by the CLI, counted on the action line and rated by the confinement rules', () => {
    const a = action([fsEffect, mark]);
    expect(describeObservation(a, channels)).toContain('bookmarked https://example.org/ as "Example"');
    const shown = { ...a, reverse: reversePlanOf(a, channels) };
    expect(formatAction(shown, channels)).toContain('  ★ https://example.org/  Example');
    expect(formatActionLine(shown, channels)).toContain('1 file(s), 1 bookmark(s)');
    const facts = { network: 'none', writableMountsCheckpointed: true, checkpointsTaken: true } as const;
    expect(confinementOf(facts, a.effects, channels)).toMatchObject({ level: 'compensable', reason: expect.stringContaining('bookmark https://example.org/') });
    expect(confinementOf(facts, a.effects).level).toBe('reversible');
  });
});
