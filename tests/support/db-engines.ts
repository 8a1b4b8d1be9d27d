// The database engines as the composition root registers them, for tests that build a DbChannel themselves.
import { DbEngines } from '../../main/effects/db/engine';
import type { Secrets } from '../../main/effects/db/postgres/pg-client';
import { PostgresEngine } from '../../main/effects/db/postgres';
import { SqliteEngine } from '../../main/effects/db/sqlite';

export function dbEngines(secrets: Secrets = async () => null): DbEngines {
  return new DbEngines([new SqliteEngine(), new PostgresEngine(secrets)]);
}
