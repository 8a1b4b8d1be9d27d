// The database engines Posthoc undoes, described once as data: how people name each (label), the URL forms
// that mean it, an example, and whether a password applies. main reads it to parse a grant (db-grant.ts) and
// word its prompts and messages; the renderer reads it for the grant form (what to send, when to ask for a
// password, what is not supported) and the cards; the CLI for its help. A new engine is one entry here plus
// its folder under main/effects/db/ with one line in main/effects/db/engines.ts. The engine ids (DatabaseEngine)
// are this table's keys. Imports nothing but types, so the databases channel's schemas can read it.

export type EngineDescription = {
  label: string;
  /** URL schemes that name this engine (lower case, without "://"); SQLite is named by `sqlite:` or a file path. */
  schemes: readonly string[];
  /** How a grant of it is written, for help and errors. */
  example: string;
  /** Whether a password may be given (it goes to the OS keychain). */
  password: boolean;
};

export const DATABASE_ENGINES = {
  sqlite: { label: 'SQLite', schemes: ['sqlite'], example: 'sqlite:./shop.db', password: false },
  postgres: { label: 'PostgreSQL', schemes: ['postgres', 'postgresql'], example: 'postgres://me@localhost/crm', password: true },
  mysql: { label: 'MySQL/MariaDB', schemes: ['mysql', 'mariadb'], example: 'mysql://me@localhost/shop', password: true },
} as const satisfies Readonly<Record<string, EngineDescription>>;

/** An engine's id: a key of the table above. */
export type DatabaseEngine = keyof typeof DATABASE_ENGINES;
export const DATABASE_ENGINE_IDS = Object.keys(DATABASE_ENGINES) as [DatabaseEngine, ...DatabaseEngine[]];

/** Engines people may hand over that Posthoc cannot undo yet: refused with their name, never taken for a file. */
const NOT_YET: Readonly<Record<string, string>> = {
  mongodb: 'MongoDB',
  'mongodb+srv': 'MongoDB',
  redis: 'Redis',
  rediss: 'Redis',
  mssql: 'SQL Server',
  sqlserver: 'SQL Server',
  oracle: 'Oracle',
  cockroachdb: 'CockroachDB',
  clickhouse: 'ClickHouse',
};

export function engineLabel(engine: DatabaseEngine): string {
  return DATABASE_ENGINES[engine].label;
}

/** The engines' labels joined for a sentence: "SQLite and PostgreSQL". */
export function engineLabels(): string {
  const labels = Object.values(DATABASE_ENGINES).map((e) => e.label);
  return labels.length <= 1 ? (labels[0] ?? '') : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
}

export type UrlEngine =
  /** A form of an engine Posthoc undoes. */
  | { kind: 'engine'; engine: DatabaseEngine }
  /** A URL of a database Posthoc cannot undo yet (label), or of an unknown scheme (label null). */
  | { kind: 'unsupported'; scheme: string; label: string | null }
  /** No scheme: a file path (SQLite, when it names a database file). */
  | { kind: 'path' };

/** What a grant's location names, from its form alone (nothing is opened). */
export function engineOfUrl(url: string): UrlEngine {
  const trimmed = url.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  // A Windows drive letter (C:\…) is a path, not a scheme.
  if (!scheme || (scheme.length === 1 && /^[a-z]:[\\/]/i.test(trimmed))) return { kind: 'path' };
  for (const [engine, d] of Object.entries(DATABASE_ENGINES) as Array<[DatabaseEngine, EngineDescription]>) {
    if (d.schemes.includes(scheme)) return { kind: 'engine', engine };
  }
  const label = NOT_YET[scheme] ?? null;
  // An unknown word before a colon is a URL only with "//" after it: "data:2024.db" stays a file's name.
  if (!label && !trimmed.slice(scheme.length + 1).startsWith('//')) return { kind: 'path' };
  return { kind: 'unsupported', scheme, label };
}

/** Why a location cannot be granted, in words that say what to do, or null. */
export function unsupportedEngineMessage(url: string): string | null {
  const found = engineOfUrl(url);
  if (found.kind !== 'unsupported') return null;
  const forms = Object.values(DATABASE_ENGINES).map((e) => e.example).join(' or ');
  return found.label
    ? `${found.label} is not supported yet: Posthoc undoes ${engineLabels()} databases. Grant one of those (${forms}).`
    : `"${found.scheme}:" is not a database Posthoc knows: it undoes ${engineLabels()} databases (${forms}).`;
}

/** A location with the password of its URL shown as *** (for messages, the CLI and the form's chips). */
export function redactPassword(text: string): string {
  return text.replace(/(\/\/[^:/@\s]*:)[^@\s]*@/, '$1***@');
}
