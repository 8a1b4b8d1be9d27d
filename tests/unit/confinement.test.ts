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
