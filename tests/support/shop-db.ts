// A realistic shop database for the databases tests, in SQLite and PostgreSQL: foreign keys with cascades,
// the person's own triggers, a view, generated columns, NULLs, blobs, unicode, large text, exact reals and
// integers beyond 2^53. Plus throwaway PostgreSQL databases on the test server.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabaseGrant } from '../../shared/domain';
import { logicalDump } from '../../main/effects/db/sqlite/sqlite-dump';

export const PG_ADMIN_URL = process.env.POSTHOC_TEST_PG_URL ?? 'postgres://posthoc_test@127.0.0.1:5432/posthoc_test';
export const PG_PASSWORD = process.env.POSTHOC_TEST_PG_PASSWORD ?? 'posthoc-test-pw';

/** pg takes the password from the URL; a separate password option loses to it. */
function withPassword(url: string): string {
  const u = new URL(url);
  u.password = encodeURIComponent(PG_PASSWORD);
  return u.toString();
}

export const LARGE_TEXT = 'Größe · 大小 · 🛒 '.repeat(6000);

export const SQLITE_SHOP = `
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  note TEXT,
  avatar BLOB,
  loyalty INTEGER,
  created_at TEXT NOT NULL DEFAULT '2024-01-01'
);
CREATE TABLE products (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  sku TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  weight REAL,
  description TEXT,
  price_eur REAL GENERATED ALWAYS AS (price_cents / 100.0) VIRTUAL
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE CASCADE ON UPDATE CASCADE,
  placed_at TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'new',
  total_cents INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE order_items (
  order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE RESTRICT,
  qty INTEGER NOT NULL,
  price_cents INTEGER NOT NULL,
  PRIMARY KEY (order_id, product_id)
) WITHOUT ROWID;
CREATE TABLE price_history (id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL, old_cents INTEGER, new_cents INTEGER);
CREATE TRIGGER products_price_audit AFTER UPDATE OF price_cents ON products WHEN old.price_cents IS NOT new.price_cents
BEGIN
  INSERT INTO price_history (product_id, old_cents, new_cents) VALUES (old.id, old.price_cents, new.price_cents);
END;
CREATE TRIGGER order_items_total AFTER INSERT ON order_items
BEGIN
  UPDATE orders SET total_cents = total_cents + new.qty * new.price_cents WHERE id = new.order_id;
END;
CREATE VIEW order_totals AS SELECT o.id, c.email, o.total_cents FROM orders o JOIN customers c ON c.id = o.customer_id;
CREATE INDEX orders_by_customer ON orders(customer_id);
`;

/** Rows: unicode names, NULL notes, blobs with NUL bytes, a 100 KB text, 0.1 + 0.2, 2^53 + 1. */
export function fillSqliteShop(db: Database.Database): void {
  db.pragma('foreign_keys = ON');
  const customer = db.prepare('INSERT INTO customers (id, email, name, note, avatar, loyalty) VALUES (?, ?, ?, ?, ?, ?)');
  customer.run(1, 'zoe@example.com', 'Zoë Ångström', null, Buffer.from([0, 1, 2, 255, 0]), 9007199254740993n);
  customer.run(2, 'li@example.com', '李小龍', 'prefers “quotes” and \'apostrophes\'', null, null);
  customer.run(3, 'emoji@example.com', 'Ana 🛒', LARGE_TEXT, randomBytes(64), 42);
  const product = db.prepare('INSERT INTO products (sku, name, price_cents, weight, description) VALUES (?, ?, ?, ?, ?)');
  product.run('TEA-1', 'Green tea', 450, 0.1 + 0.2, 'Sencha; "first flush"');
  product.run('MUG-1', 'Mug', 1200, 0.35, null);
  product.run('BAG-1', 'Tote bag', 900, null, LARGE_TEXT.slice(0, 5000));
  product.run('OLD-1', 'Discontinued', 100, 1e-300, 'x');
  const order = db.prepare('INSERT INTO orders (id, customer_id, placed_at, status) VALUES (?, ?, ?, ?)');
  order.run(10, 1, '2023-01-05', 'shipped');
  order.run(11, 1, '2024-03-01', 'new');
  order.run(12, 2, '2022-11-30', 'shipped');
  order.run(13, 3, '2021-07-14', 'shipped');
  const item = db.prepare('INSERT INTO order_items (order_id, product_id, qty, price_cents) VALUES (?, ?, ?, ?)');
  item.run(10, 1, 2, 450);
  item.run(10, 2, 1, 1200);
  item.run(11, 3, 1, 900);
  item.run(12, 1, 5, 400);
  item.run(13, 4, 1, 100);
}

