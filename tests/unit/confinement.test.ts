// Confinement levels come from the sandbox's real configuration and the recorded effects.
import { describe, expect, it } from 'vitest';
import { confinementOf, type SandboxFacts } from '../../main/policy/confinement';
import type { FsEffect } from '../../shared/domain';

const sealed: SandboxFacts = { network: 'none', writableMountsCheckpointed: true, checkpointsTaken: true };

const fsEffect = (changes: Partial<Pick<FsEffect, 'added' | 'modified' | 'deleted'>>): FsEffect => ({
  channel: 'fs',
  workspace: '/workspace',
  added: [],
  modified: [],
  deleted: [],
  checkpointBefore: 'before',
  checkpointAfter: 'after',
  ...changes,
});

describe('confinementOf', () => {
  it('is reversible when nothing changed', () => {
    const c = confinementOf(sealed, []);
    expect(c.level).toBe('reversible');
    expect(c.reason).toMatch(/nothing changed/i);
  });

  it('is reversible when effects exist but list no change', () => {
    expect(confinementOf(sealed, [fsEffect({})]).level).toBe('reversible');
    expect(confinementOf(sealed, [fsEffect({})]).reason).toMatch(/nothing to undo/i);
  });

  it('is reversible for file changes in checkpointed folders, and the reason counts every change', () => {
    const effects = [
      fsEffect({ added: ['a.txt', 'b.txt'], modified: ['c.txt'] }),
      fsEffect({ deleted: ['d.txt'] }),
    ];
    const c = confinementOf(sealed, effects);
    expect(c.level).toBe('reversible');
    expect(c.reason).toContain('4 file changes');
    expect(c.reason).toMatch(/checkpointed/);
  });

  it('counts a single change as 1', () => {
    expect(confinementOf(sealed, [fsEffect({ modified: ['x'] })]).reason).toContain('1 file change ');
  });

  it('is unconfined with open network, whatever the effects and checkpoints', () => {
    for (const facts of [
      { ...sealed, network: 'open' as const },
      { network: 'open' as const, writableMountsCheckpointed: false, checkpointsTaken: false },
    ]) {
      const c = confinementOf(facts, [fsEffect({ added: ['a'] })]);
      expect(c.level).toBe('unconfined');
      expect(c.reason).toMatch(/network/);
    }
    expect(confinementOf({ ...sealed, network: 'open' }, []).level).toBe('unconfined');
  });

  it('is confined when the checkpoints were not taken', () => {
    const c = confinementOf({ ...sealed, checkpointsTaken: false }, [fsEffect({ added: ['a'] })]);
    expect(c.level).toBe('confined');
    expect(c.reason).toMatch(/no checkpoint/);
  });

  it('is confined when a writable mount has no checkpoint, even with no recorded effect', () => {
    expect(confinementOf({ ...sealed, writableMountsCheckpointed: false }, []).level).toBe('confined');
  });

  it('treats gateway-only network like no network for file effects', () => {
    expect(confinementOf({ ...sealed, network: 'gateway-only' }, [fsEffect({ added: ['a'] })]).level).toBe('reversible');
  });
});

type NotCoveredEntry = NonNullable<FsEffect['notCovered']>[number];
const uncovered = (path: string, reason: NotCoveredEntry['reason'], when: NotCoveredEntry['when'], changed: boolean): NotCoveredEntry => ({ path, reason, size: null, when, changed });
const withNotCovered = (changes: Partial<Pick<FsEffect, 'added' | 'modified' | 'deleted'>>, ...notCovered: NotCoveredEntry[]): FsEffect => ({ ...fsEffect(changes), notCovered });

