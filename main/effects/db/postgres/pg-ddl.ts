// Schema changes on PostgreSQL in capture mode. The catalog is read before and after each statement; the
// difference is turned into exact reverse steps (created objects move to the trash schema on undo and
// back on redo; dropped tables are moved into the trash schema instead of being dropped, so their rows,
// indexes, triggers and sequences come back untouched). What cannot be reversed exactly — dropping a
// column, changing a type, TRUNCATE, cascades into other objects, functions and types — is refused and
// rolled back, with held-transaction mode as the way to run it.
import { DbRefusal } from '../db-errors';
import { columnSave, type ColumnSave } from './pg-column-values';
import { isTable, relLabel, relSql, type Catalog, type PgRelation, type TrashName } from './pg-catalog';
import type { PgClient } from './pg-client';
import { qualified, quoteIdent } from '../sql-literals';
import type { DdlCheck, DdlOp } from '../undo-log';

/** `saves`: dropped columns and type changes, whose values the runner reads (their steps are the last of `ops`, so undo takes them back first). */
export type DdlPlan = { ops: DdlOp[]; trash: PgRelation[]; saves: ColumnSave[] };

const KIND_WORD: Record<string, string> = { r: 'TABLE', p: 'TABLE', v: 'VIEW', m: 'MATERIALIZED VIEW', S: 'SEQUENCE', f: 'FOREIGN TABLE', i: 'INDEX' };

export function sameCatalog(a: Catalog, b: Catalog): boolean {
  if (a.others !== b.others || a.relations.size !== b.relations.size) return false;
  for (const [oid, r] of a.relations) {
    const o = b.relations.get(oid);
    if (!o || signature(r) !== signature(o)) return false;
  }
  return true;
}

function signature(r: PgRelation): string {
  return JSON.stringify([r.schema, r.name, r.kind, r.filenode, r.columns, [...r.constraints], [...r.triggers], r.viewdef, r.indexdef]);
}

function refuse(what: string, grantName: string): never {
  throw new DbRefusal(
    `This schema change cannot be undone exactly in capture mode (${what}), so it was rolled back. Ask the person to grant "${grantName}" in held-transaction mode to run it, or do it another way (for example DELETE instead of TRUNCATE).`,
  );
}

