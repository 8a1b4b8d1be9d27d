// Property: on PostgreSQL, actions mixing schema changes (add, drop and rename a column, change a column's
// type, rename a table, create an index) with row changes, undone, redone and rewound as a stack. The model
// is the database's own dump (columns by name with types, constraints, indexes, triggers, and every row
// by column name; column order aside, since a dropped column comes back last) before and after each action: undoing the newest applied action must give back
// exactly the dump before it, redoing the newest undone one exactly the dump after it. A failed or refused
// action changes nothing. At the end everything is rewound to the start and kept, and nothing of Posthoc
// (row logs, trash schemas) is left in the database.
// One database for the file; each run resets its schema. Runs: POSTHOC_PROPERTY_RUNS (default 200).
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbEffect } from '../../shared/domain';
import { DbChannel } from '../../main/effects/db/db-channel';
import { dbEngines } from '../support/db-engines';
import { createPgDatabase, pgSecrets, resetPgSchema, type PgTestDb } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';

const RUNS = Number(process.env.POSTHOC_PROPERTY_RUNS ?? 0);
const SEED = process.env.POSTHOC_PROPERTY_SEED ? Number(process.env.POSTHOC_PROPERTY_SEED) : undefined;

/** Tables and columns are picked at run time among those that exist then (`t`, `c` are indexes, taken modulo). */
type Op =
  | { kind: 'insert'; t: number; id: number; v: number }
  | { kind: 'update'; t: number; c: number; m: number; v: number }
  | { kind: 'delete'; t: number; m: number }
  | { kind: 'addColumn'; t: number; type: number; withDefault: boolean }
  | { kind: 'dropColumn'; t: number; c: number }
  | { kind: 'renameColumn'; t: number; c: number }
  | { kind: 'alterType'; t: number; c: number; type: number }
  | { kind: 'renameTable'; t: number }
  | { kind: 'index'; t: number; c: number };
type Step = { kind: 'action'; ops: Op[] } | { kind: 'undo' } | { kind: 'redo' } | { kind: 'rewind'; n: number };

const TYPES = ['integer', 'text', 'boolean', 'character(4)', 'numeric(8,2)', 'bigint'];

const n = (max: number) => fc.integer({ min: 0, max });
const dml: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), t: n(9), id: fc.integer({ min: 10, max: 40 }), v: n(99) }),
  fc.record({ kind: fc.constant('update' as const), t: n(9), c: n(9), m: fc.integer({ min: 1, max: 3 }), v: n(99) }),
  fc.record({ kind: fc.constant('delete' as const), t: n(9), m: fc.integer({ min: 3, max: 5 }) }),
);
const ddl: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('addColumn' as const), t: n(9), type: n(TYPES.length - 1), withDefault: fc.boolean() }),
  fc.record({ kind: fc.constant('dropColumn' as const), t: n(9), c: n(9) }),
  fc.record({ kind: fc.constant('renameColumn' as const), t: n(9), c: n(9) }),
  fc.record({ kind: fc.constant('alterType' as const), t: n(9), c: n(9), type: n(TYPES.length - 1) }),
  fc.record({ kind: fc.constant('renameTable' as const), t: n(9) }),
  fc.record({ kind: fc.constant('index' as const), t: n(9), c: n(9) }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('action' as const), ops: fc.array(fc.oneof(dml, ddl), { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.constant<Step>({ kind: 'undo' }) },
  { weight: 3, arbitrary: fc.constant<Step>({ kind: 'redo' }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), n: fc.integer({ min: 1, max: 4 }) }) },
);
const scenario = fc.array(step, { minLength: 2, maxLength: 8 });

/** A parent and a child pointing at it (a foreign key into the table that may be renamed), with types whose text forms differ from a ::text cast. */
const SCHEMA = `
  CREATE TABLE parent (id integer PRIMARY KEY, name text NOT NULL, score integer, active boolean DEFAULT true, code character(4));
  CREATE TABLE child (id integer PRIMARY KEY, parent_id integer REFERENCES parent(id) ON DELETE CASCADE, note text, amount numeric(8,2));
  INSERT INTO parent SELECT i, 'p' || i, i * 10, i % 2 = 0, 'c' || i FROM generate_series(1, 8) i;
  INSERT INTO child SELECT i, 1 + i % 8, CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' || i END, i * 1.25 FROM generate_series(1, 12) i;`;

