// MySQL/MariaDB behind the databases channel, against the real server (scripts/setup-test-env.sh mysql) and
// the Sakila sample schema (tests/fixtures/sakila): an UPDATE of thousands of rows, a DELETE whose foreign
// key sets children to NULL, a trigger-maintained table (film_text), an insert through the film triggers and
// a key change that cascades; undo all, redo all, undo all: mysqldump equals the start and shows nothing of
// Posthoc. Schema changes (ADD COLUMN, CREATE INDEX, CREATE and DROP TABLE) taken back although each commits
// on its own. Then what must be refused: schema changes that cannot be taken back, statements that would
// switch capture off or touch it, conflicts with rows written since, and a cascade into them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbEffect } from '../../shared/domain';
import { DbChannel, type DbRunResult } from '../../main/effects/db/db-channel';
import { DbConflict } from '../../main/effects/db/db-errors';
import { createMyDatabase, loadSakila, MY_CAPTURE_MODES, mySecrets, type MyTestDb } from '../support/mysql-db';
import { dbEngines } from '../support/db-engines';
import { describeSchema } from '../../main/effects/db/db-schema';
import { tempDirs } from '../support/temp-dir';
import { binlogRefusal } from '../../main/effects/db/mysql/my-binlog';
import type { MyConnection } from '../../main/effects/db/mysql/my-client';

const dirs = tempDirs();
let db: MyTestDb;
let channel: DbChannel;
let seq = 0;

afterAll(() => dirs.cleanup());

async function run(sql: string, patch: Parameters<MyTestDb['grant']>[0] = {}): Promise<DbRunResult> {
  return channel.run({ taskId: 't', actionId: `a${++seq}`, grant: db.grant({ maxRowsAffected: 100_000, ...patch }), sql, params: null, via: 'sql', approved: false, timeoutMs: 60_000 });
}

async function one<T>(sql: string): Promise<T> {
  const c = await db.connect();
  try {
    const [rows] = await c.query(sql);
    return (rows as T[])[0]!;
  } finally {
    await c.end();
  }
}

/** Posthoc's triggers, capture logs and trash tables in the database. */
async function posthocObjects(): Promise<number> {
  const r = await one<{ n: number }>(
    `SELECT (SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME LIKE 'posthoc%') +
            (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'posthoc%') AS n`,
  );
  return Number(r.n);
}

