// Provider settings over a real store (temporary SQLite) and a vault backed by an in-memory keychain.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../../main/services/service-error';
import { SettingsService } from '../../main/services/settings-service';
import { defaultsView, SETTINGS } from '../../shared/settings';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';
import { KNOWN_SECRETS, Vault, VaultUnavailable } from '../../main/vault/vault';

const SERVICE = 'test-service';
const SECRET = 'sk-test-4f9a1c2e-very-secret';

function fakeKeytar() {
  const entries = new Map<string, string>();
  const key = (service: string, account: string) => `${service}\u0000${account}`;
  return {
    entries,
    getPassword: vi.fn(async (service: string, account: string) => entries.get(key(service, account)) ?? null),
    setPassword: vi.fn(async (service: string, account: string, password: string) => {
      entries.set(key(service, account), password);
    }),
    deletePassword: vi.fn(async (service: string, account: string) => entries.delete(key(service, account))),
    findCredentials: vi.fn(async (service: string) =>
      [...entries].filter(([k]) => k.startsWith(`${service}\u0000`)).map(([k, password]) => ({ account: k.split('\u0000')[1]!, password })),
    ),
  };
}

let dir: string;
let db: AppDatabase;
let store: TaskStore;
let keytar: ReturnType<typeof fakeKeytar>;
let vault: Vault;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'posthoc-settings-'));
  db = openDatabase(dir);
  store = new TaskStore(db);
  keytar = fakeKeytar();
  vault = new Vault(SERVICE, async () => keytar);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Always pass an env object, so the machine's own OPENAI_* variables never leak into a test. */
const service = (env: NodeJS.ProcessEnv = {}) => new SettingsService(store, vault, env);

describe('SettingsService.get', () => {
  it('reports nothing configured on a fresh install, with defaults for the agent', async () => {
    expect(await service().get()).toEqual({
      model: null,
      baseUrl: null,
      apiKeySet: false,
      sources: { model: 'none', baseUrl: 'none', apiKey: 'none' },
      configured: false,
      values: defaultsView(SETTINGS),
      providers: [],
    });
  });

  it('reports saved settings and a key in the vault, with their sources', async () => {
    await service().update({ model: 'gpt-saved', baseUrl: 'http://localhost:11434/v1', apiKey: SECRET, maxSteps: 9, actionTimeoutSeconds: 30 });
    expect(await service().get()).toEqual({
      model: 'gpt-saved',
      baseUrl: 'http://localhost:11434/v1',
      apiKeySet: true,
      sources: { model: 'settings', baseUrl: 'settings', apiKey: 'vault' },
      configured: true,
      values: expect.objectContaining({ maxSteps: { value: 9, source: 'settings' }, actionTimeoutSeconds: { value: 30, source: 'settings' } }),
      providers: [],
    });
  });

  it('keeps the package settings, and lets POSTHOC_PIP_INDEX_URL / POSTHOC_NPM_REGISTRY_URL win over saved upstreams', async () => {
    await service().update({ packageFetching: 'allowed', packagesAllowed: ['numpy', 'npm:left-pad'], pipIndexUrl: 'https://pypi.example/simple' });
    expect((await service().get()).values).toMatchObject({
      packageFetching: { value: 'allowed', source: 'settings' },
      packagesAllowed: { value: ['numpy', 'npm:left-pad'], source: 'settings' },
      pipIndexUrl: { value: 'https://pypi.example/simple', source: 'settings' },
      npmRegistryUrl: { value: 'https://registry.npmjs.org', source: 'default' },
    });
    const env = { POSTHOC_PIP_INDEX_URL: 'http://mirror.example/simple', POSTHOC_NPM_REGISTRY_URL: 'http://mirror.example/npm' };
    expect(service(env).packagePolicy()).toMatchObject({
      fetching: 'allowed',
      allowed: ['numpy', 'npm:left-pad'],
      pipIndexUrl: 'http://mirror.example/simple',
      npmRegistryUrl: 'http://mirror.example/npm',
    });
    await service().update({ packageFetching: 'on', pipIndexUrl: null });
    expect(service().packagePolicy()).toMatchObject({ fetching: 'on', pipIndexUrl: 'https://pypi.org/simple' });
  });

  it('lets the environment win over saved settings and the vault', async () => {
    await service().update({ model: 'gpt-saved', baseUrl: 'http://saved.example/v1', apiKey: SECRET });
    const env = { POSTHOC_MODEL: 'env-model', OPENAI_BASE_URL: 'http://env.example/v1', OPENAI_API_KEY: 'sk-env' };
    const settings = await service(env).get();
    expect(settings).toMatchObject({
      model: 'env-model',
      baseUrl: 'http://env.example/v1',
      apiKeySet: true,
      sources: { model: 'env', baseUrl: 'env', apiKey: 'env' },
      configured: true,
    });
    const config = await service(env).llmConfig();
    expect(config).toMatchObject({ apiKey: 'sk-env', baseUrl: 'http://env.example/v1', model: 'env-model' });
  });

  it('ignores blank environment variables', async () => {
    await service().update({ model: 'gpt-saved' });
    const settings = await service({ POSTHOC_MODEL: '   ', OPENAI_API_KEY: '' }).get();
    expect(settings.model).toBe('gpt-saved');
    expect(settings.sources).toEqual({ model: 'settings', baseUrl: 'none', apiKey: 'none' });
  });

  it('is not configured without a model, even with a key', async () => {
    const settings = await service({ OPENAI_API_KEY: 'sk-env' }).get();
    expect(settings.apiKeySet).toBe(true);
    expect(settings.configured).toBe(false);
  });

  it('is configured with a model and a base URL but no key (a local server)', async () => {
    expect((await service({ POSTHOC_MODEL: 'llama3', OPENAI_BASE_URL: 'http://localhost:11434/v1' }).get()).configured).toBe(true);
  });

  it('is not configured with a model but neither key nor base URL', async () => {
    expect((await service({ POSTHOC_MODEL: 'gpt-x' }).get()).configured).toBe(false);
  });
});