type Column = { name: string; type: string };
type Table = { name: string; columns: Column[] };

async function tables(client: pg.Client): Promise<Table[]> {
  const res = await client.query(`SELECT c.relname AS t, a.attname AS c, format_type(a.atttypid, a.atttypmod) AS type
    FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
    WHERE s.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`);
  const out = new Map<string, Column[]>();
  for (const r of res.rows as Array<{ t: string; c: string; type: string }>) out.set(r.t, [...(out.get(r.t) ?? []), { name: r.c, type: r.type }]);
  return [...out].map(([name, columns]) => ({ name, columns }));
}

function literal(type: string, v: number): string {
  if (type === 'boolean') return v % 2 === 0 ? 'true' : 'false';
  if (type === 'text' || type.startsWith('character')) return `'v${v}'`;
  if (type.startsWith('numeric')) return `${v}.5`;
  return String(v);
}

let names = 0;
/** The statement an op is on the database as it is now. */
function sqlOf(op: Op, all: Table[]): string {
  const t = all[op.t % all.length]!;
  const q = (s: string) => `"${s}"`;
  const pick = 'c' in op ? t.columns[op.c % t.columns.length]! : t.columns[0]!;
  // The first column is the key (id, or what it was renamed to): never written, so rows keep their identity.
  const key = t.columns[0]!.name;
  const other = 'c' in op ? t.columns[1 + (op.c % (t.columns.length - 1))]! : pick;
  switch (op.kind) {
    case 'insert': {
      const cols = t.columns.filter((c) => !/parent_id/.test(c.name));
      return `INSERT INTO ${q(t.name)} (${cols.map((c) => q(c.name)).join(', ')}) VALUES (${cols.map((c, i) => (i === 0 ? String(op.id) : literal(c.type, op.v + i))).join(', ')}) ON CONFLICT DO NOTHING`;
    }
    case 'update':
      return /parent_id/.test(other.name) ? `UPDATE ${q(t.name)} SET ${q(other.name)} = NULL WHERE ${q(key)} % ${op.m} = 0` : `UPDATE ${q(t.name)} SET ${q(other.name)} = ${literal(other.type, op.v)} WHERE ${q(key)} % ${op.m} = 0`;
    case 'delete':
      return `DELETE FROM ${q(t.name)} WHERE ${q(key)} % ${op.m} = 1`;
    case 'addColumn': {
      const type = TYPES[op.type]!;
      return `ALTER TABLE ${q(t.name)} ADD COLUMN ${q(`a${++names}`)} ${type}${op.withDefault ? ` DEFAULT ${literal(type, 7)}` : ''}`;
    }
    case 'dropColumn':
      return `ALTER TABLE ${q(t.name)} DROP COLUMN ${q(other.name)}`;
    case 'renameColumn':
      return `ALTER TABLE ${q(t.name)} RENAME COLUMN ${q(pick.name)} TO ${q(`r${++names}`)}`;
    case 'alterType': {
      const type = TYPES[op.type]!;
      const using = type === 'boolean' ? `(${q(other.name)} IS NOT NULL)` : `${q(other.name)}::text::${type}`;
      return `ALTER TABLE ${q(t.name)} ALTER COLUMN ${q(other.name)} TYPE ${type} USING ${using}`;
    }
    case 'renameTable':
      return `ALTER TABLE ${q(t.name)} RENAME TO ${q(`${t.name.replace(/_\d+$/, '')}_${++names}`)}`;
    case 'index':
      return `CREATE INDEX ${q(`i${++names}`)} ON ${q(t.name)} (${q(other.name)})`;
  }
}

/**
 * The public schema's tables (columns by name: a dropped column comes back as the table's last one),
 * constraints, triggers, indexes and rows (jsonb: keys by name), sorted.
 */