export function createSqliteShop(path: string): void {
  const db = new Database(path);
  db.exec(SQLITE_SHOP);
  fillSqliteShop(db);
  db.close();
}

/** What the tests' grants allow unless they say otherwise: everything, up to 1000 rows, capture mode. */
export const GRANT_DEFAULTS = {
  readOnly: false,
  statements: ['query', 'dml', 'ddl'],
  sampleRows: false,
  maxRowsAffected: 1000,
  mode: 'capture',
  heldTimeoutSeconds: 600,
} satisfies Partial<DatabaseGrant>;

/** A SQLite file's logical dump (schema and rows), read on a connection of its own. */
export function sqliteFileDump(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return logicalDump(db);
  } finally {
    db.close();
  }
}

export function sqliteGrant(path: string, patch: Partial<DatabaseGrant> = {}): DatabaseGrant {
  return {
    name: 'shop',
    engine: 'sqlite',
    location: path,
    ...GRANT_DEFAULTS,
    passwordSecret: null,
    ...patch,
  };
}

export const PG_SHOP = `
CREATE TABLE customers (
  id integer PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text NOT NULL,
  note text,
  avatar bytea,
  loyalty bigint,
  tags text[],
  created_at timestamptz NOT NULL DEFAULT '2024-01-01 00:00:00+00'
);
CREATE TABLE products (
  id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  sku text NOT NULL UNIQUE,
  name text NOT NULL,
  price numeric(10, 2) NOT NULL CHECK (price >= 0),
  weight double precision,
  description text,
  price_with_vat numeric GENERATED ALWAYS AS (price * 1.2) STORED
);
CREATE TABLE orders (
  id integer PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES customers(id) ON DELETE CASCADE ON UPDATE CASCADE,
  placed_at date NOT NULL,
  status text NOT NULL DEFAULT 'new',
  total numeric(12, 2) NOT NULL DEFAULT 0
);
CREATE TABLE order_items (
  order_id integer NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  product_id integer NOT NULL REFERENCES products(id) ON DELETE RESTRICT,
  qty integer NOT NULL,
  price numeric(10, 2) NOT NULL,
  PRIMARY KEY (order_id, product_id)
);
CREATE TABLE price_history (id serial PRIMARY KEY, product_id integer NOT NULL, old_price numeric(10, 2), new_price numeric(10, 2));
CREATE TABLE events (kind text, payload jsonb);
CREATE FUNCTION audit_price() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO price_history (product_id, old_price, new_price) VALUES (OLD.id, OLD.price, NEW.price);
  RETURN NEW;
END $$;
CREATE TRIGGER products_price_audit AFTER UPDATE OF price ON products FOR EACH ROW WHEN (OLD.price IS DISTINCT FROM NEW.price) EXECUTE FUNCTION audit_price();
CREATE VIEW order_totals AS SELECT o.id, c.email, o.total FROM orders o JOIN customers c ON c.id = o.customer_id;
CREATE INDEX orders_by_customer ON orders(customer_id);
`;

export async function fillPgShop(client: pg.Client): Promise<void> {
  await client.query(
    `INSERT INTO customers (id, email, name, note, avatar, loyalty, tags) VALUES
      (1, 'zoe@example.com', 'Zoë Ångström', NULL, '\\x000102ff00', 9007199254740993, ARRAY['vip', 'a,b', 'quote"d']),
      (2, 'li@example.com', '李小龍', 'prefers “quotes” and ''apostrophes'' and a \\ backslash', NULL, NULL, NULL),
      (3, 'emoji@example.com', 'Ana 🛒', $1, '\\x${randomBytes(64).toString('hex')}', 42, '{}')`,
    [LARGE_TEXT],
  );
  await client.query(`INSERT INTO products (sku, name, price, weight, description) VALUES
      ('TEA-1', 'Green tea', 4.50, 0.30000000000000004, 'Sencha; "first flush"'),
      ('MUG-1', 'Mug', 12.00, 0.35, NULL),
      ('BAG-1', 'Tote bag', 9.00, NULL, repeat('x', 5000)),
      ('OLD-1', 'Discontinued', 1.00, 1e-300, 'x')`);
  await client.query(`INSERT INTO orders (id, customer_id, placed_at, status) VALUES
      (10, 1, '2023-01-05', 'shipped'), (11, 1, '2024-03-01', 'new'), (12, 2, '2022-11-30', 'shipped'), (13, 3, '2021-07-14', 'shipped')`);
  await client.query(`INSERT INTO order_items VALUES (10, 1, 2, 4.50), (10, 2, 1, 12.00), (11, 3, 1, 9.00), (12, 1, 5, 4.00), (13, 4, 1, 1.00)`);
  await client.query(`INSERT INTO events VALUES ('signup', '{"who": 1}'), ('signup', '{"who": 1}'), (NULL, NULL)`);
}

