// Database grants as people write them — `NAME=sqlite:PATH`, `NAME=postgres://user:pw@host/db` — turned
// into the grant Posthoc stores: the password taken out of the URL (the caller moves it to the vault), a
// vault entry name in its place, and the per-grant settings with their defaults.
import type { DatabaseEngine, DatabaseGrant, DatabaseMode, StatementClass } from '../../../shared/domain';
import { DATABASE_ENGINES, engineOfUrl, redactPassword, unsupportedEngineMessage } from '../../../shared/domain/database-engines';

export const DEFAULT_MAX_ROWS = 1000;
export const DEFAULT_HELD_TIMEOUT_SECONDS = 600;
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}$/;

export class GrantError extends Error {}

export type DatabaseGrantRequest = {
  name: string;
  url: string;
  /** A password given apart from the URL (the app's form); it wins over one in the URL. */
  password?: string;
  readOnly?: boolean;
  statements?: StatementClass[];
  sampleRows?: boolean;
  maxRowsAffected?: number;
  mode?: DatabaseMode;
  heldTimeoutSeconds?: number;
};

export type ParsedLocation = { engine: DatabaseEngine; location: string; password: string | null };

/**
 * `sqlite:PATH`, `sqlite:///abs/path`, a path to a .db/.sqlite/.sqlite3 file, or `postgres(ql)://…` (the forms
 * of shared/domain/database-engines.ts); another engine's URL is refused with its name, never taken for a file.
 */
export function parseDatabaseUrl(url: string, engines: { get(id: DatabaseEngine): { parseLocation(trimmed: string, cwd: string): ParsedLocation } }, cwd = process.cwd()): ParsedLocation {
  const trimmed = url.trim();
  const unsupported = unsupportedEngineMessage(trimmed);
  if (unsupported) throw new GrantError(unsupported.replace(/"[a-z][a-z0-9+.-]*:"/i, `"${redact(trimmed)}"`));
  // `sqlite:` followed by another engine's URL (what the app's form once sent for any location).
  const inner = /^sqlite:(?!\/\/\/)(.*)$/i.exec(trimmed)?.[1];
  if (inner !== undefined && engineOfUrl(inner).kind !== 'path') {
    throw new GrantError(`"${redact(trimmed)}" is a SQLite grant of a URL, not of a file: write the URL alone (${Object.values(DATABASE_ENGINES).map((e) => e.example).join(' or ')}).`);
  }
  const named = engineOfUrl(trimmed);
  // Each engine reads its own location (DbEngine.parseLocation); a path with no scheme is SQLite's.
  return engines.get(named.kind === 'engine' ? named.engine : 'sqlite').parseLocation(trimmed, cwd);
}


/** The vault entry of a connection's password: names the connection, never contains the password. */
export function passwordSecretName(location: string): string {
  return `db-password ${location}`;
}

export function buildGrant(request: DatabaseGrantRequest, parsed: ParsedLocation, hasPassword: boolean): DatabaseGrant {
  if (!NAME.test(request.name)) {
    throw new GrantError(`"${request.name}" is not a usable database name: use letters, digits, "_", "." or "-" (the agent writes it after \`\`\`sql and in $POSTHOC_GATEWAY/db/NAME/query).`);
  }
  const readOnly = request.readOnly ?? false;
  const statements: StatementClass[] = readOnly ? ['query'] : [...new Set<StatementClass>(request.statements ?? ['query', 'dml', 'ddl'])];
  if (statements.length === 0) throw new GrantError(`The grant "${request.name}" allows no statements; allow at least queries.`);
  const maxRowsAffected = request.maxRowsAffected ?? DEFAULT_MAX_ROWS;
  if (!Number.isInteger(maxRowsAffected) || maxRowsAffected < 1) throw new GrantError(`The rows-affected limit of "${request.name}" must be a whole number of at least 1.`);
  const heldTimeoutSeconds = request.heldTimeoutSeconds ?? DEFAULT_HELD_TIMEOUT_SECONDS;
  if (!Number.isInteger(heldTimeoutSeconds) || heldTimeoutSeconds < 1) throw new GrantError(`The held-transaction timeout of "${request.name}" must be a whole number of seconds.`);
  return {
    name: request.name,
    engine: parsed.engine,
    location: parsed.location,
    readOnly,
    statements: (['query', 'dml', 'ddl'] as const).filter((c) => statements.includes(c)),
    sampleRows: request.sampleRows ?? false,
    maxRowsAffected,
    mode: request.mode ?? 'capture',
    heldTimeoutSeconds,
    passwordSecret: hasPassword ? passwordSecretName(parsed.location) : null,
  };
}

/** `NAME=URL` from the command line. */
export function parseDbSpec(spec: string): { name: string; url: string } {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new GrantError(`--db takes NAME=URL, for example --db shop=sqlite:./shop.db (got "${redact(spec)}").`);
  return { name: spec.slice(0, eq), url: spec.slice(eq + 1) };
}

/** `NAME=VALUE` options keyed by a grant's name (--db-max-rows shop=500). */
export function parseNamedValue(spec: string, flag: string): { name: string; value: string } {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new GrantError(`${flag} takes NAME=VALUE (got "${spec}").`);
  return { name: spec.slice(0, eq), value: spec.slice(eq + 1) };
}

/** A URL or spec with any password replaced by ***, for error messages. */
export function redact(text: string): string {
  return redactPassword(text);
}
