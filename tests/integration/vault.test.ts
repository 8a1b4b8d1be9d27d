// The vault against the real OS keychain (a Secret Service on D-Bus; npm test provides a private one).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SettingsService } from '../../main/services/settings-service';
import { openDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';
import { KNOWN_SECRETS, Vault } from '../../main/vault/vault';
import { tempDirs } from '../support/temp-dir';

const service = `dev.posthoc.test-${randomUUID()}`;
const vault = new Vault(service);
const dirs = tempDirs();

afterEach(async () => {
  for (const s of (await vault.status()).secrets) await vault.remove(s.name);
  dirs.cleanup();
});

describe('Vault (real keychain)', () => {
  it('answers, stores, reads and removes a secret; status lists names only', async () => {
    const status = await vault.status();
    expect(status).toMatchObject({ available: true, message: null });
    const value = `sk-canary-${randomUUID()}`;
    await vault.set('some-token', value);
    expect(await vault.get('some-token')).toBe(value);
    const listed = await vault.status();
    expect(listed.secrets).toEqual([{ name: 'some-token', kind: 'secret' }]);
    expect(JSON.stringify(listed)).not.toContain(value);
    expect(await vault.remove('some-token')).toBe(true);
    expect(await vault.get('some-token')).toBeNull();
  });

  it('keeps the LLM API key in the keychain: settings say only that one is set, the run config gets it', async () => {
    const db = openDatabase(dirs.make());
    try {
      const settings = new SettingsService(new TaskStore(db), vault, {});
      const key = `sk-canary-${randomUUID()}`;
      const saved = await settings.update({ apiKey: key, model: 'gpt-test' });
      expect(saved).toMatchObject({ apiKeySet: true, configured: true, sources: { apiKey: 'vault', model: 'settings' } });
      expect(JSON.stringify(saved)).not.toContain(key);
      expect(await vault.get(KNOWN_SECRETS.llmApiKey)).toBe(key);
      expect((await settings.llmConfig()).apiKey).toBe(key);
      const rows = db.prepare('SELECT value_json FROM settings').all() as Array<{ value_json: string }>;
      expect(JSON.stringify(rows)).not.toContain(key);

      const removed = await settings.update({ apiKey: '' });
      expect(removed).toMatchObject({ apiKeySet: false, configured: false });
    } finally {
      db.close();
    }
  });
});