export type PgTestDb = { name: string; url: string; grant(patch?: Partial<DatabaseGrant>): DatabaseGrant; connect(): Promise<pg.Client>; drop(): Promise<void> };

/** A fresh database on the test server, owned by the test role. */
export async function createPgDatabase(prefix = 'posthoc_t'): Promise<PgTestDb> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: withPassword(PG_ADMIN_URL) });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const connect = async () => {
    const c = new pg.Client({ connectionString: withPassword(url.toString()) });
    // Dropping the database ends connections a failed test left open; that is no error of the test.
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  return {
    name,
    url: url.toString(),
    connect,
    grant: (patch = {}) => ({
      name: 'shop',
      engine: 'postgres',
      location: url.toString(),
      ...GRANT_DEFAULTS,
      passwordSecret: 'test-pg-password',
      ...patch,
    }),
    async drop() {
      const c = new pg.Client({ connectionString: withPassword(PG_ADMIN_URL) });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export const pgSecrets = async (name: string): Promise<string | null> => (name === 'test-pg-password' ? PG_PASSWORD : null);

/** A PostgreSQL database's logical content: user schemas' relations with definitions, and every table's rows sorted (Posthoc's trash and row logs are not the person's). */
export async function pgDump(client: pg.Client): Promise<string> {
  const lines: string[] = [];
  const objects = await client.query(`
    SELECT c.relkind::text || ' ' || n.nspname || '.' || c.relname || ': ' ||
      coalesce(pg_get_viewdef(c.oid), '') || coalesce(pg_get_indexdef(c.oid), '') ||
      coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
        || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum)
        FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'v')), '') ||
      coalesce((SELECT ' constraints ' || string_agg(co.conname || ' ' || pg_get_constraintdef(co.oid), '; ' ORDER BY co.conname) FROM pg_constraint co WHERE co.conrelid = c.oid), '') ||
      coalesce((SELECT ' triggers ' || string_agg(pg_get_triggerdef(t.oid), '; ' ORDER BY t.tgname) FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal), '') AS line
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'posthoc_undo_log') AND n.nspname NOT LIKE 'posthoc\\_trash%' AND n.nspname NOT LIKE 'pg\\_%' AND c.relkind IN ('r', 'v', 'i', 'm')
    ORDER BY 1`);
  lines.push(...objects.rows.map((r: { line: string }) => r.line));
  const tables = await client.query(`SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'posthoc_undo_log') AND n.nspname NOT LIKE 'posthoc\\_trash%' AND n.nspname NOT LIKE 'pg\\_%' ORDER BY 1`);
  for (const { t } of tables.rows as Array<{ t: string }>) {
    const rows = await client.query(`SELECT x::text AS r FROM ${t} x ORDER BY 1`);
    lines.push(`rows ${t}:`, ...rows.rows.map((r: { r: string }) => `  ${r.r}`));
  }
  return lines.join('\n');
}

/** An empty public schema, and no trash schemas or row logs left by earlier actions. */
export async function resetPgSchema(client: pg.Client): Promise<void> {
  const trash = (await client.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'posthoc\\_trash%'")).rows.map((r: { nspname: string }) => r.nspname);
  await client.query([...trash.map((n) => `DROP SCHEMA "${n}" CASCADE`), 'DROP SCHEMA IF EXISTS posthoc_undo_log CASCADE', 'DROP SCHEMA IF EXISTS public CASCADE', 'CREATE SCHEMA public'].join('; '));
}
