// A setting is one declaration (shared/settings): this test declares one Posthoc does not have and shows the
// generic code reads it (default, saved, environment), writes it (checked by its schema, on the key it
// declares), and puts it into settings:update's input and settings:get's view, with no code of its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DeclaredSettings } from '../../main/services/declared-settings';
import { ServiceError } from '../../main/services/service-error';
import { SettingsService } from '../../main/services/settings-service';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';
import { Vault } from '../../main/vault/vault';
import { calls } from '../../shared/contract';
import { ProviderSettings } from '../../shared/domain';
import { defaultsView, defineEntriesSetting, defineSetting, SETTINGS, settingsInputShape, settingsViewSchema } from '../../shared/settings';

/** Made up for this test: a cap on the files an action may write, with its own variable. */
const MADE_UP = {
  maxFilesWritten: defineSetting({ key: 'test.maxFilesWritten', schema: z.number().int().min(1).max(1000), default: 50, env: 'POSTHOC_TEST_MAX_FILES' }),
  greeting: defineSetting({ key: 'test.greeting', schema: z.enum(['hello', 'hi']).nullable(), default: null }),
};

let dir: string;
let db: AppDatabase;
let store: TaskStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'posthoc-declared-'));
  db = openDatabase(dir);
  store = new TaskStore(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a setting declared once', () => {
  it('reads its default when nothing is saved and no variable is set', () => {
    const settings = new DeclaredSettings(MADE_UP, store, {});
    expect(settings.read('maxFilesWritten')).toEqual({ value: 50, source: 'default' });
    expect(settings.read('greeting')).toEqual({ value: null, source: 'default' });
    expect(settings.view()).toEqual(defaultsView(MADE_UP));
  });

  it('writes on the key it declares, and reads back what was written; null writes the default back', () => {
    const settings = new DeclaredSettings(MADE_UP, store, {});
    settings.write({ maxFilesWritten: 7, greeting: 'hi' });
    expect(store.getSetting('test.maxFilesWritten')).toBe(7);
    expect(store.getSetting('test.greeting')).toBe('hi');
    expect(settings.view()).toEqual({ maxFilesWritten: { value: 7, source: 'settings' }, greeting: { value: 'hi', source: 'settings' } });
    settings.write({ greeting: null });
    expect(store.getSetting('test.greeting')).toBeUndefined();
    expect(settings.read('greeting')).toEqual({ value: null, source: 'default' });
    expect(settings.value('maxFilesWritten')).toBe(7);
  });

  it('lets its environment variable win over the saved value, and ignores a variable that does not read', () => {
    new DeclaredSettings(MADE_UP, store, {}).write({ maxFilesWritten: 7 });
    expect(new DeclaredSettings(MADE_UP, store, { POSTHOC_TEST_MAX_FILES: ' 12 ' }).read('maxFilesWritten')).toEqual({ value: 12, source: 'env' });
    expect(new DeclaredSettings(MADE_UP, store, { POSTHOC_TEST_MAX_FILES: 'lots' }).read('maxFilesWritten')).toEqual({ value: 7, source: 'settings' });
    expect(new DeclaredSettings(MADE_UP, store, { POSTHOC_TEST_MAX_FILES: '5000' }).read('maxFilesWritten')).toEqual({ value: 7, source: 'settings' });
    expect(new DeclaredSettings(MADE_UP, store, { POSTHOC_TEST_MAX_FILES: '' }).read('maxFilesWritten')).toEqual({ value: 7, source: 'settings' });
  });

  it('refuses a value its schema refuses, naming it, and writes nothing of that update', () => {
    const settings = new DeclaredSettings(MADE_UP, store, {});
    const error = (() => {
      try {
        settings.write({ greeting: 'hello', maxFilesWritten: 0 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('invalid-input');
    expect((error as ServiceError).message).toMatch(/^maxFilesWritten: /);
    expect(store.getSetting('test.greeting')).toBeUndefined();
  });

  it('reads a saved value that no longer passes its schema (an older version wrote it) as the default', () => {
    store.setSetting('test.maxFilesWritten', 'many');
    expect(new DeclaredSettings(MADE_UP, store, {}).read('maxFilesWritten')).toEqual({ value: 50, source: 'default' });
  });

  it('gives settings:update its field and settings:get its view, from the declaration alone', () => {
    const input = z.object(settingsInputShape(MADE_UP));
    expect(input.parse({ maxFilesWritten: 3 })).toEqual({ maxFilesWritten: 3 });
    expect(input.parse({})).toEqual({});
    expect(input.safeParse({ maxFilesWritten: 1.5 }).success).toBe(false);
    const view = settingsViewSchema(MADE_UP);
    expect(view.parse({ maxFilesWritten: { value: 3, source: 'env' }, greeting: { value: null, source: 'default' } })).toBeTruthy();
    expect(view.safeParse({ maxFilesWritten: { value: 3, source: 'somewhere' }, greeting: { value: null, source: 'default' } }).success).toBe(false);
  });
});

/** Made up for this test: a map keyed by language, with two built-in entries, written entry by entry. */
const MADE_UP_MAP = {
  linters: defineEntriesSetting({ key: 'test.linters', entry: z.enum(['ruff', 'eslint', 'shellcheck']), builtIn: { python: 'ruff', javascript: 'eslint' } }),
};

describe('a map setting declared once (entries over built-in ones)', () => {
  it('reads the built-in entries, then the person\'s over them; a write names only the entries it changes, null removing one', () => {
    const settings = new DeclaredSettings(MADE_UP_MAP, store, {});
    expect(settings.read('linters')).toEqual({ value: { python: 'ruff', javascript: 'eslint' }, source: 'default' });
    settings.write({ linters: { bash: 'shellcheck', python: 'eslint' } });
    expect(store.getSetting('test.linters')).toEqual({ bash: 'shellcheck', python: 'eslint' });
    expect(settings.read('linters')).toEqual({ value: { python: 'eslint', javascript: 'eslint', bash: 'shellcheck' }, source: 'settings' });
    settings.write({ linters: { python: null } });
    expect(store.getSetting('test.linters')).toEqual({ bash: 'shellcheck' });
    expect(settings.value('linters')).toEqual({ python: 'ruff', javascript: 'eslint', bash: 'shellcheck' });
    settings.write({ linters: { bash: null } });
    expect(store.getSetting('test.linters')).toBeUndefined();
    expect(settings.read('linters').source).toBe('default');
  });

  it('refuses an entry its schema refuses, naming the setting, and writes nothing; drops a saved entry that no longer passes', () => {
    const settings = new DeclaredSettings(MADE_UP_MAP, store, {});
    settings.write({ linters: { bash: 'shellcheck' } });
    expect(() => settings.write({ linters: { go: 'golint' } } as never)).toThrow(/^linters: /);
    expect(() => settings.write({ linters: { '': 'ruff' } })).toThrow(/^linters: /);
    expect(store.getSetting('test.linters')).toEqual({ bash: 'shellcheck' });
    store.setSetting('test.linters', { bash: 'shellcheck', go: 'golint', rust: 7 });
    expect(settings.read('linters')).toEqual({ value: { python: 'ruff', javascript: 'eslint', bash: 'shellcheck' }, source: 'settings' });
    store.setSetting('test.linters', ['not', 'a', 'map']);
    expect(settings.read('linters')).toEqual({ value: { python: 'ruff', javascript: 'eslint' }, source: 'default' });
  });

  it('gives settings:update a field of nullable entries and settings:get the merged map', () => {
    const input = z.object(settingsInputShape(MADE_UP_MAP));
    expect(input.parse({ linters: { python: null, bash: 'shellcheck' } })).toEqual({ linters: { python: null, bash: 'shellcheck' } });
    expect(input.safeParse({ linters: { python: 'pylint' } }).success).toBe(false);
    const view = settingsViewSchema(MADE_UP_MAP);
    expect(view.parse({ linters: { value: { python: 'ruff' }, source: 'settings' } })).toBeTruthy();
    expect(view.safeParse({ linters: { value: { python: null }, source: 'settings' } }).success).toBe(false);
  });
});

describe("Posthoc's own declared settings", () => {
  it('are each a field of settings:update and an entry of settings:get, on the keys they always had', () => {
    const shape = calls['settings:update'].input.shape as Record<string, unknown>;
    for (const name of Object.keys(SETTINGS)) expect(shape[name]).toBeDefined();
    expect(Object.keys(ProviderSettings.shape.values.shape).sort()).toEqual(Object.keys(SETTINGS).sort());
    // The keys on disk: a change here loses what people saved (or needs a migration with its test).
    expect(Object.fromEntries(Object.entries(SETTINGS).map(([name, spec]) => [name, spec.key]))).toEqual({
      model: 'provider.model',
      baseUrl: 'provider.baseUrl',
      maxSteps: 'agent.maxSteps',
      actionTimeoutSeconds: 'agent.actionTimeoutSeconds',
      protocol: 'agent.protocol',
      budget: 'agent.budget',
      gatewayMaxResponseMiB: 'gateway.maxResponseMiB',
      gatewayTaskMiB: 'gateway.taskMiB',
      packageFetching: 'packages.fetching',
      packagesAllowed: 'packages.allowed',
      pipIndexUrl: 'packages.pipIndexUrl',
      npmRegistryUrl: 'packages.npmRegistryUrl',
      prices: 'agent.prices',
      contextWindows: 'agent.contextWindows',
    });
  });

  it('are read and written through SettingsService generically: the agent limits among them', async () => {
    const vault = new Vault('test-declared', async () => {
      throw new Error('no keychain in this test');
    });
    const service = new SettingsService(store, vault, {});
    await service.update({ maxSteps: 9, actionTimeoutSeconds: 30 });
    expect(store.getSetting('agent.maxSteps')).toBe(9);
    expect([service.maxSteps(), service.actionTimeoutSeconds(), service.value('maxSteps')]).toEqual([9, 30, 9]);
    expect((await service.get()).values.actionTimeoutSeconds).toEqual({ value: 30, source: 'settings' });
    await expect(service.update({ budget: 'much' })).rejects.toThrow(/budget: The budget much is neither tokens/);
    expect(store.getSetting('agent.budget')).toBeUndefined();
  });
});