async function pgDump(client: pg.Client): Promise<string> {
  const lines: string[] = [];
  const res = await client.query(`SELECT c.oid::regclass::text AS t,
      (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
        || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attname)
        FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS cols,
      (SELECT string_agg(co.conname || ' ' || pg_get_constraintdef(co.oid), '; ' ORDER BY co.conname) FROM pg_constraint co WHERE co.conrelid = c.oid) AS cons,
      (SELECT string_agg(pg_get_indexdef(i.indexrelid), '; ' ORDER BY pg_get_indexdef(i.indexrelid)) FROM pg_index i WHERE i.indrelid = c.oid) AS idx,
      (SELECT string_agg(pg_get_triggerdef(g.oid), '; ' ORDER BY g.tgname) FROM pg_trigger g WHERE g.tgrelid = c.oid AND NOT g.tgisinternal) AS trg
    FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'public' AND c.relkind = 'r' ORDER BY 1`);
  for (const r of res.rows as Array<Record<string, string | null>>) {
    lines.push(`table ${r.t}: ${r.cols}`, `  constraints ${r.cons}`, `  indexes ${r.idx}`, `  triggers ${r.trg}`);
    const rows = await client.query({ text: `SELECT to_jsonb(x)::text FROM ${r.t} x ORDER BY 1`, rowMode: 'array' });
    lines.push(...(rows.rows as string[][]).map((x) => `  ${x[0]}`));
  }
  return lines.join('\n');
}

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('PostgreSQL: schema changes mixed with row changes, undone, redone and rewound', () => {
  let pgdb: PgTestDb;
  let client: pg.Client;
  beforeAll(async () => {
    pgdb = await createPgDatabase('posthoc_ddlprop');
    client = await pgdb.connect();
  });
  afterAll(async () => {
    await client.end();
    await pgdb.drop();
  });

  it('undo gives back exactly the dump before the action, redo the dump after it; nothing of Posthoc stays', async () => {
    const grant = pgdb.grant({ maxRowsAffected: 1_000_000 });
    const stats = { actions: 0, failed: 0, ddl: 0, undone: 0, redone: 0 };
    const posthocObjects = async () => (await client.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'posthoc%'")).rows.length;
    const run = async (steps: Step[]) => {
      await resetPgSchema(client);
      await client.query(SCHEMA);
      const start = await pgDump(client);
      const channel = new DbChannel(dirs.make('posthoc-ddlprop-'), dbEngines(pgSecrets));
      type Done = { effect: DbEffect; before: string; after: string };
      const applied: Done[] = [];
      const undone: Done[] = [];
      const undo = async () => {
        const a = applied.pop()!;
        await channel.undo(a.effect);
        expect(await pgDump(client), 'undo gives back the dump before the action').toBe(a.before);
        undone.push(a);
        stats.undone++;
      };
      try {
        for (const [i, s] of steps.entries()) {
          if (s.kind === 'action') {
            // A new action ends the redo stack: what was undone is kept as undone.
            for (const a of undone.splice(0)) await channel.keep(a.effect);
            const before = await pgDump(client);
            const all = await tables(client);
            const sql = s.ops.map((op) => sqlOf(op, all)).join(';\n');
            const r = await channel.run({ taskId: 'prop', actionId: `a${i}`, grant, sql, params: null, via: 'sql', approved: true, timeoutMs: 30_000 });
            const after = await pgDump(client);
            stats.actions++;
            if (r.status !== 'done') {
              expect(r.stderr, sql).not.toMatch(/PostgreSQL refused the|not in the catalog/);
              expect(after, `a failed action changes nothing: ${r.stderr}`).toBe(before);
              stats.failed++;
              continue;
            }
            if (r.effect.statements.some((x) => x.kind === 'ddl')) stats.ddl++;
            if (r.effect.undo.kind === 'none') expect(after).toBe(before);
            else applied.push({ effect: r.effect, before, after });
          } else if (s.kind === 'undo' && applied.length > 0) {
            await undo();
          } else if (s.kind === 'redo' && undone.length > 0) {
            const a = undone.pop()!;
            await channel.redo(a.effect);
            expect(await pgDump(client), 'redo gives back the dump after the action').toBe(a.after);
            applied.push(a);
            stats.redone++;
          } else if (s.kind === 'rewind') {
            for (let k = 0; k < s.n && applied.length > 0; k++) await undo();
          }
        }
        while (applied.length > 0) await undo();
        expect(await pgDump(client)).toBe(start);
        for (const a of undone) await channel.keep(a.effect);
        expect(await posthocObjects(), 'nothing of Posthoc stays in the database').toBe(0);
        expect(await pgDump(client)).toBe(start);
      } finally {
        await channel.shutdown();
      }
    };
    await fc.assert(fc.asyncProperty(scenario, run), { numRuns: RUNS || 200, seed: SEED });
    expect(Math.min(stats.ddl, stats.undone, stats.redone), JSON.stringify(stats)).toBeGreaterThan(0);
  });
});
