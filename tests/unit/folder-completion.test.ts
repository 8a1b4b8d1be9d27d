// folder:complete's service on real temp folders: folders only, hidden ones on request, bounded, and the hostile
// prefixes (.., a link loop, a file, Posthoc's own data folder) answered without leaking anything.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completeFolder, MAX_ENTRIES } from '../../main/services/folder-completion';
import { ServiceError } from '../../main/services/service-error';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'posthoc-complete-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('completeFolder', () => {
  it('offers the folders under the prefix whose names start with what was typed, never files', async () => {
    mkdirSync(join(root, 'photos'));
    mkdirSync(join(root, 'projects'));
    mkdirSync(join(root, 'music'));
    writeFileSync(join(root, 'plan.txt'), 'secret contents');
    const answer = await completeFolder(join(root, 'p'), []);
    expect(answer).toEqual({ folder: root + '/', entries: [join(root, 'photos'), join(root, 'projects')], truncated: false });
    expect((await completeFolder(root + '/', [])).entries).toEqual([join(root, 'music'), join(root, 'photos'), join(root, 'projects')]);
    expect(JSON.stringify(answer)).not.toContain('secret contents');
  });

  it('offers hidden folders only when the typed name starts with a dot', async () => {
    mkdirSync(join(root, '.config'));
    mkdirSync(join(root, 'code'));
    expect((await completeFolder(root + '/', [])).entries).toEqual([join(root, 'code')]);
    expect((await completeFolder(join(root, '.c'), [])).entries).toEqual([join(root, '.config')]);
    expect((await completeFolder(root + '/.', [])).entries).toEqual([join(root, '.config')]);
  });

  it('follows a link that leads to a folder and leaves out a link loop and a dangling link', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'link'));
    symlinkSync(join(root, 'loop'), join(root, 'loop'));
    symlinkSync(join(root, 'a'), join(root, 'b'));
    symlinkSync(join(root, 'b'), join(root, 'a'));
    symlinkSync(join(root, 'gone'), join(root, 'dangling'));
    expect((await completeFolder(root + '/', [])).entries).toEqual([join(root, 'link'), join(root, 'real')]);
    expect(await completeFolder(join(root, 'loop', 'loop', 'x'), [])).toEqual({ folder: join(root, 'loop', 'loop') + '/', entries: [], truncated: false });
  });

  it('stays bounded in a huge folder', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 6000; i++) mkdirSync(join(root, `d${String(i).padStart(5, '0')}`));
    const answer = await completeFolder(root + '/', []);
    expect(answer.entries).toHaveLength(MAX_ENTRIES);
    expect(answer.truncated).toBe(true);
    const narrowed = await completeFolder(join(root, 'd0000'), []);
    expect(narrowed.entries.length).toBeLessThanOrEqual(10);
    expect(narrowed.entries.every((e) => e.startsWith(join(root, 'd0000')))).toBe(true);
  });

  it('answers nothing for a path through a file', async () => {
    writeFileSync(join(root, 'notes.txt'), 'x');
    expect(await completeFolder(join(root, 'notes.txt') + '/', [])).toEqual({ folder: join(root, 'notes.txt') + '/', entries: [], truncated: false });
    expect((await completeFolder(join(root, 'notes'), [])).entries).toEqual([]);
  });

  it('refuses .. and relative prefixes with a sentence saying what to type', async () => {
    mkdirSync(join(root, 'inner'));
    for (const prefix of [join(root, 'inner') + '/../', `${root}/inner/..`, 'relative/path', `${root}/./inner`]) {
      const error = await completeFolder(prefix, []).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).code).toBe('invalid-input');
      expect((error as Error).message).toMatch(/Type /);
    }
  });

  it('never offers Posthoc’s own data folder or a link to it', async () => {
    const data = join(root, 'posthoc-data');
    mkdirSync(join(data, 'checkpoints'), { recursive: true });
    mkdirSync(join(root, 'project'));
    symlinkSync(data, join(root, 'shortcut'));
    expect((await completeFolder(root + '/', [data])).entries).toEqual([join(root, 'project')]);
    expect((await completeFolder(data + '/', [data])).entries).toEqual([]);
  });

  it('expands ~ to the home folder', async () => {
    mkdirSync(join(root, 'Documents'));
    expect((await completeFolder('~/Doc', [], root)).entries).toEqual([join(root, 'Documents')]);
  });
});