describe('SettingsService.update', () => {
  it('stores the API key in the vault and never returns its value', async () => {
    const settings = await service().update({ apiKey: SECRET });
    expect(keytar.setPassword).toHaveBeenCalledWith(SERVICE, KNOWN_SECRETS.llmApiKey, SECRET);
    expect(await vault.get(KNOWN_SECRETS.llmApiKey)).toBe(SECRET);
    expect(settings.apiKeySet).toBe(true);
    expect(settings.sources.apiKey).toBe('vault');
    expect(JSON.stringify(settings)).not.toContain(SECRET);
    expect(JSON.stringify(await service().get())).not.toContain(SECRET);
  });

  it('never writes the key into the settings table', async () => {
    await service().update({ apiKey: SECRET, model: 'm' });
    const rows = db.prepare('SELECT key, value_json FROM settings').all();
    expect(JSON.stringify(rows)).not.toContain(SECRET);
  });

  it('removes the key from the vault when given an empty string', async () => {
    await service().update({ apiKey: SECRET });
    const settings = await service().update({ apiKey: '' });
    expect(keytar.deletePassword).toHaveBeenCalledWith(SERVICE, KNOWN_SECRETS.llmApiKey);
    expect(settings.apiKeySet).toBe(false);
    expect(await vault.get(KNOWN_SECRETS.llmApiKey)).toBeNull();
  });

  it('leaves what it is not given alone, and null clears a saved value', async () => {
    await service().update({ model: 'gpt-a', baseUrl: 'http://localhost:1234/v1', maxSteps: 5 });
    expect(await service().update({ maxSteps: 6 })).toMatchObject({ model: 'gpt-a', baseUrl: 'http://localhost:1234/v1', values: { maxSteps: { value: 6 } } });
    const cleared = await service().update({ baseUrl: null });
    expect(cleared).toMatchObject({ model: 'gpt-a', baseUrl: null, sources: { baseUrl: 'none' } });
    expect(keytar.setPassword).not.toHaveBeenCalled();
  });
});

