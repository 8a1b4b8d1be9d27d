// What the app database keeps about OAuth: each provider's configuration (client id, endpoints of the
// person's own providers) and each connection's status, account, scopes and expiry. Tokens and client
// secrets are in the OS keychain only; this file never sees them.
import type { ConnectionStatus } from '../../shared/domain/connections';
import type { AppDatabase } from '../store/database';
import type { ProviderConfig } from './provider-spec';

export type ConnectionRecord = {
  provider: string;
  status: ConnectionStatus;
  account: string | null;
  scopes: string[];
  expiresAt: string | null;
  hasRefreshToken: boolean;
  error: string | null;
  connectedAt: string | null;
};

type ConnectionRow = {
  provider: string; status: string; account: string | null; scopes_json: string; expires_at: string | null;
  has_refresh_token: number; error: string | null; connected_at: string | null;
};

export class ConnectionStore {
  constructor(private readonly db: AppDatabase) {}

  config(provider: string): ProviderConfig | undefined {
    const row = this.db.prepare('SELECT config_json FROM oauth_providers WHERE id = ?').get(provider) as { config_json: string } | undefined;
    return row ? (JSON.parse(row.config_json) as ProviderConfig) : undefined;
  }

  configs(): Array<{ id: string; config: ProviderConfig }> {
    const rows = this.db.prepare('SELECT id, config_json FROM oauth_providers ORDER BY id').all() as Array<{ id: string; config_json: string }>;
    return rows.map((r) => ({ id: r.id, config: JSON.parse(r.config_json) as ProviderConfig }));
  }

  saveConfig(provider: string, config: ProviderConfig): void {
    this.db
      .prepare(
        `INSERT INTO oauth_providers (id, config_json, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET config_json = excluded.config_json, updated_at = excluded.updated_at`,
      )
      .run(provider, JSON.stringify(config), new Date().toISOString());
  }

  removeConfig(provider: string): void {
    this.db.prepare('DELETE FROM oauth_providers WHERE id = ?').run(provider);
  }

  get(provider: string): ConnectionRecord | undefined {
    const row = this.db.prepare('SELECT * FROM connections WHERE provider = ?').get(provider) as ConnectionRow | undefined;
    return row && toRecord(row);
  }

  save(record: ConnectionRecord): ConnectionRecord {
    this.db
      .prepare(
        `INSERT INTO connections (provider, status, account, scopes_json, expires_at, has_refresh_token, error, connected_at, updated_at)
         VALUES (@provider, @status, @account, @scopes, @expiresAt, @refresh, @error, @connectedAt, @updatedAt)
         ON CONFLICT(provider) DO UPDATE SET status = excluded.status, account = excluded.account, scopes_json = excluded.scopes_json,
           expires_at = excluded.expires_at, has_refresh_token = excluded.has_refresh_token, error = excluded.error,
           connected_at = excluded.connected_at, updated_at = excluded.updated_at`,
      )
      .run({
        ...record,
        scopes: JSON.stringify(record.scopes),
        refresh: record.hasRefreshToken ? 1 : 0,
        updatedAt: new Date().toISOString(),
      });
    return this.get(record.provider)!;
  }

  patch(provider: string, patch: Partial<ConnectionRecord>): ConnectionRecord {
    const current = this.get(provider) ?? emptyRecord(provider);
    return this.save({ ...current, ...patch, provider });
  }
}

export function emptyRecord(provider: string): ConnectionRecord {
  return { provider, status: 'not-connected', account: null, scopes: [], expiresAt: null, hasRefreshToken: false, error: null, connectedAt: null };
}

function toRecord(row: ConnectionRow): ConnectionRecord {
  return {
    provider: row.provider,
    status: row.status as ConnectionStatus,
    account: row.account,
    scopes: JSON.parse(row.scopes_json) as string[],
    expiresAt: row.expires_at,
    hasRefreshToken: row.has_refresh_token === 1,
    error: row.error,
    connectedAt: row.connected_at,
  };
}
