// A MariaDB (or MySQL) database of its own per test, on the server scripts/setup-test-env.sh mysql starts:
// the Sakila schema loaded (tests/fixtures/sakila), rows generated, and the real mysqldump for comparing.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import type { DatabaseGrant } from '../../shared/domain';
import { GRANT_DEFAULTS } from './shop-db';

export const MY_URL = process.env.POSTHOC_TEST_MYSQL_URL ?? 'mysql://posthoc_test@127.0.0.1:3306/posthoc_test';
export const MY_PASSWORD = process.env.POSTHOC_TEST_MYSQL_PASSWORD ?? 'posthoc-test-pw';
export const mySecrets = async (name: string): Promise<string | null> => (name === 'test-my-password' ? MY_PASSWORD : null);

export type MyTestDb = {
  name: string;
  grant(patch?: Partial<DatabaseGrant>): DatabaseGrant;
  connect(): Promise<mysql.Connection>;
  /** mysqldump of the database (schema, triggers, rows by primary key), without the AUTO_INCREMENT counters; `trash`: with the tables Posthoc keeps an action's dropped tables in until it is kept. */
  dump(options?: { trash?: boolean }): string;
  drop(): Promise<void>;
};

function options(database: string | undefined, multipleStatements = false): mysql.ConnectionOptions {
  const u = new URL(MY_URL);
  return { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: MY_PASSWORD, database, multipleStatements, dateStrings: true };
}

/** The two ways Posthoc captures on MySQL/MariaDB; tests run in both (the grant's URL asks for one). */
export const MY_CAPTURE_MODES = ['binlog', 'triggers'] as const;
export type MyCaptureMode = (typeof MY_CAPTURE_MODES)[number];

/** A fresh database on the test server (named posthoc_test_…: the test user may create those); `capture`: the grant asks for that mode. */
export async function createMyDatabase(prefix = 'posthoc_test', capture?: MyCaptureMode): Promise<MyTestDb> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = await mysql.createConnection(options(undefined));
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  await admin.end();
  const u = new URL(MY_URL);
  u.pathname = `/${name}`;
  const location = new URL(u);
  if (capture) location.searchParams.set('capture', capture);
  return {
    name,
    connect: () => mysql.createConnection(options(name, true)),
    grant: (patch = {}) => ({
      name: 'shop',
      engine: 'mysql',
      location: location.toString(),
      ...GRANT_DEFAULTS,
      passwordSecret: 'test-my-password',
      ...patch,
    }),
    dump(options = {}) {
      const env = { ...process.env, MYSQL_PWD: MY_PASSWORD };
      const login = ['-h', u.hostname, '-P', u.port || '3306', '-u', decodeURIComponent(u.username)];
      const trash = options.trash
        ? []
        : execFileSync('mariadb', [...login, '-N', '-e', `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${name}' AND TABLE_NAME LIKE 'posthoc\\_trash%'`], { env, encoding: 'utf8' })
            .split('\n')
            .filter(Boolean)
            .map((t) => `--ignore-table=${name}.${t}`);
      const out = execFileSync(
        'mysqldump',
        [...login, '--skip-dump-date', '--skip-comments', '--hex-blob', '--order-by-primary', '--triggers', '--routines', '--skip-extended-insert', ...trash, name],
        { env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
      );
      return out.replace(/ AUTO_INCREMENT=\d+/g, '');
    },
    async drop() {
      const c = await mysql.createConnection(options(undefined));
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
    },
  };
}

