// Where each credential may be sent: the origins (scheme://host[:port]) a secret or an OAuth provider's
// token is bound to. A service whose base URL is elsewhere needs the person's confirmation, so a caller
// of the contract cannot send a stored key to a server of its choosing by defining a service.
// Credentials are keyed by the secret's name, or "oauth:PROVIDER" for a connection's tokens.
import type { AppDatabase } from './database';

export class OriginError extends Error {}

/**
 * The origin of a URL as it is compared: scheme://host, with the port only when it is not the scheme's
 * default (what URL.origin gives, so https://a.example and https://a.example:443 are one origin).
 */
export function originOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OriginError(`"${url}" is not an origin: write scheme://host[:port], for example https://api.example.com.`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new OriginError(`"${url}" is not an http or https origin: write scheme://host[:port], for example https://api.example.com.`);
  }
  return parsed.origin;
}

/** An origin as the person gives it (--origin): scheme, host and port only — a path would suggest a limit there is not. */
export function parseOrigin(text: string): string {
  const origin = originOf(text.trim());
  const parsed = new URL(text.trim());
  if ((parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search || parsed.hash || parsed.username || parsed.password) {
    throw new OriginError(`"${text}" has more than an origin: give only scheme://host[:port] (here ${origin}); the secret may then go to any path there.`);
  }
  return origin;
}

export class SecretOrigins {
  constructor(private readonly db: AppDatabase) {}

  list(credential: string): string[] {
    return this.db.prepare('SELECT origin FROM secret_origins WHERE credential = ? ORDER BY origin').pluck().all(credential) as string[];
  }

  /** Every credential that has origins, with them (for listing secrets). */
  all(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    const rows = this.db.prepare('SELECT credential, origin FROM secret_origins ORDER BY credential, origin').all() as Array<{ credential: string; origin: string }>;
    for (const row of rows) out.set(row.credential, [...(out.get(row.credential) ?? []), row.origin]);
    return out;
  }

  add(credential: string, origin: string): void {
    this.db.prepare('INSERT OR IGNORE INTO secret_origins (credential, origin, added_at) VALUES (?, ?, ?)').run(credential, origin, new Date().toISOString());
  }

  /** Replaces the credential's origins (the person set them with the secret). */
  set(credential: string, origins: string[]): void {
    this.db.transaction(() => {
      this.forget(credential);
      for (const origin of origins) this.add(credential, origin);
    })();
  }

  forget(credential: string): void {
    this.db.prepare('DELETE FROM secret_origins WHERE credential = ?').run(credential);
  }
}