/** The reverse steps of one statement's schema change, and the tables it dropped (to move into the trash instead). */
export function planDdl(before: Catalog, after: Catalog, grantName: string, trashName: () => TrashName): DdlPlan {
  if (before.others !== after.others) refuse('it changed functions, types, schemas, extensions, policies or rules', grantName);
  const ops: DdlOp[] = [];
  const trash: PgRelation[] = [];
  const saves: ColumnSave[] = [];
  // An index PostgreSQL rebuilt under a new oid with the same name and definition (ALTER COLUMN TYPE
  // rebuilds the indexes on the column) is no change: it is neither dropped nor created.
  const key = (r: PgRelation) => `${r.schema}\u0000${r.name}`;
  const rebuiltFrom = new Map(
    [...before.relations.values()].filter((r) => r.kind === 'i' && !after.relations.has(r.oid)).map((r) => [key(r), r] as const),
  );
  const rebuilt = new Set<number | string>();
  for (const r of after.relations.values()) {
    const old = r.kind === 'i' && !before.relations.has(r.oid) ? rebuiltFrom.get(key(r)) : undefined;
    if (old && old.indexdef === r.indexdef && old.constraintIndex === r.constraintIndex) {
      rebuilt.add(old.oid);
      rebuilt.add(r.oid);
    }
  }
  const gone = [...before.relations.values()].filter((r) => !after.relations.has(r.oid) && !rebuilt.has(r.oid));
  const created = [...after.relations.values()].filter((r) => !before.relations.has(r.oid) && !rebuilt.has(r.oid));
  const droppedTables = new Set(gone.filter(isTable).map((r) => r.oid));
  const createdTop = new Set(created.filter((r) => r.kind !== 'i' && !(r.parent && created.some((c) => c.oid === r.parent))).map((r) => r.oid));

  for (const r of gone) {
    if (isTable(r)) {
      if (r.kind === 'p' || [...before.relations.values()].some((c) => c.parent === r.oid && isTable(c))) refuse(`dropping ${relLabel(r)}, a partitioned or parent table`, grantName);
      trash.push(r);
    } else if (r.parent && droppedTables.has(r.parent)) {
      // an index or owned sequence of a dropped table: it moves with the table
    } else if (r.kind === 'i' && !r.constraintIndex) {
      ops.push(indexOp(r, 'dropped'));
    } else if (r.kind === 'v' || r.kind === 'm') {
      const word = KIND_WORD[r.kind]!;
      ops.push({
        describe: `dropped ${word.toLowerCase()} ${relLabel(r)}`,
        object: relLabel(r),
        undo: [`CREATE ${word} ${relSql(r)} AS ${r.viewdef!.trim().replace(/;$/, '')}`],
        redo: [`DROP ${word} ${relSql(r)}`],
        checkAfter: { schema: r.schema, name: r.name, columns: [] },
        checkBefore: { schema: r.schema, name: r.name, columns: [] },
        expectBefore: null,
    expectAfter: null,
        keep: [],
      });
    } else if (!r.constraintIndex) refuse(`dropping ${relLabel(r)}`, grantName);
  }

  for (const r of created) {
    if (!createdTop.has(r.oid)) continue;
    if (r.kind === 'i') continue;
    ops.push(createdOp(r, trashName()));
  }
  for (const r of created.filter((c) => c.kind === 'i' && !c.constraintIndex && c.parent && !createdTop.has(c.parent))) ops.push(indexOp(r, 'created'));

  for (const r of after.relations.values()) {
    const old = before.relations.get(r.oid);
    if (!old) continue;
    if (old.schema !== r.schema || old.name !== r.name) ops.push(renameOp(old, r));
    if (!isTable(r) && r.kind !== 'm') continue;
    const typeChanged = old.columns.some((c) => r.columns.some((x) => x.num === c.num && x.type !== c.type));
    if (old.filenode !== r.filenode && !typeChanged) refuse(`it rewrote or emptied ${relLabel(r)} (TRUNCATE, a volatile default, CLUSTER or REFRESH)`, grantName);
    ops.push(...columnOps(old, r, grantName, saves));
    ops.push(...constraintOps(old, r, grantName));
    ops.push(...triggerOps(old, r));
  }
  // Columns come back before the indexes, constraints and views that used them are made again.
  ops.push(...saves.map((x) => x.op));
  return { ops, trash, saves };
}

function createdOp(r: PgRelation, trash: TrashName): DdlOp {
  const word = KIND_WORD[r.kind] ?? 'TABLE';
  const fks = isTable(r) ? [...r.constraints].filter(([, c]) => c.type === 'f') : [];
  const inTrash = qualified(trash.schema, trash.name);
  return {
    describe: `created ${word.toLowerCase()} ${relLabel(r)}`,
    object: relLabel(r),
    undo: [
      `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(trash.schema)}`,
      ...fks.map(([name]) => `ALTER TABLE ${relSql(r)} DROP CONSTRAINT ${quoteIdent(name)}`),
      `ALTER ${word} ${relSql(r)} RENAME TO ${quoteIdent(trash.name)}`,
      `ALTER ${word} ${qualified(r.schema, trash.name)} SET SCHEMA ${quoteIdent(trash.schema)}`,
    ],
    redo: [
      `ALTER ${word} ${inTrash} SET SCHEMA ${quoteIdent(r.schema)}`,
      `ALTER ${word} ${qualified(r.schema, trash.name)} RENAME TO ${quoteIdent(r.name)}`,
      ...fks.map(([name, c]) => `ALTER TABLE ${relSql(r)} ADD CONSTRAINT ${quoteIdent(name)} ${c.def}`),
      dropTrashIfEmpty(trash.schema),
    ],
    checkAfter: { schema: r.schema, name: r.name, columns: null },
    checkBefore: { schema: r.schema, name: r.name, columns: [] },
    expectBefore: 'absent',
    expectAfter: null,
    // Kept while undone: the created table in the trash is gone for good.
    keep: [`DROP ${word} IF EXISTS ${inTrash} CASCADE`, dropTrashIfEmpty(trash.schema)],
  };
}