/** The Sakila schema (tests/fixtures/sakila) with rows generated in the same shape: thousands of payments and rentals. */
export async function loadSakila(db: MyTestDb, scale = 1): Promise<void> {
  const c = await db.connect();
  try {
    await c.query(readFileSync(join(__dirname, '..', 'fixtures', 'sakila', 'sakila-schema.sql'), 'utf8'));
    const n = (x: number) => Math.max(1, Math.round(x * scale));
    const rows = async (table: string, cols: string, count: number, make: (i: number) => string) => {
      for (let i = 1; i <= count; i += 500) {
        const values = Array.from({ length: Math.min(500, count - i + 1) }, (_, j) => `(${make(i + j)})`);
        await c.query(`INSERT INTO ${table} (${cols}) VALUES ${values.join(', ')}`);
      }
    };
    const stamp = "'2006-02-15 04:34:33'";
    await c.query('SET FOREIGN_KEY_CHECKS = 0');
    await rows('country', 'country_id, country, last_update', 20, (i) => `${i}, 'Country ${i}', ${stamp}`);
    await rows('city', 'city_id, city, country_id, last_update', 100, (i) => `${i}, 'City ${i} ''quoted''', ${(i % 20) + 1}, ${stamp}`);
    await rows('address', 'address_id, address, district, city_id, postal_code, phone, last_update', 300, (i) => `${i}, '${i} Main St', 'District', ${(i % 100) + 1}, ${i % 3 === 0 ? 'NULL' : `'${10000 + i}'`}, '555-${i}', ${stamp}`);
    await rows('language', 'language_id, name, last_update', 2, (i) => `${i}, '${i === 1 ? 'English' : 'Français'}', ${stamp}`);
    await rows('category', 'category_id, name, last_update', 16, (i) => `${i}, 'Category ${i}', ${stamp}`);
    await rows('actor', 'actor_id, first_name, last_name, last_update', 200, (i) => `${i}, 'ACTOR${i}', 'LAST\\\\${i}', ${stamp}`);
    await rows('staff', 'staff_id, first_name, last_name, address_id, picture, store_id, username, password, last_update', 2, (i) => `${i}, 'Staff', '${i}', ${i}, ${i === 1 ? "X'89504E470D0A1A0A00FF'" : 'NULL'}, ${i}, 'staff${i}', '8cb2237d0679ca88db6464eac60da96345513964', ${stamp}`);
    await rows('store', 'store_id, manager_staff_id, address_id, last_update', 2, (i) => `${i}, ${i}, ${i}, ${stamp}`);
    await c.query('SET FOREIGN_KEY_CHECKS = 1');
    // Films through the table's own insert trigger, which fills film_text.
    await rows('film', 'film_id, title, description, release_year, language_id, original_language_id, rental_rate, length, replacement_cost, rating, special_features, last_update', n(1000), (i) =>
      `${i}, 'FILM ${i}', 'A film « çà » about ${i}', 2006, ${(i % 2) + 1}, ${i % 5 === 0 ? 1 : 'NULL'}, ${[0.99, 2.99, 4.99][i % 3]}, ${60 + (i % 120)}, 19.99, '${['G', 'PG', 'PG-13', 'R', 'NC-17'][i % 5]}', ${i % 4 === 0 ? 'NULL' : "'Trailers,Deleted Scenes'"}, ${stamp}`,
    );
    await rows('film_actor', 'actor_id, film_id, last_update', n(1000) * 2, (i) => `${((i * 7 + Math.floor((i - 1) / n(1000)) * 3) % 200) + 1}, ${((i - 1) % n(1000)) + 1}, ${stamp}`);
    await rows('film_category', 'film_id, category_id, last_update', n(1000), (i) => `${i}, ${(i % 16) + 1}, ${stamp}`);
    await rows('customer', 'customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update', n(600), (i) => `${i}, ${(i % 2) + 1}, 'Cust', 'Omer ${i}', 'c${i}@example.org', ${(i % 300) + 1}, ${i % 7 === 0 ? 0 : 1}, '2006-02-14 22:04:36', ${stamp}`);
    await rows('inventory', 'inventory_id, film_id, store_id, last_update', n(3000), (i) => `${i}, ${(i % n(1000)) + 1}, ${(i % 2) + 1}, ${stamp}`);
    await rows('rental', 'rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update', n(5000), (i) => `${i}, DATE_ADD('2005-05-24 00:00:00', INTERVAL ${i} MINUTE), ${(i % n(3000)) + 1}, ${(i % n(600)) + 1}, ${i % 9 === 0 ? 'NULL' : "'2005-05-26 22:04:30'"}, ${(i % 2) + 1}, ${stamp}`);
    await rows('payment', 'payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update', n(5000), (i) => `${i}, ${(i % n(600)) + 1}, ${(i % 2) + 1}, ${i}, ${(i % 11) + 0.99}, '2005-05-25 11:30:37', ${stamp}`);
  } finally {
    await c.end();
  }
}
