// Pure parts of the databases channel: the dialect-aware statement splitter, literals and PostgreSQL
// record text, compensating statements from a row log, grants as people write them, the prompt's schema.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeSchema, parentFirst, type SchemaInfo, type TableInfo } from '../../main/effects/db/db-schema';
import { buildGrant, GrantError, parseDatabaseUrl, parseDbSpec, passwordSecretName, redact } from '../../main/effects/db/db-grant';
import { dbEngines } from '../support/db-engines';

const engines = dbEngines();
import { formatTable } from '../../main/effects/db/query-result';
import { fitToColumns, orderedStatements, previewStatements, rowName, type Dialect, type TableLog } from '../../main/effects/db/row-log';
import { parseRecordText, pgLiteral, quoteIdent } from '../../main/effects/db/sql-literals';
import { PG_LEXICON } from '../../main/effects/db/postgres/pg-runner';
import { splitStatements } from '../../main/effects/db/sql-splitter';
import { SQLITE_LEXICON } from '../../main/effects/db/sqlite/sqlite-runner';
import { sqliteGrant } from '../support/shop-db';

const LEXICONS = { sqlite: SQLITE_LEXICON, postgres: PG_LEXICON };
const texts = (sql: string, dialect: 'sqlite' | 'postgres') => splitStatements(sql, LEXICONS[dialect]).map((s) => s.text);

describe('splitStatements', () => {
  it('splits on semicolons outside strings, identifiers and comments', () => {
    const sql = `SELECT 'a;b', "c;d" FROM t; -- x; y
    /* z; */ UPDATE t SET v = 'it''s; fine';;`;
    expect(texts(sql, 'sqlite')).toEqual([`SELECT 'a;b', "c;d" FROM t`, `-- x; y\n    /* z; */ UPDATE t SET v = 'it''s; fine'`]);
  });

  it('keeps SQLite trigger bodies (with CASE … END inside) in one statement, and knows [ ] and ` ` quoting', () => {
    const sql = `CREATE TEMP TRIGGER g BEFORE UPDATE ON t BEGIN SELECT CASE WHEN new.a = 1 THEN RAISE(ABORT, 'x;y') END; UPDATE [odd;name] SET \`b;c\` = 1; END; SELECT 2`;
    expect(texts(sql, 'sqlite')).toEqual([sql.slice(0, sql.lastIndexOf(';')), 'SELECT 2']);
  });

  it('knows PostgreSQL dollar quotes, E-strings, nested comments and BEGIN ATOMIC bodies', () => {
    const fn = `CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN RETURN 1; END $body$`;
    const atomic = `CREATE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (1); SELECT CASE WHEN true THEN 1 END; END`;
    const sql = `${fn}; SELECT E'a\\';b', $$x;y$$; /* a /* nested; */ b; */ SELECT $1; ${atomic}; SELECT 3`;
    expect(texts(sql, 'postgres')).toEqual([fn, `SELECT E'a\\';b', $$x;y$$`, `/* a /* nested; */ b; */ SELECT $1`, atomic, 'SELECT 3']);
  });

  it('names each statement by its first keyword, and skips empty ones', () => {
    expect(splitStatements(' ; -- only a comment\n; with x as (select 1) select * from x; begin', PG_LEXICON).map((s) => s.keyword)).toEqual(['WITH', 'BEGIN']);
  });

  it('never loses or adds text: the pieces joined back are the input without separators (and comment-only pieces)', () => {
    const bare = (s: string) => s.replace(/\/\*[^]*?\*\/|--[^\n]*\n/g, '').replace(/[\s;]/g, '');
    fc.assert(
      fc.property(fc.array(fc.constantFrom('SELECT 1', "'a;b'", '"x;y"', '-- c;\n', '/* d; */', '(e;f)', ' ', 'g'), { maxLength: 12 }), (parts) => {
        const sql = parts.join(';');
        expect(bare(splitStatements(sql, PG_LEXICON).map((s) => s.text).join(''))).toBe(bare(sql));
      }),
    );
  });
});