/** A dropped table, moved into the trash schema by Posthoc instead: undo moves it back. */
export function trashedOp(r: PgRelation, trash: TrashName, expectBefore: string): DdlOp {
  const fks = [...r.constraints].filter(([, c]) => c.type === 'f');
  const inTrash = qualified(trash.schema, trash.name);
  return {
    describe: `dropped table ${relLabel(r)} (kept in the schema ${trash.schema} until the action is kept)`,
    object: relLabel(r),
    undo: [
      `ALTER TABLE ${inTrash} SET SCHEMA ${quoteIdent(r.schema)}`,
      `ALTER TABLE ${qualified(r.schema, trash.name)} RENAME TO ${quoteIdent(r.name)}`,
      ...fks.map(([name, c]) => `ALTER TABLE ${relSql(r)} ADD CONSTRAINT ${quoteIdent(name)} ${c.def}`),
      dropTrashIfEmpty(trash.schema),
    ],
    redo: trashMove(r, trash),
    checkAfter: { schema: r.schema, name: r.name, columns: [] },
    checkBefore: { schema: r.schema, name: r.name, columns: null },
    expectBefore,
    expectAfter: null,
    keep: [`DROP TABLE IF EXISTS ${inTrash} CASCADE`, dropTrashIfEmpty(trash.schema)],
  };
}

/**
 * Drops an action's trash schema once nothing is left in it (other tables of the same action may still
 * wait there): no schema of Posthoc stays in the person's database after the last table leaves it.
 */
export function dropTrashIfEmpty(schema: string): string {
  return `DO $posthoc$ BEGIN DROP SCHEMA IF EXISTS ${quoteIdent(schema)}; EXCEPTION WHEN dependent_objects_still_exist THEN NULL; END $posthoc$`;
}

/** What Posthoc runs instead of a statement's DROP TABLE: the same table, moved into the action's trash schema. */
export function trashMove(r: PgRelation, trash: TrashName): string[] {
  const fks = [...r.constraints].filter(([, c]) => c.type === 'f');
  return [
    `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(trash.schema)}`,
    ...fks.map(([name]) => `ALTER TABLE ${relSql(r)} DROP CONSTRAINT ${quoteIdent(name)}`),
    `ALTER TABLE ${relSql(r)} RENAME TO ${quoteIdent(trash.name)}`,
    `ALTER TABLE ${qualified(r.schema, trash.name)} SET SCHEMA ${quoteIdent(trash.schema)}`,
  ];
}

function indexOp(r: PgRelation, how: 'created' | 'dropped'): DdlOp {
  const create = [r.indexdef!];
  const drop = [`DROP INDEX ${relSql(r)}`];
  return {
    describe: `${how} index ${relLabel(r)}`,
    object: relLabel(r),
    undo: how === 'created' ? drop : create,
    redo: how === 'created' ? create : drop,
    checkAfter: { schema: r.schema, name: r.name, columns: [] },
    checkBefore: { schema: r.schema, name: r.name, columns: [] },
    expectBefore: null,
    expectAfter: null,
    keep: [],
  };
}

function renameOp(old: PgRelation, r: PgRelation): DdlOp {
  const word = KIND_WORD[r.kind] ?? 'TABLE';
  const steps = (from: PgRelation, to: PgRelation): string[] => [
    ...(from.name !== to.name ? [`ALTER ${word} ${relSql(from)} RENAME TO ${quoteIdent(to.name)}`] : []),
    ...(from.schema !== to.schema ? [`ALTER ${word} ${qualified(from.schema, to.name)} SET SCHEMA ${quoteIdent(to.schema)}`] : []),
  ];
  return {
    describe: `renamed ${relLabel(old)} to ${relLabel(r)}`,
    object: relLabel(r),
    undo: steps(r, old),
    redo: steps(old, r),
    checkAfter: { schema: r.schema, name: r.name, columns: [] },
    checkBefore: { schema: old.schema, name: old.name, columns: [] },
    expectBefore: null,
    expectAfter: null,
    keep: [],
  };
}

