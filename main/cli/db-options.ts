// `posthoc run` database grants: --db NAME=URL (sqlite:PATH or postgres://…; a password in the URL goes to
// the vault and is never stored or printed) with per-grant settings keyed by name. (An action held over its
// grant's rows-affected limit is asked about in approval-commands.ts.)
import type { DatabaseGrantInput } from '../../shared/contract';
import type { StatementClass } from '../../shared/domain';
import { GrantError, parseDbSpec, parseNamedValue, redact } from '../effects/db/db-grant';
import { CliFailure } from './session';

export type DbFlags = {
  db: string[];
  dbReadOnly: string[];
  dbAllow: string[];
  dbSampleRows: string[];
  dbMaxRows: string[];
  dbHeld: string[];
};

export const collect = (v: string, acc: string[]) => [...acc, v];

export const DB_OPTION_HELP = {
  db: 'grant a database: NAME=sqlite:PATH or NAME=postgres://USER[:PASSWORD]@HOST[:PORT]/DB; the password goes to the OS keychain; repeat for several',
  readOnly: 'make the grant NAME read-only: the database itself refuses writes',
  allow: 'the statement classes NAME allows, NAME=query,dml,ddl; all three unless given',
  sampleRows: 'let the prompt show a few rows of each table of NAME; otherwise only the schema',
  maxRows: 'NAME=N: rows one action may change in NAME before it waits for approval; 1000 unless given',
  held: 'NAME[=SECONDS]: hold NAME\'s changes in an open transaction until keep or undo, rolled back after SECONDS (600 unless given)',
};

/** The grants the flags ask for; settings for a name not granted with --db are a usage error. */
export function databaseRequests(flags: DbFlags): DatabaseGrantInput[] {
  try {
    const requests = flags.db.map((spec) => {
      const { name, url } = parseDbSpec(spec);
      return { name, url } as DatabaseGrantInput;
    });
    const find = (name: string, flag: string) => {
      const r = requests.find((x) => x.name === name);
      if (!r) throw new GrantError(`${flag} ${name}: no database is granted with that name; add --db ${name}=….`);
      return r;
    };
    for (const name of flags.dbReadOnly) find(name, '--db-read-only').readOnly = true;
    for (const name of flags.dbSampleRows) find(name, '--db-sample-rows').sampleRows = true;
    for (const spec of flags.dbAllow) {
      const { name, value } = parseNamedValue(spec, '--db-allow');
      const classes = value.split(',').map((c) => c.trim().toLowerCase());
      const bad = classes.filter((c) => !['query', 'dml', 'ddl'].includes(c));
      if (bad.length > 0) throw new GrantError(`--db-allow knows query, dml and ddl, not ${bad.join(', ')}.`);
      find(name, '--db-allow').statements = classes as StatementClass[];
    }
    for (const spec of flags.dbMaxRows) {
      const { name, value } = parseNamedValue(spec, '--db-max-rows');
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new GrantError('--db-max-rows takes NAME=N with N a whole number of at least 1.');
      find(name, '--db-max-rows').maxRowsAffected = n;
    }
    for (const spec of flags.dbHeld) {
      const [name, seconds] = spec.includes('=') ? [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)] : [spec, undefined];
      const r = find(name, '--db-held');
      r.mode = 'held';
      if (seconds !== undefined) {
        const n = Number(seconds);
        if (!Number.isInteger(n) || n < 10) throw new GrantError('--db-held takes NAME or NAME=SECONDS with at least 10 seconds.');
        r.heldTimeoutSeconds = n;
      }
    }
    return requests;
  } catch (error) {
    if (error instanceof GrantError) throw new CliFailure('invalid-input', redact(error.message));
    throw error;
  }
}