describe('literals', () => {
  it('quotes identifiers and PostgreSQL text literals, backslashes with E-strings', () => {
    expect(quoteIdent('we"ird name')).toBe('"we""ird name"');
    expect(pgLiteral(null)).toBe('NULL');
    expect(pgLiteral("it's")).toBe("'it''s'");
    expect(pgLiteral('a\\b')).toBe("E'a\\\\b'");
  });

  it('parses record text: NULLs, empty strings, quotes, backslashes, commas, parentheses', () => {
    expect(parseRecordText('(1,,"","a ""b""","c\\\\d","(x,y)",z)')).toEqual(['1', null, '', 'a "b"', 'c\\d', '(x,y)', 'z']);
    expect(parseRecordText('()')).toEqual([null]);
    expect(parseRecordText('(,)')).toEqual([null, null]);
  });
});

const dialect: Dialect = { quote: quoteIdent, matchAll: (t, img) => t.columns.map((c, i) => `${c} IS ${img[i]}`).join(' AND '), oneRow: (t, c) => `rowid = (SELECT rowid FROM ${t.table} WHERE ${c} LIMIT 1)` };

function log(table: string, rows: TableLog['rows'], patch: Partial<TableLog> = {}): TableLog {
  return { table: quoteIdent(table), label: table, columns: ['id', 'name'], keyColumns: ['id'], overridingSystemValue: false, soft: false, rows, ...patch };
}

describe('compensating statements', () => {
  const parent = log('parent', [
    { beforeKey: null, afterKey: ['3'], before: null, after: ['3', "'new'"] },
    { beforeKey: ['1'], afterKey: ['1'], before: ['1', "'old'"], after: ['1', "'changed'"] },
  ]);
  const child = log('child', [{ beforeKey: ['7'], afterKey: null, before: ['7', "'gone'"], after: null }]);

  it('undo: inserts parent-first, then updates, then deletes child-first; only changed columns are set', () => {
    expect(orderedStatements([parent, child], 'undo', dialect)).toEqual([
      'INSERT INTO "child" ("id", "name") VALUES (7, \'gone\');',
      'UPDATE "parent" SET "name" = \'old\' WHERE "id" = 1;',
      'DELETE FROM "parent" WHERE "id" = 3;',
    ]);
  });

  it('redo is the mirror, and previews stop early while counting every statement', () => {
    expect(orderedStatements([parent, child], 'redo', dialect)).toEqual([
      'INSERT INTO "parent" ("id", "name") VALUES (3, \'new\');',
      'UPDATE "parent" SET "name" = \'changed\' WHERE "id" = 1;',
      'DELETE FROM "child" WHERE "id" = 7;',
    ]);
    expect(previewStatements([parent, child], 'undo', dialect, 1)).toEqual({ first: ['INSERT INTO "child" ("id", "name") VALUES (7, \'gone\');'], count: 3 });
  });

  it('moves rows off a key before another row takes it, both ways; a swap keeps both statements', () => {
    // The action moved id 2 to 4, then id 1 to 2 (logged in key order): undo must free 2 before taking it back.
    const chain = log('parent', [
      { beforeKey: ['1'], afterKey: ['2'], before: ['1', "'a'"], after: ['2', "'a'"] },
      { beforeKey: ['2'], afterKey: ['4'], before: ['2', "'b'"], after: ['4', "'b'"] },
    ]);
    expect(orderedStatements([chain], 'undo', dialect)).toEqual(['UPDATE "parent" SET "id" = 1 WHERE "id" = 2;', 'UPDATE "parent" SET "id" = 2 WHERE "id" = 4;']);
    expect(orderedStatements([chain], 'redo', dialect)).toEqual(['UPDATE "parent" SET "id" = 4 WHERE "id" = 2;', 'UPDATE "parent" SET "id" = 2 WHERE "id" = 1;']);
    const swap = log('parent', [
      { beforeKey: ['1'], afterKey: ['2'], before: ['1', "'a'"], after: ['2', "'a'"] },
      { beforeKey: ['2'], afterKey: ['1'], before: ['2', "'b'"], after: ['1', "'b'"] },
    ]);
    expect(orderedStatements([swap], 'undo', dialect)).toHaveLength(2);
  });

  it('writes the rowid when it is not a column, and matches keyless rows by every value', () => {
    const moved = log('t', [{ beforeKey: ['1'], afterKey: ['9'], before: ['1', "'a'"], after: ['1', "'a'"] }], { keyColumns: ['rowid'] });
    expect(orderedStatements([moved], 'undo', dialect)).toEqual(['UPDATE "t" SET "rowid" = 1 WHERE "rowid" = 9;']);
    const keyless = log('e', [{ beforeKey: null, afterKey: null, before: ["'x'", 'NULL'], after: null }], { keyColumns: [], columns: ['kind', 'payload'] });
    expect(orderedStatements([keyless], 'redo', dialect)).toEqual(['DELETE FROM "e" WHERE rowid = (SELECT rowid FROM "e" WHERE kind IS \'x\' AND payload IS NULL LIMIT 1);']);
    expect(rowName(keyless, null, ["'x'", 'NULL'])).toBe("e (kind = 'x', payload = NULL)");
  });

  it('leaves out a column that no longer exists when the action never changed it', () => {
    const t = log('p', [{ beforeKey: ['1'], afterKey: ['1'], before: ['1', "'a'", 'NULL'], after: ['1', "'b'", 'NULL'] }], { columns: ['id', 'name', 'extra'] });
    expect(fitToColumns(t, ['id', 'name'])).toMatchObject({ columns: ['id', 'name'], rows: [{ before: ['1', "'a'"], after: ['1', "'b'"] }] });
    const changed = log('p', [{ beforeKey: ['1'], afterKey: ['1'], before: ['1', "'a'", 'NULL'], after: ['1', "'a'", "'x'"] }], { columns: ['id', 'name', 'extra'] });
    expect(fitToColumns(changed, ['id', 'name'])).toMatch(/wrote column extra, which no longer exists/);
  });
});

