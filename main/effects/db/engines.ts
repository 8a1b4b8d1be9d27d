// The database engines, one line each: how the composition root makes the engine of each folder. The record
// is keyed by the engine ids of shared/domain/database-engines.ts, so an engine described there and not made
// here (or the other way round) does not compile. A new engine: its folder (index.ts, a DbEngine, which also
// reads its grant's location), its description there, and its line here.
import type { DatabaseEngine } from '../../../shared/domain';
import { DbEngines, type DbEngine } from './engine';
import { MysqlEngine } from './mysql';
import { PostgresEngine } from './postgres';
import { SqliteEngine } from './sqlite';

/** What an engine may need from the main process: the vault's passwords, read only there. */
export type EngineDeps = { secrets: (name: string) => Promise<string | null> };

export const ENGINE_MAKERS: { readonly [K in DatabaseEngine]: (deps: EngineDeps) => DbEngine & { id: K } } = {
  sqlite: () => new SqliteEngine(),
  postgres: (deps) => new PostgresEngine(deps.secrets),
  mysql: (deps) => new MysqlEngine(deps.secrets),
};

/** Every engine, registered. */
export function makeDbEngines(deps: EngineDeps): DbEngines {
  return new DbEngines(Object.values(ENGINE_MAKERS).map((make) => make(deps)));
}
