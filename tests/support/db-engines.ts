// The database engines as the composition root registers them (main/effects/db/engines.ts), for tests that build a DbChannel themselves.
import type { DbEngines } from '../../main/effects/db/engine';
import { makeDbEngines } from '../../main/effects/db/engines';
import type { Secrets } from '../../main/effects/db/postgres/pg-client';

export function dbEngines(secrets: Secrets = async () => null): DbEngines {
  return makeDbEngines({ secrets });
}
