// Database engines: everything that differs between SQLite and PostgreSQL is behind DbEngine, one folder
// per engine under main/effects/db/. Checked on the source text (as architecture.test.ts does): no branch
// on an engine id outside the engine folders, no engine folder reaching into another, and every engine
// the composition root registers implements the interface.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DbEngine } from '../../main/effects/db/engine';
import type { TableLog } from '../../main/effects/db/row-log';
import { DatabaseEngine } from '../../shared/domain';
import { DATABASE_ENGINES, engineLabel, engineOfUrl, unsupportedEngineMessage } from '../../shared/domain/database-engines';
import { dbEngines } from '../support/db-engines';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DB = 'main/effects/db';

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'native') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full));
    else if (/\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

const toPosix = (p: string) => p.split(sep).join('/');
const sources = ['main', 'renderer/src', 'shared'].flatMap((r) => walk(join(ROOT, r))).map((f) => toPosix(relative(ROOT, f)));
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
const engineFolders = readdirSync(join(ROOT, DB), { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== 'native')
  .map((e) => `${DB}/${e.name}`);
const inEngineFolder = (file: string) => engineFolders.some((f) => file.startsWith(`${f}/`));

/** A comparison with an engine id: `x.engine === 'sqlite'`, `'postgres' !== engine`, `engine == …`. */
const ENGINE_BRANCH = /\bengine\s*[!=]==?|[!=]==?\s*[\w.?]*\bengine\b|['"](sqlite|postgres)['"]\s*[!=]==?|[!=]==?\s*['"](sqlite|postgres)['"]/;

describe('database engines', () => {
  it('keeps one folder per engine, each with an index.ts', () => {
    expect(engineFolders.sort()).toEqual([`${DB}/mysql`, `${DB}/postgres`, `${DB}/sqlite`]);
    for (const folder of engineFolders) expect(sources).toContain(`${folder}/index.ts`);
  });

  it('branches on an engine nowhere outside the engine folders', () => {
    const branches = sources
      .filter((f) => !inEngineFolder(f))
      .flatMap((f) => text(f).split('\n').flatMap((line, i) => (ENGINE_BRANCH.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])));
    expect(branches).toEqual([]);
  });

  it('the scan finds a branch when there is one (the engine folders have their own)', () => {
    expect(ENGINE_BRANCH.test("if (grant.engine === 'sqlite') {")).toBe(true);
    expect(ENGINE_BRANCH.test("const x = 'postgres' !== kind;")).toBe(true);
    expect(ENGINE_BRANCH.test('const engine = this.engines.get(grant.engine);')).toBe(false);
    const inside = sources.filter(inEngineFolder).filter((f) => text(f).split('\n').some((l) => ENGINE_BRANCH.test(l)));
    expect(inside.length).toBeGreaterThan(0);
  });

  it('no engine folder imports another, and outside them only the composition root and tests reach an engine', () => {
    const crossing: string[] = [];
    for (const file of sources) {
      for (const m of text(file).matchAll(/\bfrom\s*['"](\.[^'"]+)['"]/g)) {
        const target = toPosix(relative(ROOT, resolve(ROOT, dirname(file), m[1]!)));
        const folder = engineFolders.find((f) => target === f || target.startsWith(`${f}/`));
        if (!folder || file.startsWith(`${folder}/`)) continue;
        if (file === 'main/effects/db/engines.ts' && target === folder) continue;
        crossing.push(`${file} imports ${m[1]}`);
      }
    }
    expect(crossing).toEqual([]);
  });

  it('one line per engine folder makes its engine (effects/db/engines.ts), and the composition root registers them all', () => {
    expect(text('main/services/app-services.ts')).toMatch(/makeDbEngines\(/);
    const registered = text('main/effects/db/engines.ts');
    for (const folder of engineFolders) {
      const cls = /export class (\w+) implements DbEngine\b/.exec(text(`${folder}/index.ts`))?.[1];
      expect(cls, `${folder}/index.ts exports a class implementing DbEngine`).toBeDefined();
      expect(registered).toMatch(new RegExp(`new ${cls}\\(`));
    }
  });

  // Every member of DbEngine with what it is; the Record makes the typecheck fail when the interface grows.
  const MEMBERS: Record<keyof DbEngine, 'string' | 'boolean' | 'object' | 'function'> = {
    id: 'string',
    label: 'string',
    dialect: 'object',
    passwords: 'boolean',
    readsOwnRows: 'boolean',
    checkGrant: 'function',
    run: 'function',
    apply: 'function',
    keep: 'function',
    readSchema: 'function',
    openHeld: 'function',
    readLazyRows: 'function',
    parseLocation: 'function',
  };

  it('each registered engine implements the interface, and every engine id has one', () => {
    const engines = dbEngines();
    expect(engines.all().map((e) => e.id).sort()).toEqual([...DatabaseEngine.options].sort());
    for (const id of DatabaseEngine.options) {
      const engine = engines.get(id);
      expect(engine.id).toBe(id);
      expect(engine.label).toBe(engineLabel(id));
      for (const [member, kind] of Object.entries(MEMBERS)) expect(typeof (engine as unknown as Record<string, unknown>)[member], `${id}.${member}`).toBe(kind);
      for (const fn of ['quote', 'matchAll', 'oneRow'] as const) expect(typeof engine.dialect[fn]).toBe('function');
    }
  });

  it('an engine reads only its own lazy rows, so the undo log asks each in turn', () => {
    const engines = dbEngines();
    const table = { label: 't', lazy: { count: 0 } } as unknown as TableLog;
    const never = () => {
      throw new Error('opened an image that is not this engine’s');
    };
    expect(engines.get('sqlite').readLazyRows(table, { engine: 'postgres', rel: 't', keyIdx: [], writeIdx: [] }, never)).toBeNull();
    expect(engines.get('postgres').readLazyRows(table, { engine: 'sqlite', file: 'x', log: 'l', rowid: true, columns: 1 }, never)).toBeNull();
    expect(engines.get('postgres').readLazyRows(table, { engine: 'sqlite-pages', before: 'a', after: 'b', root: 2 }, never)).toBeNull();
    expect(() => engines.get('nosuch' as DatabaseEngine)).toThrow(/No database engine "nosuch"/);
  });

  it('the card and the prompt name an engine from one table', () => {
    expect(Object.fromEntries(Object.entries(DATABASE_ENGINES).map(([id, d]) => [id, d.label]))).toEqual({ sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL/MariaDB' });
    expect(text('renderer/src/components/db-changes.tsx')).toMatch(/engineLabel\(effect\.engine\)/);
  });
});

describe('what a grant\'s location names (shared/domain/database-engines.ts, read by main, the form and the CLI)', () => {
  it('knows each engine\'s URL forms, and takes a plain path for a file', () => {
    expect(engineOfUrl('postgres://me@localhost/crm')).toEqual({ kind: 'engine', engine: 'postgres' });
    expect(engineOfUrl('PostgreSQL://me@db/crm')).toEqual({ kind: 'engine', engine: 'postgres' });
    expect(engineOfUrl('sqlite:./shop.db')).toEqual({ kind: 'engine', engine: 'sqlite' });
    expect(engineOfUrl('sqlite:///abs/shop.db')).toEqual({ kind: 'engine', engine: 'sqlite' });
    expect(engineOfUrl('/home/ada/shop.db')).toEqual({ kind: 'path' });
    expect(engineOfUrl('C:\\Users\\ada\\shop.db')).toEqual({ kind: 'path' });
    expect(engineOfUrl('shop.sqlite')).toEqual({ kind: 'path' });
    expect(engineOfUrl('data:2024.db')).toEqual({ kind: 'path' });
  });

  it('names a database it cannot undo instead of taking its URL for a file', () => {
    expect(engineOfUrl('mysql://me@localhost/shop')).toEqual({ kind: 'engine', engine: 'mysql' });
    expect(engineOfUrl('MariaDB://me@localhost/shop')).toEqual({ kind: 'engine', engine: 'mysql' });
    expect(engineOfUrl('mongodb+srv://cluster/x')).toEqual({ kind: 'unsupported', scheme: 'mongodb+srv', label: 'MongoDB' });
    expect(unsupportedEngineMessage('redis://me@localhost/0')).toBe(
      'Redis is not supported yet: Posthoc undoes SQLite, PostgreSQL and MySQL/MariaDB databases. Grant one of those (sqlite:./shop.db or postgres://me@localhost/crm or mysql://me@localhost/shop).',
    );
    expect(unsupportedEngineMessage('ftp://x/y')).toMatch(/^"ftp:" is not a database Posthoc knows/);
    expect(unsupportedEngineMessage('postgres://me@localhost/crm')).toBeNull();
    expect(unsupportedEngineMessage('/home/ada/shop.db')).toBeNull();
  });
});
