// Database grants of a task: checked when the task starts (the file exists and is not Posthoc's own data,
// the server answers, the password goes to the vault and nowhere else), described in the prompt (schemas,
// never rows unless allowed), and offered to the sandbox through the gateway's /db route while the task runs.
import type { DatabaseGrantInput } from '../../shared/contract';
import type { DatabaseGrant, Task } from '../../shared/domain';
import type { PromptDatabases } from '../agent/system-prompt';
import type { DbChannel } from '../effects/db/db-channel';
import type { DbGatewayRoute } from '../effects/db/db-gateway-route';
import { buildGrant, GrantError, parseDatabaseUrl } from '../effects/db/db-grant';
import type { DbEngines } from '../effects/db/engine';
import type { Vault } from '../vault/vault';
import { ServiceError } from './service-error';

export class DatabaseGrants {
  constructor(
    private readonly db: DbChannel,
    private readonly vault: Vault,
    private readonly engines: DbEngines,
    /** The gateway's /db route, where attach() registers a running task's databases. */
    readonly gatewayRoute: DbGatewayRoute,
  ) {}

  /** Turns what the person asked for into grants, or refuses with what to fix. Passwords go to the vault. */
  async grant(requests: DatabaseGrantInput[], protectedPaths: string[]): Promise<DatabaseGrant[]> {
    const grants: DatabaseGrant[] = [];
    for (const request of requests) {
      if (grants.some((g) => g.name === request.name)) throw new ServiceError('invalid-input', `Two databases are named "${request.name}"; give each its own name.`);
      try {
        const parsed = parseDatabaseUrl(request.url, this.engines);
        const engine = this.engines.get(parsed.engine);
        const password = request.password ?? parsed.password;
        if (!engine.passwords && password) throw new GrantError(`A ${engine.label} file has no password; leave it out for "${request.name}".`);
        const grant = buildGrant(request, parsed, password !== null && password !== '');
        if (grant.passwordSecret && password) await this.vault.set(grant.passwordSecret, password);
        await engine.checkGrant(grant, protectedPaths);
        grants.push(grant);
      } catch (error) {
        if (error instanceof GrantError) throw new ServiceError('invalid-input', error.message);
        throw error;
      }
    }
    return grants;
  }

  /** The prompt's database section, or undefined when the task has no database. */
  async prompt(task: Task): Promise<PromptDatabases | undefined> {
    const grants = task.databases ?? [];
    if (grants.length === 0) return undefined;
    return { names: grants.map((g) => g.name), schema: await this.db.describe(grants) };
  }

  /** While the task runs, code in its sandbox reaches its databases through the gateway. Returns the detach. */
  attach(task: Task, timeoutMs: number): () => void {
    return this.gatewayRoute.register(task.id, { channel: this.db, grants: task.databases ?? [], timeoutMs });
  }
}