describe('grants', () => {
  it('reads sqlite: paths, PostgreSQL and MySQL URLs, taking the password out of the URL', () => {
    expect(parseDatabaseUrl('sqlite:shop.db', engines, '/home/me')).toEqual({ engine: 'sqlite', location: '/home/me/shop.db', password: null });
    expect(parseDatabaseUrl('/data/x.sqlite3', engines)).toMatchObject({ engine: 'sqlite', location: '/data/x.sqlite3' });
    expect(parseDatabaseUrl('postgres://me:s%40cret@db.local:5433/shop', engines)).toEqual({ engine: 'postgres', location: 'postgres://me@db.local:5433/shop', password: 's@cret' });
    expect(() => parseDatabaseUrl('postgres://me:pw@host', engines)).toThrow(/names no database/);
    expect(parseDatabaseUrl('mysql://me:s%40cret@db.local:3307/shop', engines)).toEqual({ engine: 'mysql', location: 'mysql://me@db.local:3307/shop', password: 's@cret' });
    expect(parseDatabaseUrl('mariadb://me@db.local/shop', engines)).toEqual({ engine: 'mysql', location: 'mysql://me@db.local/shop', password: null });
    expect(() => parseDatabaseUrl('mysql://me:pw@host', engines)).toThrow(/names no database/);
    expect(() => parseDatabaseUrl('mysql://host/shop', engines)).toThrow(/names no user/);
    expect(() => parseDatabaseUrl('mysql:shop', engines)).toThrow(/not a valid MySQL URL/);
    expect(() => parseDatabaseUrl('mysql:shop', engines)).toThrow(GrantError);
    expect(() => parseDatabaseUrl('redis://me:pw@host/0', engines)).toThrow(/^Redis is not supported yet: Posthoc undoes SQLite, PostgreSQL and MySQL\/MariaDB databases/);
    expect(() => parseDatabaseUrl('redis://me:pw@host/0', engines)).not.toThrow(/pw/);
    // What the app's form once sent for any location: a URL inside sqlite: is refused, never made a file.
    expect(() => parseDatabaseUrl('sqlite:mysql://me:pw@host/x', engines)).toThrow(/is a SQLite grant of a URL/);
    expect(() => parseDatabaseUrl('sqlite:mysql://me:pw@host/x', engines)).not.toThrow(/pw@/);
    expect(() => parseDatabaseUrl('ftp://me:pw@host/x.db', engines)).toThrow(/^"ftp:\/\/me:\*\*\*@host\/x\.db" is not a database Posthoc knows/);
    expect(() => parseDatabaseUrl('postgres:crm', engines)).toThrow(/not a valid PostgreSQL URL/);
    expect(parseDatabaseUrl('sqlite:///abs/shop.db', engines)).toMatchObject({ engine: 'sqlite', location: '/abs/shop.db' });
    // A file whose name holds a colon is still a file.
    expect(parseDatabaseUrl('data:2024.db', engines, '/home/me')).toEqual({ engine: 'sqlite', location: '/home/me/data:2024.db', password: null });
    expect(parseDatabaseUrl('sqlite:data:2024.db', engines, '/home/me')).toEqual({ engine: 'sqlite', location: '/home/me/data:2024.db', password: null });
    expect(redact('crm=postgres://me:hunter2@host/db')).toBe('crm=postgres://me:***@host/db');
    expect(parseDbSpec('shop=sqlite:a=b.db')).toEqual({ name: 'shop', url: 'sqlite:a=b.db' });
  });

  it('fills in the defaults, and a read-only grant allows queries only', () => {
    const parsed = parseDatabaseUrl('postgres://me:pw@h/db', engines);
    const grant = buildGrant({ name: 'crm', url: 'x', readOnly: true, statements: ['ddl'] }, parsed, true);
    expect(grant).toEqual({
      name: 'crm',
      engine: 'postgres',
      location: 'postgres://me@h/db',
      readOnly: true,
      statements: ['query'],
      sampleRows: false,
      maxRowsAffected: 1000,
      mode: 'capture',
      heldTimeoutSeconds: 600,
      passwordSecret: passwordSecretName('postgres://me@h/db'),
    });
    expect(JSON.stringify(grant)).not.toContain('pw@');
    expect(() => buildGrant({ name: 'bad name', url: 'x' }, parsed, false)).toThrow(/not a usable database name/);
  });
});