describe('confinementOf with paths undo does not cover', () => {
  it.each([
    ['budget', 'over the folder’s undo storage budget'],
    ['disk-full', 'the disk was full when Posthoc tried to keep a copy'],
    ['unreadable', 'could not be read'],
    ['special', 'a special file (socket, pipe or device)'],
    ['name', 'its name is not valid UTF-8'],
  ] as const)('is never reversible when the action changed one (%s), and says why in words', (reason, words) => {
    const c = confinementOf(sealed, [withNotCovered({ modified: ['a.txt'] }, uncovered('big.bin', reason, 'both', true))]);
    expect(c.level).toBe('confined');
    expect(c.reason).toContain(`big.bin is not covered by undo (${words})`);
    expect(c.reason).toMatch(/this action changed it, so undo cannot bring back what it held/);
    expect(c.reason).not.toMatch(/restored exactly/);
  });

  it.each([
    ['disk-full', 'the disk was full when Posthoc tried to keep a copy'],
    ['unreadable', 'could not be read'],
    ['special', 'a special file (socket, pipe or device)'],
    ['name', 'its name is not valid UTF-8'],
    ['budget', 'over the folder’s undo storage budget'],
  ] as const)('is never reversible when a path is not covered after the action only (%s): undo cannot take it back', (reason, words) => {
    // The disk filled while the checkpoint after was taken: the card listed data.csv as not covered while the
    // level said "reversible — restored exactly by undo".
    const c = confinementOf(sealed, [withNotCovered({ added: ['a.txt'] }, uncovered('data.csv', reason, 'after', false))]);
    expect(c.level).toBe('confined');
    expect(c.reason).toContain(`data.csv is not covered by undo (${words})`);
    expect(c.reason).toMatch(/it is there after this action, so undo cannot take it back exactly/);
  });

  it.each([
    ['unreadable', 'could not be read'],
    ['special', 'a special file (socket, pipe or device)'],
    ['name', 'its name is not valid UTF-8'],
    ['disk-full', 'the disk was full when Posthoc tried to keep a copy'],
  ] as const)('is never reversible when a path no checkpoint could look into was there before and after (%s): whether it changed is unknown', (reason, words) => {
    const c = confinementOf(sealed, [withNotCovered({ modified: ['a.txt'] }, uncovered('pipe', reason, 'both', false))]);
    expect(c.level).toBe('confined');
    expect(c.reason).toContain(`pipe is not covered by undo (${words})`);
    expect(c.reason).toMatch(/Posthoc cannot tell whether this action changed it/);
  });

  it('stays reversible beside a large file over the budget that the action left untouched (its size, times and inode vouch for it), and says so', () => {
    const c = confinementOf(sealed, [withNotCovered({ modified: ['a.txt'] }, uncovered('huge.iso', 'budget', 'both', false))]);
    expect(c.level).toBe('reversible');
    expect(c.reason).toMatch(/1 file change in checkpointed folders, restored exactly by undo/);
    expect(c.reason).toMatch(/huge\.iso \(over the folder’s undo storage budget, not covered by undo\) was left untouched/);
  });

  it('names a few paths and counts the rest, each with its reason', () => {
    const c = confinementOf(sealed, [
      withNotCovered(
        { added: ['a.txt'] },
        uncovered('one.bin', 'budget', 'both', true),
        uncovered('two.csv', 'disk-full', 'after', false),
        uncovered('sock', 'special', 'both', false),
        uncovered('four', 'unreadable', 'after', false),
        uncovered('five', 'unreadable', 'after', false),
      ),
    ]);
    expect(c.level).toBe('confined');
    expect(c.reason).toMatch(/^5 paths are not covered by undo, so undo cannot restore them exactly: /);
    expect(c.reason).toContain('one.bin (over the folder’s undo storage budget; changed by this action)');
    expect(c.reason).toContain('two.csv (the disk was full when Posthoc tried to keep a copy; there after this action)');
    expect(c.reason).toContain('sock (a special file (socket, pipe or device); whether this action changed it is unknown)');
    expect(c.reason).toMatch(/and 2 more/);
    expect(c.reason).toMatch(/only the granted folders were writable\.$/);
  });
});