function columnOps(old: PgRelation, r: PgRelation, grantName: string, saves: ColumnSave[]): DdlOp[] {
  const ops: DdlOp[] = [];
  const t = relSql(r);
  for (const c of old.columns) {
    const now = r.columns.find((x) => x.num === c.num);
    if (!now) {
      saves.push(columnSave(old, c, r, null, grantName));
      continue;
    }
    if (now.generated !== c.generated) refuse(`it changed the type of ${relLabel(r)}.${c.name}`, grantName);
    if (now.type !== c.type) saves.push(columnSave(old, c, r, now, grantName));
    if (now.name !== c.name) {
      ops.push(simpleOp(`renamed column ${relLabel(r)}.${c.name} to ${now.name}`, r, [`ALTER TABLE ${t} RENAME COLUMN ${quoteIdent(now.name)} TO ${quoteIdent(c.name)}`], [`ALTER TABLE ${t} RENAME COLUMN ${quoteIdent(c.name)} TO ${quoteIdent(now.name)}`]));
    }
    const col = quoteIdent(c.name);
    if (now.defaultValue !== c.defaultValue) {
      const set = (v: string | null) => `ALTER TABLE ${t} ALTER COLUMN ${col} ${v === null ? 'DROP DEFAULT' : `SET DEFAULT ${v}`}`;
      ops.push(simpleOp(`changed the default of ${relLabel(r)}.${now.name}`, r, [set(c.defaultValue).replace(col, quoteIdent(now.name))], [set(now.defaultValue).replace(col, quoteIdent(now.name))]));
    }
    if (now.notNull !== c.notNull) {
      const set = (nn: boolean) => `ALTER TABLE ${t} ALTER COLUMN ${quoteIdent(now.name)} ${nn ? 'SET' : 'DROP'} NOT NULL`;
      ops.push(simpleOp(`changed NOT NULL on ${relLabel(r)}.${now.name}`, r, [set(c.notNull)], [set(now.notNull)]));
    }
  }
  for (const c of r.columns.filter((x) => !old.columns.some((o) => o.num === x.num))) {
    if (c.generated || c.identityAlways) refuse(`it added the generated or identity column ${relLabel(r)}.${c.name}`, grantName);
    const def = [c.type, c.defaultValue !== null ? `DEFAULT ${c.defaultValue}` : '', c.notNull ? 'NOT NULL' : ''].filter(Boolean);
    ops.push({
      describe: `added column ${relLabel(r)}.${c.name}`,
      object: relLabel(r),
      undo: [`ALTER TABLE ${t} DROP COLUMN ${quoteIdent(c.name)}`],
      redo: [`ALTER TABLE ${t} ADD COLUMN ${quoteIdent(c.name)} ${def.join(' ')}`],
      // Both ways only the column itself matters (others added or dropped since do not stand in the way).
      checkAfter: { schema: r.schema, name: r.name, columns: [], uniform: { column: c.name, value: c.defaultValue } },
      checkBefore: { schema: r.schema, name: r.name, columns: [], uniform: { column: c.name, value: c.defaultValue } },
      expectBefore: null,
    expectAfter: null,
      keep: [],
    });
  }
  return ops;
}

function constraintOps(old: PgRelation, r: PgRelation, grantName: string): DdlOp[] {
  const ops: DdlOp[] = [];
  const t = relSql(r);
  for (const [name, c] of old.constraints) {
    const now = r.constraints.get(name);
    // A definition that reads differently only because a table or column it names was renamed is the same constraint.
    if (now && (now.def === c.def || now.sig === c.sig)) continue;
    if (now) refuse(`it changed constraint ${name} of ${relLabel(r)}`, grantName);
    ops.push(simpleOp(`dropped constraint ${name} of ${relLabel(r)}`, r, [`ALTER TABLE ${t} ADD CONSTRAINT ${quoteIdent(name)} ${c.def}`], [`ALTER TABLE ${t} DROP CONSTRAINT ${quoteIdent(name)}`]));
  }
  for (const [name, c] of r.constraints) {
    if (old.constraints.has(name)) continue;
    ops.push(simpleOp(`added constraint ${name} to ${relLabel(r)}`, r, [`ALTER TABLE ${t} DROP CONSTRAINT ${quoteIdent(name)}`], [`ALTER TABLE ${t} ADD CONSTRAINT ${quoteIdent(name)} ${c.def}`]));
  }
  return ops;
}