// Every test runs with capture through the binary log and with capture triggers.
describe.each(MY_CAPTURE_MODES)('MySQL/MariaDB on the Sakila schema, capture: %s', (mode) => {
  beforeAll(async () => {
    db = await createMyDatabase('posthoc_test', mode);
    await loadSakila(db);
    channel = new DbChannel(dirs.make('posthoc-mysql-'), dbEngines(mySecrets));
  }, 120_000);

  afterAll(async () => {
    await channel?.shutdown();
    await db?.drop();
  });

  it('undoes and redoes a mix of real actions exactly: mysqldump equals the start, with nothing of Posthoc left', async () => {
    const start = db.dump();
    const effects: DbEffect[] = [];
    const act = async (sql: string, rows: number) => {
      const r = await run(sql);
      expect(r.status, r.stderr).toBe('done');
      expect(r.effect.rowsAffected).toBe(rows);
      expect(r.effect.undo.kind).toBe('rows');
      effects.push(r.effect);
      return r;
    };
    // Thousands of rows in one statement.
    await act('UPDATE payment SET amount = amount + 1.10 WHERE payment_id <= 4000', 4000);
    // ON DELETE SET NULL: payments of the deleted rentals lose their rental (a cascade fires no trigger).
    const del = await act('DELETE FROM rental WHERE rental_id BETWEEN 10 AND 59', 100);
    expect(del.effect.tables.sort()).toEqual(['payment', 'rental']);
    // The film triggers keep film_text in step: both tables are in the action.
    const upd = await act("UPDATE film SET title = CONCAT(title, ' (director''s cut)') WHERE film_id <= 30", 60);
    expect(upd.effect.tables.sort()).toEqual(['film', 'film_text']);
    await act("INSERT INTO film (title, description, language_id, rental_rate, replacement_cost) VALUES ('NEW FILM', 'Fresh \\\\ off the press', 1, 3.99, 20.99)", 2);
    // A key change that cascades into film.language_id (500 films). The language row counts once on the
    // card, although undo names rows by key and the log holds it at both keys.
    await act('UPDATE language SET language_id = 9 WHERE language_id = 2', 501);
    expect(await posthocObjects()).toBe(0);
    const after = db.dump();
    expect(after).not.toBe(start);
    // (The definer of the film triggers is the test user, posthoc_test: not Posthoc's.)
    expect(after).not.toMatch(/posthoc_(?:log_)?c\d/);

    for (const e of [...effects].reverse()) await channel.undo(e);
    expect(db.dump()).toBe(start);
    for (const e of effects) await channel.redo(e);
    expect(db.dump()).toBe(after);
    for (const e of [...effects].reverse()) await channel.undo(e);
    expect(db.dump()).toBe(start);
    expect(await posthocObjects()).toBe(0);
  }, 300_000);

  it('shows on the card the statements undo runs, and counts them', async () => {
    const r = await run("UPDATE customer SET email = 'x@example.org' WHERE customer_id IN (1, 2, 3)");
    expect(r.status, r.stderr).toBe('done');
    expect(r.effect.undo.statementCount).toBe(3);
    // last_update changed by itself (ON UPDATE CURRENT_TIMESTAMP): undo puts it back too.
    expect(r.effect.undo.statements[0]).toMatch(/^UPDATE `customer` SET `email` = 'c\d@example\.org', `last_update` = '2006-02-15 04:34:33' WHERE `customer_id` = \d;$/);
    await channel.undo(r.effect);
  });

  it('refuses undo when a row changed since, names the row, and changes nothing', async () => {
    const r = await run("UPDATE actor SET first_name = 'PENELOPE' WHERE actor_id = 1");
    expect(r.status, r.stderr).toBe('done');
    const c = await db.connect();
    await c.query("UPDATE actor SET first_name = 'SOMEONE ELSE' WHERE actor_id = 1");
    await c.end();
    const before = db.dump();
    const error = await channel.undo(r.effect).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DbConflict);
    expect((error as Error).message).toMatch(/actor \(actor_id = 1\): changed since/);
    expect(db.dump()).toBe(before);
    expect(await posthocObjects()).toBe(0);
  });

  it('takes back the schema step it took when a later row step of the same undo is refused: a refused undo changes nothing', async () => {
    // Found by the property test (seed 1321466995): the undo dropped the action's index (which commits), then
    // could not put the deleted row back, its parent deleted by another client meanwhile.
    const c = await db.connect();
    await c.query('CREATE TABLE kin_parent (id INT PRIMARY KEY) ENGINE=InnoDB');
    await c.query('CREATE TABLE kin_child (id INT PRIMARY KEY, parent_id INT NOT NULL, note VARCHAR(20), FOREIGN KEY (parent_id) REFERENCES kin_parent (id)) ENGINE=InnoDB');
    await c.query('INSERT INTO kin_parent VALUES (1), (2)');
    await c.query("INSERT INTO kin_child VALUES (1, 1, 'one'), (2, 2, 'two')");
    const r = await run('DELETE FROM kin_child WHERE id = 1; CREATE INDEX idx_kin ON kin_child (note)');
    expect(r.status, r.stderr).toBe('done');
    await c.query('DELETE FROM kin_parent WHERE id = 1');
    const before = db.dump();
    expect(before).toContain('idx_kin');
    const error = await channel.undo(r.effect).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/Nothing was changed/);
    expect(error).toBeInstanceOf(DbConflict);
    expect(db.dump()).toBe(before);
    expect(await posthocObjects()).toBe(0);
    // With the parent back, the same undo goes through: the row and no index.
    await c.query('INSERT INTO kin_parent VALUES (1)');
    await channel.undo(r.effect);
    expect(db.dump()).not.toContain('idx_kin');
    expect(await one<{ n: number }>('SELECT COUNT(*) AS n FROM kin_child')).toEqual({ n: 2 });
    await c.query('DROP TABLE kin_child, kin_parent');
    await c.end();
  });

  it('refuses an undo whose delete would cascade into rows written since', async () => {
    const r = await run("INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, staff_id) VALUES (90001, '2006-01-01 10:00:00', 5, 5, 1)");
    expect(r.status, r.stderr).toBe('done');
    // Another client pays for the new rental; undoing the insert would set that payment's rental to NULL.
    const c = await db.connect();
    await c.query("INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date) VALUES (60001, 5, 1, 90001, 2.99, '2006-01-01 11:00:00')");
    await c.end();
    const before = db.dump();
    const error = await channel.undo(r.effect).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DbConflict);
    expect((error as Error).message).toMatch(/payment \(payment_id = 60001\)/);
    expect(db.dump()).toBe(before);
  });

  it('takes back a delete that the table’s own trigger mirrors, and the mirror with it', async () => {
    // Another client adds a film; its insert trigger fills film_text.
    const c = await db.connect();
    await c.query("INSERT INTO film (film_id, title, language_id) VALUES (1500, 'MIRRORED', 1)");
    await c.end();
    const before = db.dump();
    const r = await run('DELETE FROM film WHERE film_id = 1500');
    expect(r.status, r.stderr).toBe('done');
    expect(r.effect.tables.sort()).toEqual(['film', 'film_text']);
    expect(Number((await one<{ n: number }>('SELECT COUNT(*) AS n FROM film_text WHERE film_id = 1500')).n)).toBe(0);
    // Undo puts the film back, whose insert trigger writes film_text again: the row is brought to its image, not inserted twice.
    await channel.undo(r.effect);
    expect(db.dump()).toBe(before);
    await channel.redo(r.effect);
    expect(Number((await one<{ n: number }>('SELECT COUNT(*) AS n FROM film WHERE film_id = 1500')).n)).toBe(0);
    await channel.undo(r.effect);
    expect(db.dump()).toBe(before);
  });

  it('raises prices and adds a discount column and an index, and takes it all back: the dump equals the start', async () => {
    const start = db.dump();
    const films = Number((await one<{ n: number }>('SELECT COUNT(*) AS n FROM film')).n);
    const r = await run(
      "UPDATE film SET rental_rate = rental_rate * 1.1; ALTER TABLE film ADD COLUMN discount DECIMAL(4,2) NOT NULL DEFAULT 0.00; CREATE INDEX idx_rate ON film (rental_rate); UPDATE film SET discount = 0.50 WHERE film_id IN (3, 8)",
    );
    expect(r.status, r.stderr).toBe('done');
    expect(r.effect.rowsAffected).toBe(films + 2);
    // The card says which schema changes undo takes back, newest first, as the statements it runs.
    expect(r.effect.undo.statements).toContain('DROP INDEX `idx_rate` ON `film`;');
    expect(r.effect.undo.statements).toContain('ALTER TABLE `film` DROP COLUMN `discount`;');
    expect(await posthocObjects()).toBe(0);
    const after = db.dump();
    expect(after).toMatch(/`discount` decimal\(4,2\) NOT NULL DEFAULT 0\.00/);
    await channel.undo(r.effect);
    expect(db.dump()).toBe(start);
    await channel.redo(r.effect);
    expect(db.dump()).toBe(after);
    await channel.undo(r.effect);
    expect(db.dump()).toBe(start);
    expect(await posthocObjects()).toBe(0);
  }, 120_000);

  it('creates and drops tables through a trash it empties on keep, and refuses undo once the new table changed', async () => {
    const start = db.dump();
    const created = await run("CREATE TABLE promo (id INT PRIMARY KEY, code VARCHAR(20) NOT NULL) ENGINE=InnoDB; INSERT INTO promo VALUES (1, 'SUMMER'), (2, 'WINTER')");
    expect(created.status, created.stderr).toBe('done');
    const dropped = await run('DROP TABLE promo');
    expect(dropped.status, dropped.stderr).toBe('done');
    expect(db.dump()).toBe(start);
    // The dropped table waits in the trash: undo of the drop brings it back with its rows.
    await channel.undo(dropped.effect);
    expect(db.dump()).toMatch(/INSERT INTO `promo` VALUES \(2,'WINTER'\)/);
    // Someone writes to it: undoing its creation would lose that row, so it is refused.
    const c = await db.connect();
    await c.query("INSERT INTO promo VALUES (3, 'MINE')");
    const before = db.dump();
    const error = await channel.undo(created.effect).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DbConflict);
    expect((error as Error).message).toMatch(/created table promo, and promo changed since/);
    expect(db.dump()).toBe(before);
    await c.query('DELETE FROM promo WHERE id = 3');
    await c.end();
    await channel.undo(created.effect);
    expect(db.dump()).toBe(start);
    // Kept: the trash of both actions is emptied; nothing of Posthoc stays.
    await channel.keep(dropped.effect);
    await channel.keep(created.effect);
    expect(await posthocObjects()).toBe(0);
  }, 120_000);

  it('takes back the schema change it committed when a later statement of the action fails', async () => {
    const start = db.dump();
    const r = await run('UPDATE actor SET first_name = LOWER(first_name) WHERE actor_id < 10; ALTER TABLE actor ADD COLUMN nickname VARCHAR(20); UPDATE no_such_table SET x = 1');
    expect(r.status).toBe('failed');
    expect(r.stderr).toMatch(/no_such_table/);
    expect(r.stderr).toMatch(/already committed .* was taken back/);
    expect(db.dump()).toBe(start);
    expect(await posthocObjects()).toBe(0);
  }, 120_000);

  it('streams a huge result: the card keeps the first rows and counts them all', async () => {
    const r = await run('SELECT a.seq AS n, REPEAT(\'x\', 100) AS pad FROM seq_1_to_1000000 a', { readOnly: true, statements: ['query'] });
    expect(r.status, r.stderr).toBe('done');
    const result = r.effect.statements[0]!.result!;
    expect(result.rowCount).toBe(1_000_000);
    expect(result.rows.length).toBeLessThanOrEqual(50);
    expect(result.truncated).toBe(true);
  }, 120_000);

  it('holds an action in an open transaction (held mode), rolls it back on undo, and refuses a schema change there', async () => {
    const start = db.dump();
    const held = db.grant({ mode: 'held', heldTimeoutSeconds: 60 });
    const r = await channel.run({ taskId: 'held', actionId: 'h1', grant: held, sql: "UPDATE actor SET first_name = 'HELD' WHERE actor_id <= 5", params: null, via: 'sql', approved: false, timeoutMs: 60_000 });
    expect(r.status, r.stderr).toBe('done');
    expect(r.effect.undo.kind).toBe('held');
    const ddl = await channel.run({ taskId: 'held', actionId: 'h2', grant: held, sql: 'ALTER TABLE actor ADD COLUMN x INT', params: null, via: 'sql', approved: false, timeoutMs: 60_000 });
    expect(ddl.status).toBe('failed');
    expect(ddl.stderr).toMatch(/not run in held-transaction mode/);
    await channel.undo(r.effect);
    expect(db.dump()).toBe(start);
  });

  it('describes the schema for the prompt: keys, cascades and the tables’ own triggers, and no row without sample rows', async () => {
    const engines = dbEngines(mySecrets);
    const grant = db.grant();
    const text = describeSchema(grant, await engines.get('mysql').readSchema(grant));
    expect(text).toMatch(/^Database "shop" \(MySQL\/MariaDB; allows/);
    expect(text).toMatch(/table film \(about 100[0-9] rows|table film \(100[0-9] rows/);
    expect(text).toMatch(/foreign key \(language_id\) → language\(language_id\) ON DELETE RESTRICT ON UPDATE CASCADE/);
    expect(text).toMatch(/triggers: ins_film, upd_film, del_film/);
    expect(text).not.toMatch(/FILM 1\b/);
    expect(text).not.toMatch(/posthoc_/);
  });

  it('does not take another client’s writes to the same table, made while the action runs, for the action’s', async () => {
    const other = await db.connect();
    try {
      // The action waits on a lock the other client holds; meanwhile the other client writes to actor and commits.
      await other.query("SELECT GET_LOCK('posthoc-test-gate', 10)");
      const before = db.dump();
      const running = run("UPDATE actor SET first_name = 'MINE' WHERE actor_id = 20; SELECT GET_LOCK('posthoc-test-gate', 60); UPDATE actor SET first_name = 'MINE TOO' WHERE actor_id = 21");
      for (;;) {
        const [rows] = await other.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT GET_LOCK(%60)'");
        if (Number((rows as Array<{ n: number }>)[0]!.n) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await other.query("UPDATE actor SET first_name = 'THEIRS' WHERE actor_id IN (22, 23)");
      await other.query("INSERT INTO actor (actor_id, first_name, last_name) VALUES (901, 'OTHER', 'CLIENT')");
      await other.query("SELECT RELEASE_LOCK('posthoc-test-gate')");
      const r = await running;
      expect(r.status, r.stderr).toBe('done');
      expect(r.effect.rowsAffected).toBe(2);
      expect(r.effect.undo.statements.join('\n')).not.toMatch(/THEIRS|OTHER|= 2[23]\b|901/);
      const theirs = db.dump();
      await channel.undo(r.effect);
      // Only the action's two rows went back: the other client's writes stay.
      expect(db.dump()).not.toBe(before);
      await other.query("UPDATE actor SET first_name = CONCAT('ACTOR', actor_id), last_update = '2006-02-15 04:34:33' WHERE actor_id IN (22, 23)");
      await other.query('DELETE FROM actor WHERE actor_id = 901');
      expect(db.dump()).toBe(before);
      expect(theirs).toMatch(/THEIRS/);
      expect(await posthocObjects()).toBe(0);
    } finally {
      await other.end();
    }
  }, 120_000);

  describe('what an action may not do', () => {
    it.each([
      ['dropping a column (its values could not come back)', 'ALTER TABLE film DROP COLUMN length', /only CREATE TABLE, CREATE INDEX/],
      ['changing a column', 'ALTER TABLE film MODIFY title VARCHAR(300) NOT NULL', /only CREATE TABLE, CREATE INDEX/],
      ['several changes in one ALTER', 'ALTER TABLE film ADD COLUMN a INT, ADD COLUMN b INT', /several changes in one ALTER TABLE/],
      ['a column put first', 'ALTER TABLE film ADD COLUMN a INT FIRST', /at the end only/],
      ['renaming a table', 'RENAME TABLE film TO movie', /only CREATE TABLE, CREATE INDEX/],
      ['emptying a table', 'TRUNCATE TABLE payment', /only CREATE TABLE, CREATE INDEX/],
      ['dropping a table others point at', 'DROP TABLE language', /film has a foreign key into it/],
      ['dropping the trash of an action', 'DROP TABLE posthoc_trash_0123456789ab_1', /Posthoc's own capture objects/],
      ['switching the binary log off', 'SET sql_log_bin = 0', /SET, LOCK, CALL/],
      ['changing the binlog format', "SET SESSION binlog_format = 'STATEMENT'", /SET, LOCK, CALL/],
      ['locking tables', 'LOCK TABLES film WRITE', /SET, LOCK, CALL/],
      ['a transaction of its own', 'COMMIT', /transaction of its own/],
      ['dropping the capture log', 'DROP TABLE posthoc_log_c1', /Posthoc's own capture objects/],
      ['reading the capture log', 'SELECT * FROM posthoc_log_c12', /Posthoc's own capture objects/],
      ['writing a file on the server', "SELECT * FROM film INTO OUTFILE '/tmp/x'", /files on the database server/],
    ])('refuses %s, and changes nothing', async (_what, sql, message) => {
      const before = db.dump();
      const r = await run(`UPDATE actor SET last_name = 'CHANGED' WHERE actor_id = 2; ${sql}`);
      expect(r.status).toBe('failed');
      expect(r.stderr).toMatch(message);
      expect(db.dump()).toBe(before);
      expect(await posthocObjects()).toBe(0);
    });

    it('keeps a string with a semicolon and a backslash-escaped quote in one statement', async () => {
      const r = await run("UPDATE actor SET last_name = 'semi; \\' DROP TABLE film; --' WHERE actor_id = 3");
      expect(r.status, r.stderr).toBe('done');
      const row = await one<{ last_name: string }>('SELECT last_name FROM actor WHERE actor_id = 3');
      expect(row.last_name).toBe("semi; ' DROP TABLE film; --");
      await channel.undo(r.effect);
      expect((await one<{ last_name: string }>('SELECT last_name FROM actor WHERE actor_id = 3')).last_name).toBe('LAST\\3');
    });

    it('waits for approval past the rows limit, having changed nothing', async () => {
      const before = db.dump();
      const r = await run('UPDATE payment SET amount = amount + 1', { maxRowsAffected: 100 });
      expect(r.status).toBe('awaiting-approval');
      expect(db.dump()).toBe(before);
    });

    it('refuses writes on a read-only grant, and answers queries', async () => {
      const q = await run('SELECT COUNT(*) AS n FROM film', { readOnly: true, statements: ['query'] });
      expect(q.status, q.stderr).toBe('done');
      expect(q.effect.statements[0]!.result!.rows[0]).toEqual(['1001']);
      const w = await run("UPDATE film SET title = 'x' WHERE film_id = 1", { readOnly: true, statements: ['query'] });
      expect(w.status).toBe('failed');
      expect(w.stderr).toMatch(/does not allow row changes/);
    });
  });
});

describe('MySQL/MariaDB: which capture a server allows', () => {
  let small: MyTestDb;
  let smallChannel: DbChannel;
  beforeAll(async () => {
    small = await createMyDatabase();
    const c = await small.connect();
    await c.query('CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL)');
    await c.query("INSERT INTO item VALUES (1, 'one'), (2, 'two')");
    await c.end();
    smallChannel = new DbChannel(dirs.make('posthoc-mysql-modes-'), dbEngines(mySecrets));
  });
  afterAll(async () => {
    await smallChannel?.shutdown();
    await small?.drop();
  });

  /** The grant as the second test user, who has no replication privileges (scripts/setup-test-env.sh mysql). */
  const withoutReplication = (capture?: string) => {
    const grant = small.grant();
    const u = new URL(grant.location);
    u.username = 'posthoc_trig';
    if (capture) u.searchParams.set('capture', capture);
    return { ...grant, location: u.toString() };
  };
  const runAs = (grant: ReturnType<MyTestDb['grant']>, sql: string) =>
    smallChannel.run({ taskId: 't', actionId: `m${++seq}`, grant, sql, params: null, via: 'sql', approved: false, timeoutMs: 60_000 });

  it('falls back to triggers for a user without the replication privileges, and undoes exactly', async () => {
    const before = small.dump();
    const r = await runAs(withoutReplication(), "UPDATE item SET name = 'uno' WHERE id = 1");
    expect(r.status, r.stderr).toBe('done');
    expect(r.effect.rowsAffected).toBe(1);
    await smallChannel.undo(r.effect);
    expect(small.dump()).toBe(before);
  });

  it('refuses capture=binlog for that user, naming the privilege, and changes nothing', async () => {
    const before = small.dump();
    const r = await runAs(withoutReplication('binlog'), "UPDATE item SET name = 'uno' WHERE id = 1");
    expect(r.status).toBe('failed');
    expect(r.stderr).toMatch(/capture=binlog.*REPLICATION SLAVE/);
    expect(small.dump()).toBe(before);
  });

  it('names the setting when the server runs without the binary log or logs statements', async () => {
    const server = (values: string[]) => ({ query: async () => [[values]] }) as unknown as MyConnection;
    expect(await binlogRefusal(server(['0', 'ROW', 'FULL', '1']), new Map())).toMatch(/log_bin is OFF/);
    expect(await binlogRefusal(server(['1', 'STATEMENT', 'FULL', '1']), new Map())).toMatch(/binlog_format is STATEMENT, not ROW/);
    expect(await binlogRefusal(server(['1', 'ROW', 'MINIMAL', '1']), new Map())).toMatch(/binlog_row_image is MINIMAL, not FULL/);
    expect(await binlogRefusal(server(['1', 'ROW', 'FULL', '0']), new Map())).toMatch(/sql_log_bin is off/);
  });

  it('sweeps the capture objects a dead connection left (the user may see every connection: PROCESS)', async () => {
    const c = await small.connect();
    await c.query('CREATE TABLE posthoc_log_c999999 (seq INT PRIMARY KEY)');
    await c.query('CREATE TRIGGER posthoc_c999999_1 AFTER UPDATE ON item FOR EACH ROW SET @x = 1');
    await c.end();
    const r = await runAs(small.grant(), "UPDATE item SET name = 'swept' WHERE id = 2");
    expect(r.status, r.stderr).toBe('done');
    const check = await small.connect();
    const [rows] = await check.query(
      "SELECT (SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME LIKE 'posthoc%') + (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'posthoc%') AS n",
    );
    await check.end();
    expect(Number((rows as Array<{ n: number }>)[0]!.n)).toBe(0);
    await smallChannel.undo(r.effect);
  });

  it('refuses an unknown capture= in the grant, saying what to write', async () => {
    const grant = small.grant();
    const r = await runAs({ ...grant, location: `${grant.location}?capture=wal` }, "UPDATE item SET name = 'x' WHERE id = 2");
    expect(r.status).toBe('failed');
    expect(r.stderr).toMatch(/capture=wal; write capture=binlog, capture=triggers/);
  });
});
