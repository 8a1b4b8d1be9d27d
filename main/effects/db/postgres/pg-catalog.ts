// PostgreSQL's catalog as Posthoc needs it: every relation of the person's schemas with its columns,
// constraints, triggers, indexes and view definitions, plus a fingerprint of everything else (functions,
// types, schemas, extensions, policies, rules). Read before and after each statement, it says whether
// the statement changed the schema and exactly how — the database reports it, nothing parses SQL.
import type { PgClient } from './pg-client';
import { SAMPLE_ROWS, type ColumnInfo, type SchemaInfo, type TableInfo } from '../db-schema';
import { qualified } from '../sql-literals';

/** Tables an action dropped (or created, once undone) wait in a trash schema of the action's own until it is kept. */
export const TRASH_PREFIX = 'posthoc_trash';
export type TrashName = { schema: string; name: string };

export type PgColumn = ColumnInfo & { num: number };
export type PgRelation = {
  oid: string;
  schema: string;
  name: string;
  /** r table, p partitioned table, v view, m materialized view, S sequence, i index, f foreign table */
  kind: string;
  filenode: string;
  columns: PgColumn[];
  /**
   * name → definition (pg_get_constraintdef) and type. `sig` is the same for the same constraint whatever
   * its tables and columns are called now (attribute numbers and the referenced table's oid, not names):
   * a rename elsewhere changes `def`, never `sig`.
   */
  constraints: Map<string, { def: string; type: string; ref: string | null; index: string | null; sig: string }>;
  /** name → definition (pg_get_triggerdef) and enabled state (O, D, R, A) */
  triggers: Map<string, { def: string; enabled: string }>;
  viewdef: string | null;
  indexdef: string | null;
  /** Index: the table it belongs to. Sequence: the table that owns it. */
  parent: string | null;
  /** Index backing a constraint (primary key, unique, exclusion): it goes with the constraint. */
  constraintIndex: boolean;
  uniqueKeys: string[][];
  primaryKey: string[];
  estimatedRows: number;
};
export type Catalog = { relations: Map<string, PgRelation>; others: string };

/** The schema of the row logs actions keep in the database until they are kept (see pg-capture): Posthoc's, never the person's. */
export const LOG_SCHEMA = 'posthoc_undo_log';