function triggerOps(old: PgRelation, r: PgRelation): DdlOp[] {
  const ops: DdlOp[] = [];
  const t = relSql(r);
  const enable = (state: string, name: string) =>
    `ALTER TABLE ${t} ${state === 'D' ? 'DISABLE' : state === 'A' ? 'ENABLE ALWAYS' : state === 'R' ? 'ENABLE REPLICA' : 'ENABLE'} TRIGGER ${quoteIdent(name)}`;
  for (const [name, trg] of old.triggers) {
    const now = r.triggers.get(name);
    if (!now) ops.push(simpleOp(`dropped trigger ${name} on ${relLabel(r)}`, r, [trg.def, ...(trg.enabled !== 'O' ? [enable(trg.enabled, name)] : [])], [`DROP TRIGGER ${quoteIdent(name)} ON ${t}`]));
    else if (now.enabled !== trg.enabled) ops.push(simpleOp(`changed trigger ${name} on ${relLabel(r)}`, r, [enable(trg.enabled, name)], [enable(now.enabled, name)]));
  }
  for (const [name, trg] of r.triggers) {
    if (!old.triggers.has(name)) ops.push(simpleOp(`created trigger ${name} on ${relLabel(r)}`, r, [`DROP TRIGGER ${quoteIdent(name)} ON ${t}`], [trg.def]));
  }
  return ops;
}

function simpleOp(describe: string, r: PgRelation, undo: string[], redo: string[]): DdlOp {
  return { describe, object: relLabel(r), undo, redo, checkAfter: { schema: r.schema, name: r.name, columns: [] }, checkBefore: { schema: r.schema, name: r.name, columns: [] }, expectBefore: null,
    expectAfter: null, keep: [] };
}

/** The state a check looks at: absent, or the relation's kind and columns, plus the content of the named columns (null: every column). */
export async function relationState(client: PgClient, check: DdlCheck): Promise<string> {
  const res = await client.query(
    // Columns by name: a column dropped and brought back by an undo comes back last, and is the same column.
    `SELECT c.relkind::text AS kind, (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attname)
       FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS cols,
       CASE WHEN c.relkind = 'i' THEN pg_get_indexdef(c.oid) END AS indexdef
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
    [check.schema, check.name],
  );
  const row = res.rows[0] as { kind: string; cols: string | null; indexdef: string | null } | undefined;
  if (!row) return 'absent';
  // An index is what it indexes, as PostgreSQL states it now: its own column names keep the names they had
  // when it was made (a renamed column does not rename them), so an index made again by an undo would differ.
  if (row.indexdef !== null) return `${row.kind}: ${row.indexdef}`;
  let content = '';
  if (check.column) {
    // A dropped column or a type change: only that column matters — whether it exists, its type, and each row's value by key.
    const { name, keys } = check.column;
    const type = await client.query(
      `SELECT format_type(a.atttypid, a.atttypmod) AS t FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attname = $2 AND NOT a.attisdropped`,
      [qualified(check.schema, check.name), name],
    );
    const t = (type.rows[0] as { t: string } | undefined)?.t;
    if (t === undefined) return `${row.kind}: no column ${name}`;
    const value = `ROW(${[...keys, name].map((c) => `t.${quoteIdent(c)}`).join(', ')})::text`;
    const r = await client.query(`SELECT md5(coalesce(string_agg(${value}, E'\n' ORDER BY ${value}), '')) AS h FROM ${qualified(check.schema, check.name)} t`);
    return `${row.kind}: ${name} ${t} #${(r.rows[0] as { h: string }).h}`;
  } else if (check.uniform) {
    // Only the added column matters: columns added or dropped elsewhere since do not stand in the way.
    const type = await client.query(
      `SELECT format_type(a.atttypid, a.atttypmod) AS t FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attname = $2 AND NOT a.attisdropped`,
      [qualified(check.schema, check.name), check.uniform.column],
    );
    const t = (type.rows[0] as { t: string } | undefined)?.t;
    if (t === undefined) return `${row.kind}: no column ${check.uniform.column}`;
    const col = `t.${quoteIdent(check.uniform.column)}`;
    const r = await client.query(`SELECT count(*) AS n FROM ${qualified(check.schema, check.name)} t WHERE ${col} IS DISTINCT FROM ${check.uniform.value ?? 'NULL'}`);
    return `${row.kind}: ${check.uniform.column} ${t}, others in it: ${(r.rows[0] as { n: string }).n}`;
  } else if (check.columns === null || check.columns.length > 0) {
    const rel = qualified(check.schema, check.name);
    const value = check.columns === null ? 't::text' : `ROW(${check.columns.map((c) => `t.${quoteIdent(c)}`).join(', ')})::text`;
    const r = await client.query(`SELECT md5(coalesce(string_agg(${value}, E'\\n' ORDER BY ${value}), '')) AS h FROM ${rel} t`);
    content = (r.rows[0] as { h: string }).h;
  }
  return `${row.kind}: ${row.cols ?? ''}${content ? ` #${content}` : ''}`;
}
