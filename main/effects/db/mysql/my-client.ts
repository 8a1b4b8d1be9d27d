// The one door to MySQL and MariaDB: a mysql2 connection with the password from the vault (never in the URL
// Posthoc stores), one statement per query (the server refuses a second one hidden behind a semicolon), and
// every value read as the server's own text, so results and row images are exact.
import type mysql from 'mysql2/promise';
import type { DatabaseGrant } from '../../../../shared/domain';
import { DbRefusal } from '../db-errors';

export type MyConnection = mysql.Connection;
export type Secrets = (name: string) => Promise<string | null>;
export type MyRow = Array<string | Buffer | null>;

/** A MySQL identifier in backticks: case, spaces, unicode and keywords are safe. */
export function quoteMy(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** A MySQL string literal (backslashes and quotes escaped, whatever the sql_mode says about backslashes). */
export function myString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/\0/g, '\\0')}'`;
}

/** Where and as whom to connect (the password from the vault): for the one connection and the binary-log reader. */
export async function serverOf(grant: DatabaseGrant, secrets: Secrets): Promise<{ host: string; port: number; user: string; password: string | undefined; database: string }> {
  const password = grant.passwordSecret ? await secrets(grant.passwordSecret) : null;
  if (grant.passwordSecret && password === null) {
    throw new DbRefusal(`The password of "${grant.name}" is not in the vault any more (${grant.passwordSecret}). Grant the database again with its password.`);
  }
  const u = new URL(grant.location);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : 3306, user: decodeURIComponent(u.username), password: password ?? undefined, database: decodeURIComponent(u.pathname.slice(1)) };
}

export async function connectMy(grant: DatabaseGrant, secrets: Secrets, options: { statementTimeoutMs?: number } = {}): Promise<MyConnection> {
  const server = await serverOf(grant, secrets);
  let conn: MyConnection | null = null;
  try {
    // Loaded on the first connection, not with the services: a run that grants no MySQL database never loads mysql2.
    const { default: driver } = await import('mysql2/promise');
    conn = await driver.createConnection({
      ...server,
      multipleStatements: false,
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      connectTimeout: 10_000,
      charset: 'utf8mb4_general_ci',
      // Every value as the server's text (binary ones as bytes): nothing is rounded by a JavaScript number.
      typeCast: (field, next) => (field.type === 'GEOMETRY' || isBinary(field) ? next() : field.string()),
    });
    conn.on('error', () => undefined);
    await conn.query('SET SESSION innodb_lock_wait_timeout = 10');
    if (options.statementTimeoutMs) await conn.query(`SET SESSION max_statement_time = ${Math.max(1, Math.round(options.statementTimeoutMs / 1000))}`);
  } catch (error) {
    await conn?.end().catch(() => undefined);
    throw new DbRefusal(`Posthoc could not connect to "${grant.name}" (${grant.location}): ${myMessage(error)}. Check that the server runs and the credentials are right.`);
  }
  return conn;
}

function isBinary(field: { type: string; characterSet?: number }): boolean {
  // Character set 63 is "binary": BLOB, BINARY and VARBINARY columns.
  return field.characterSet === 63 && /BLOB|STRING|VAR_STRING/.test(field.type);
}

export function myMessage(error: unknown): string {
  const e = error as { message?: string; sqlMessage?: string; code?: string };
  return e.sqlMessage ?? e.message ?? String(error);
}

/** Rows of a query as arrays of text (null for NULL). */
export async function rowsOf(conn: MyConnection, sql: string): Promise<Array<Array<string | null>>> {
  const [rows] = await conn.query({ sql, rowsAsArray: true });
  return (rows as MyRow[]).map((r) => r.map((v) => (v === null ? null : Buffer.isBuffer(v) ? v.toString('utf8') : String(v))));
}