describe('the schema in the prompt', () => {
  const table = (name: string, patch: Partial<TableInfo> = {}): TableInfo => ({
    schema: null,
    name,
    columns: [
      { name: 'id', type: 'INTEGER', notNull: false, defaultValue: null, generated: false, identityAlways: false },
      { name: 'email', type: 'TEXT', notNull: true, defaultValue: null, generated: false, identityAlways: false },
    ],
    primaryKey: ['id'],
    rowid: true,
    rowidAlias: 'id',
    foreignKeys: [],
    indexes: [],
    uniqueKeys: [['id'], ['email']],
    triggers: [],
    rowCount: 3,
    rowCountEstimated: false,
    ...patch,
  });

  it('shows every column on its own line with its type and keys, foreign keys and triggers — and no rows unless allowed', () => {
    const schema: SchemaInfo = {
      tables: [table('customers'), table('orders', { foreignKeys: [{ columns: ['customer_id'], refTable: 'customers', refColumns: ['id'], onDelete: 'CASCADE', onUpdate: 'NO ACTION' }], triggers: ['audit'] })],
      views: [{ schema: null, name: 'v', definition: 'CREATE VIEW v AS\n  SELECT 1' }],
      samples: new Map([['customers', { columns: ['id', 'email'], rows: [['1', 'a@b.c']] }]]),
    };
    const text = describeSchema(sqliteGrant('/x.db'), schema);
    expect(text).toContain('  table customers (3 rows)\n    id INTEGER PRIMARY KEY\n    email TEXT NOT NULL UNIQUE');
    expect(text).toContain('foreign key (customer_id) → customers(id) ON DELETE CASCADE');
    expect(text).toContain('triggers: audit');
    expect(text).toContain('view v: CREATE VIEW v AS SELECT 1');
    expect(text).toContain('sample rows (id | email):\n      1 | a@b.c');
    expect(parentFirst(schema.tables.slice().reverse()).map((t) => t.name)).toEqual(['customers', 'orders']);
  });
});

describe('query results as text', () => {
  it('aligns columns, shows NULL, and says how many rows there were', () => {
    expect(formatTable({ columns: ['id', 'name'], rows: [['1', 'Zoë'], ['22', null]], rowCount: 30, truncated: true })).toBe(
      ['id | name', '---+-----', '1  | Zoë', '22 | NULL', '(30 rows; the first 2 shown)'].join('\n'),
    );
  });
});