describe('SettingsService.llmConfig', () => {
  it('throws an unavailable ServiceError saying how to set a model when none is configured', async () => {
    const error = await service({ OPENAI_API_KEY: 'sk-env' }).llmConfig().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('unavailable');
    expect((error as ServiceError).message).toMatch(/No model is configured/);
    expect((error as ServiceError).message).toMatch(/POSTHOC_MODEL/);
    expect((error as ServiceError).message).toMatch(/Settings/);
  });

  it('throws an unavailable ServiceError saying how to add a key when there is neither key nor base URL', async () => {
    const error = await service({ POSTHOC_MODEL: 'gpt-x' }).llmConfig().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('unavailable');
    expect((error as ServiceError).message).toMatch(/OPENAI_API_KEY/);
    expect((error as ServiceError).message).toMatch(/OPENAI_BASE_URL/);
  });

  it('uses a placeholder key for a base URL without a key', async () => {
    const config = await service({ POSTHOC_MODEL: 'llama3', OPENAI_BASE_URL: 'http://localhost:11434/v1' }).llmConfig();
    expect(config.apiKey).toBeTruthy();
    expect(config.apiKey).toBe('posthoc-no-key');
    expect(config.baseUrl).toBe('http://localhost:11434/v1');
    expect(config.model).toBe('llama3');
  });

  it('reads the key from the vault when the environment has none', async () => {
    await service().update({ model: 'gpt-saved', apiKey: SECRET });
    expect(await service().llmConfig()).toEqual({ apiKey: SECRET, baseUrl: null, model: 'gpt-saved', stream: true, protocol: 'fenced' });
  });

  it('takes a model override, and POSTHOC_STREAM=0 turns streaming off', async () => {
    const config = await service({ OPENAI_API_KEY: 'sk-env', POSTHOC_STREAM: '0' }).llmConfig({ model: 'gpt-override' });
    expect(config).toEqual({ apiKey: 'sk-env', baseUrl: null, model: 'gpt-override', stream: false, protocol: 'fenced' });
  });

  it('POSTHOC_PROTOCOL chooses tools or auto; anything else is fenced', async () => {
    expect((await service({ OPENAI_API_KEY: 'k', POSTHOC_PROTOCOL: 'tools' }).llmConfig({ model: 'm' })).protocol).toBe('tools');
    expect((await service({ OPENAI_API_KEY: 'k', POSTHOC_PROTOCOL: 'auto' }).llmConfig({ model: 'm' })).protocol).toBe('auto');
    expect((await service({ OPENAI_API_KEY: 'k', POSTHOC_PROTOCOL: 'xml' }).llmConfig({ model: 'm' })).protocol).toBe('fenced');
  });
});

describe('when no keychain answers', () => {
  const realPlatform = process.platform;
  beforeEach(() => {
    Object.defineProperty(process, 'platform', { value: 'linux', configurable: true });
    vault = new Vault(SERVICE, async () => {
      throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
    });
  });
  afterEach(() => {
    Object.defineProperty(process, 'platform', { value: realPlatform, configurable: true });
  });

  it('Vault.status says unavailable, why, and how to fix it on Linux', async () => {
    const status = await vault.status();
    expect(status.available).toBe(false);
    expect(status.secrets).toEqual([]);
    expect(status.message).toContain('Cannot autolaunch D-Bus');
    expect(status.message).toMatch(/gnome-keyring/);
    expect(status.message).toMatch(/D-Bus/);
    expect(status.message).toMatch(/OPENAI_API_KEY/);
  });

  it('update({apiKey}) rejects with a ServiceError coded unavailable and saves nothing else', async () => {
    const error = await service().update({ apiKey: SECRET, model: 'gpt-x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('unavailable');
    expect((error as ServiceError).message).toMatch(/gnome-keyring/);
    expect(store.getSetting('provider.model')).toBeUndefined();
  });

  it('get() still answers, reporting no key', async () => {
    const settings = await service({ POSTHOC_MODEL: 'gpt-x' }).get();
    expect(settings.apiKeySet).toBe(false);
    expect(settings.sources.apiKey).toBe('none');
  });

  it('the vault raises VaultUnavailable, and tries to load the keychain again next time', async () => {
    let attempts = 0;
    const keychain = fakeKeytar();
    vault = new Vault(SERVICE, async () => {
      attempts++;
      if (attempts === 1) throw new Error('not yet');
      return keychain;
    });
    await expect(vault.get('x')).rejects.toBeInstanceOf(VaultUnavailable);
    await vault.set('x', 'value');
    expect(await vault.get('x')).toBe('value');
    expect(attempts).toBe(2);
  });
});

describe('Vault with a keychain', () => {
  it('lists secret names and kinds in status, never their values', async () => {
    await vault.set(KNOWN_SECRETS.llmApiKey, SECRET);
    await vault.set('slack-token', 'xoxb-123');
    const status = await vault.status();
    expect(status.available).toBe(true);
    expect(status.message).toBeNull();
    expect(status.secrets).toEqual(
      expect.arrayContaining([
        { name: KNOWN_SECRETS.llmApiKey, kind: 'llm-api-key' },
        { name: 'slack-token', kind: 'secret' },
      ]),
    );
    expect(JSON.stringify(status)).not.toContain(SECRET);
    expect(JSON.stringify(status)).not.toContain('xoxb-123');
  });

  it('refuses to store an empty secret', async () => {
    await expect(vault.set('x', '')).rejects.toThrow(/cannot be empty/);
    expect(keytar.setPassword).not.toHaveBeenCalled();
  });
});
