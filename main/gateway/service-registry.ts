// Services the gateway may forward to: a name and a base URL (credentials come with connections).
import type { AppDatabase } from '../store/database';

export type ServiceDefinition = { name: string; baseUrl: string; createdAt: string };

export class ServiceDefinitionError extends Error {}

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function validateService(name: string, baseUrl: string): { name: string; baseUrl: string } {
  if (!NAME.test(name)) {
    throw new ServiceDefinitionError(
      `"${name}" is not a valid service name: use lower-case letters, digits, "-" and "_" (it appears in the sandbox as $POSTHOC_GATEWAY/svc/${name}/…).`,
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ServiceDefinitionError(`"${baseUrl}" is not a URL. Give the service's base URL, for example https://api.example.com/v1.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ServiceDefinitionError(`The base URL must use http or https, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new ServiceDefinitionError('Put no credentials in the base URL; they would be stored in plain text. Credentials belong in the vault.');
  }
  if (url.search || url.hash) throw new ServiceDefinitionError('The base URL must not have a query string or a fragment.');
  return { name, baseUrl: url.href.replace(/\/+$/, '') };
}

export class ServiceRegistry {
  constructor(private readonly db: AppDatabase) {}

  add(name: string, baseUrl: string): ServiceDefinition {
    const valid = validateService(name, baseUrl);
    const createdAt = new Date().toISOString();
    this.db
      .prepare(
        `INSERT INTO services (name, base_url, created_at) VALUES (?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET base_url = excluded.base_url`,
      )
      .run(valid.name, valid.baseUrl, createdAt);
    return this.get(valid.name)!;
  }

  get(name: string): ServiceDefinition | undefined {
    const row = this.db.prepare('SELECT name, base_url, created_at FROM services WHERE name = ?').get(name) as
      | { name: string; base_url: string; created_at: string }
      | undefined;
    return row && { name: row.name, baseUrl: row.base_url, createdAt: row.created_at };
  }

  list(): ServiceDefinition[] {
    const rows = this.db.prepare('SELECT name, base_url, created_at FROM services ORDER BY name').all() as Array<{
      name: string;
      base_url: string;
      created_at: string;
    }>;
    return rows.map((r) => ({ name: r.name, baseUrl: r.base_url, createdAt: r.created_at }));
  }

  remove(name: string): boolean {
    return this.db.prepare('DELETE FROM services WHERE name = ?').run(name).changes > 0;
  }
}
