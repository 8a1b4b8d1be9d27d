// The one door to PostgreSQL: a pg client with the password from the vault (never in the URL Posthoc
// stores), every value kept as PostgreSQL's own text (so images and results are exact), and session
// settings fixed so text forms are the same when captured and when compared later.
import type pg from 'pg';
import type { DatabaseGrant } from '../../../../shared/domain';
import { DbRefusal } from '../db-errors';

export type PgClient = pg.Client;
export type Secrets = (name: string) => Promise<string | null>;

/** Every type stays text: numeric precision, timestamps, bytea and arrays round-trip exactly. */
const textTypes = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

export const SESSION_SETTINGS = [
  "SET application_name = 'posthoc'",
  "SET DateStyle = 'ISO, MDY'",
  "SET IntervalStyle = 'postgres'",
  'SET extra_float_digits = 1',
  "SET bytea_output = 'hex'",
  "SET lock_timeout = '10s'",
].join('; ');

export async function connectPg(grant: DatabaseGrant, secrets: Secrets, options: { statementTimeoutMs?: number } = {}): Promise<PgClient> {
  const password = grant.passwordSecret ? await secrets(grant.passwordSecret) : null;
  if (grant.passwordSecret && password === null) {
    throw new DbRefusal(`The password of "${grant.name}" is not in the vault any more (${grant.passwordSecret}). Grant the database again with its password.`);
  }
  // Loaded on the first connection, not with the services: a run that grants no PostgreSQL database never loads pg.
  const { default: pgModule } = await import('pg');
  const client = new pgModule.Client({ connectionString: withPassword(grant.location, password), types: textTypes, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(SESSION_SETTINGS);
    if (options.statementTimeoutMs) await client.query(`SET statement_timeout = ${Math.round(options.statementTimeoutMs)}`);
    if (grant.readOnly) await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new DbRefusal(`Posthoc could not connect to "${grant.name}" (${redactUrl(grant.location)}): ${pgMessage(error)}. Check that the server runs and the credentials are right.`);
  }
  return client;
}

/** pg reads the password from the URL (a separate `password` option loses to the URL's): set it there, in memory only. */
function withPassword(location: string, password: string | null): string {
  if (password === null) return location;
  const u = new URL(location);
  u.password = encodeURIComponent(password);
  return u.toString();
}

export function pgMessage(error: unknown): string {
  const e = error as { message?: string; detail?: string; hint?: string };
  const parts = [e.message ?? String(error)];
  if (e.detail) parts.push(`(${e.detail})`);
  if (e.hint) parts.push(`Hint: ${e.hint}`);
  return parts.join(' ');
}

/** A connection URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
  }
}

/** Runs statements in one round trip (simple query protocol), in chunks so no message grows without bound. */
export async function runBatch(client: PgClient, statements: string[], chunk = 500): Promise<void> {
  for (let i = 0; i < statements.length; i += chunk) await client.query(statements.slice(i, i + chunk).map((s) => (s.trimEnd().endsWith(';') ? s : `${s};`)).join('\n'));
}