const USER_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema', '${LOG_SCHEMA}') AND n.nspname NOT LIKE '${TRASH_PREFIX}%' AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'`;

const RELATIONS = `
SELECT c.oid::text AS oid, n.nspname AS schema, c.relname AS name, c.relkind::text AS kind, c.relfilenode::text AS filenode,
  c.reltuples::float8 AS reltuples,
  (SELECT coalesce(json_agg(json_build_array(a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
      pg_get_expr(d.adbin, d.adrelid), a.attgenerated::text, a.attidentity::text) ORDER BY a.attnum), '[]')
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
  (SELECT coalesce(json_agg(json_build_array(co.conname, pg_get_constraintdef(co.oid), co.contype::text,
      CASE WHEN co.confrelid <> 0 THEN co.confrelid::regclass::text END, CASE WHEN co.conindid <> 0 THEN co.conindid::text END,
      (SELECT json_agg(a.attname ORDER BY k.i) FROM unnest(co.conkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = k.n),
      md5(concat_ws('|', co.contype, co.conkey::text, co.confrelid, co.confkey::text, co.confupdtype, co.confdeltype, co.confmatchtype,
        co.conbin::text, co.condeferrable, co.condeferred, co.convalidated)))
      ORDER BY co.conname), '[]')
     FROM pg_constraint co WHERE co.conrelid = c.oid) AS constraints,
  (SELECT coalesce(json_agg(json_build_array(t.tgname, pg_get_triggerdef(t.oid), t.tgenabled::text) ORDER BY t.tgname), '[]')
     FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal AND t.tgname NOT LIKE 'posthoc\\_%') AS triggers,
  CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END AS viewdef,
  CASE WHEN c.relkind = 'i' THEN pg_get_indexdef(c.oid) END AS indexdef,
  coalesce((SELECT i.indrelid::text FROM pg_index i WHERE i.indexrelid = c.oid),
           (SELECT d.refobjid::text FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
              AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i') LIMIT 1)) AS parent,
  EXISTS (SELECT 1 FROM pg_constraint co WHERE co.conindid = c.oid AND co.contype IN ('p', 'u', 'x')) AS constraint_index
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'i', 'f') AND ${USER_SCHEMAS}`;

const OTHERS = `
SELECT md5(coalesce(string_agg(x, E'\\n' ORDER BY x), '')) AS fp FROM (
  SELECT 'function ' || p.oid::text || ' ' || p.proname || ' ' || md5(coalesce(p.prosrc, '')) AS x
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${USER_SCHEMAS}
  UNION ALL SELECT 'type ' || t.oid::text || ' ' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE ${USER_SCHEMAS} AND (t.typtype IN ('e', 'd', 'r', 'm') OR (t.typtype = 'c' AND EXISTS (SELECT 1 FROM pg_class r WHERE r.oid = t.typrelid AND r.relkind = 'c')))
  UNION ALL SELECT 'schema ' || n.nspname FROM pg_namespace n WHERE ${USER_SCHEMAS}
  UNION ALL SELECT 'extension ' || e.extname || ' ' || e.extversion FROM pg_extension e
  UNION ALL SELECT 'policy ' || p.polname || ' ' || p.polrelid::text FROM pg_policy p
  UNION ALL SELECT 'rule ' || r.rulename || ' ' || r.ev_class::text FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE r.rulename <> '_RETURN' AND ${USER_SCHEMAS}
) s`;

type RelRow = {
  oid: string; schema: string; name: string; kind: string; filenode: string; reltuples: number;
  columns: Array<[number, string, string, boolean, string | null, string, string]>;
  constraints: Array<[string, string, string, string | null, string | null, string[] | null, string]>;
  triggers: Array<[string, string, string]>;
  viewdef: string | null; indexdef: string | null; parent: string | null; constraint_index: boolean | string;
};

export async function readCatalog(client: PgClient): Promise<Catalog> {
  const rows = (await client.query(RELATIONS)).rows as RelRow[];
  const others = ((await client.query(OTHERS)).rows[0] as { fp: string }).fp;
  const relations = new Map<string, PgRelation>();
  for (const r of rows) {
    const columns = (typeof r.columns === 'string' ? JSON.parse(r.columns) : r.columns) as RelRow['columns'];
    const constraints = (typeof r.constraints === 'string' ? JSON.parse(r.constraints) : r.constraints) as RelRow['constraints'];
    const triggers = (typeof r.triggers === 'string' ? JSON.parse(r.triggers) : r.triggers) as RelRow['triggers'];
    const primaryKey = constraints.find((c) => c[2] === 'p')?.[5] ?? [];
    const notNull = new Set(columns.filter((c) => c[3]).map((c) => c[1]));
    const uniqueKeys = [primaryKey, ...constraints.filter((c) => c[2] === 'u' && (c[5] ?? []).every((k) => notNull.has(k))).map((c) => c[5] ?? [])].filter((k) => k.length > 0);
    relations.set(r.oid, {
      oid: r.oid,
      schema: r.schema,
      name: r.name,
      kind: r.kind,
      filenode: r.filenode,
      columns: columns.map(([num, name, type, nn, def, generated, identity]) => ({
        num,
        name,
        type,
        notNull: nn,
        defaultValue: generated ? null : def,
        generated: generated !== '',
        identityAlways: identity === 'a',
      })),
      constraints: new Map(constraints.map(([name, def, type, ref, index, , sig]) => [name, { def, type, ref, index, sig }])),
      triggers: new Map(triggers.map(([name, def, enabled]) => [name, { def, enabled }])),
      viewdef: r.viewdef,
      indexdef: r.indexdef,
      parent: r.parent,
      constraintIndex: r.constraint_index === true || r.constraint_index === 't' || r.constraint_index === 'true',
      uniqueKeys,
      primaryKey,
      estimatedRows: Number(r.reltuples),
    });
  }
  return { relations, others };
}

export function isTable(r: PgRelation): boolean {
  return r.kind === 'r' || r.kind === 'p';
}

export function relLabel(r: { schema: string; name: string }): string {
  return r.schema === 'public' ? r.name : `${r.schema}.${r.name}`;
}

export function relSql(r: { schema: string; name: string }): string {
  return qualified(r.schema, r.name);
}

/** A table of the catalog as the engines describe tables (its indexes found among `rels`; no row count). */
export function tableInfo(r: PgRelation, rels: readonly PgRelation[]): TableInfo {
  return {
    schema: r.schema,
    name: r.name,
    columns: r.columns,
    primaryKey: r.primaryKey,
    rowid: false,
    rowidAlias: null,
    foreignKeys: [...r.constraints.values()]
      .filter((c) => c.type === 'f')
      .map((c) => {
        const m = /FOREIGN KEY \((.*?)\) REFERENCES (.+?)\((.*?)\)(.*)$/.exec(c.def);
        return {
          columns: (m?.[1] ?? '').split(', '),
          refTable: (m?.[2] ?? c.ref ?? '').replace(/^public\./, ''),
          refColumns: (m?.[3] ?? '').split(', '),
          onDelete: /ON DELETE (CASCADE|SET NULL|SET DEFAULT|RESTRICT)/.exec(m?.[4] ?? '')?.[1] ?? 'NO ACTION',
          onUpdate: /ON UPDATE (CASCADE|SET NULL|SET DEFAULT|RESTRICT)/.exec(m?.[4] ?? '')?.[1] ?? 'NO ACTION',
        };
      }),
    indexes: rels
      .filter((i) => i.kind === 'i' && i.parent === r.oid && !i.constraintIndex)
      .map((i) => ({ name: i.name, columns: [/\((.*)\)/.exec(i.indexdef ?? '')?.[1] ?? ''], unique: /CREATE UNIQUE/.test(i.indexdef ?? '') })),
    uniqueKeys: r.uniqueKeys,
    triggers: [...r.triggers.keys()],
    rowCount: null,
    rowCountEstimated: false,
  };
}

/** The schema for the model's prompt: tables (with counts, exact up to a million rows), views, and sample rows if allowed. */
export async function readPgSchema(client: PgClient, options: { samples: boolean }): Promise<SchemaInfo> {
  const catalog = await readCatalog(client);
  const rels = [...catalog.relations.values()].sort((a, b) => (relLabel(a) < relLabel(b) ? -1 : 1));
  const tables: TableInfo[] = [];
  const samples: SchemaInfo['samples'] = new Map();
  for (const r of rels.filter(isTable)) {
    const estimated = r.estimatedRows > 1_000_000;
    const count = estimated ? Math.round(r.estimatedRows) : Number(((await client.query(`SELECT count(*) AS n FROM ${relSql(r)}`)).rows[0] as { n: string }).n);
    tables.push({ ...tableInfo(r, rels), rowCount: count, rowCountEstimated: estimated });
    if (options.samples) {
      const res = await client.query({ text: `SELECT * FROM ${relSql(r)} LIMIT ${SAMPLE_ROWS}`, rowMode: 'array' });
      samples.set(relLabel(r), { columns: res.fields.map((f) => f.name), rows: res.rows as Array<Array<string | null>> });
    }
  }
  const views = rels.filter((r) => r.kind === 'v' || r.kind === 'm').map((r) => ({ schema: r.schema, name: r.name, definition: r.viewdef ?? '' }));
  return { tables, views, samples };
}
