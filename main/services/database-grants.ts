// Database grants of a task: checked when the task starts (the file exists and is not Posthoc's own data,
// the server answers, the password goes to the vault and nowhere else), described in the prompt (schemas,
// never rows unless allowed), and offered to the sandbox through the gateway's /db route while the task runs.
import { realpath, stat } from 'node:fs/promises';
import type { DatabaseGrantInput } from '../../shared/contract';
import type { DatabaseGrant, Task } from '../../shared/domain';
import type { PromptDatabases } from '../agent/system-prompt';
import type { DbChannel } from '../effects/db/db-channel';
import { buildGrant, GrantError, parseDatabaseUrl, redact } from '../effects/db/db-grant';
import { registerTaskDatabases } from '../effects/db/db-gateway-route';
import { connectPg } from '../effects/db/pg-client';
import { isPathInside } from '../effects/fs/path-guard';
import type { Vault } from '../vault/vault';
import { ServiceError } from './service-error';

export class DatabaseGrants {
  constructor(
    private readonly db: DbChannel,
    private readonly vault: Vault,
  ) {}

  /** Turns what the person asked for into grants, or refuses with what to fix. Passwords go to the vault. */
  async grant(requests: DatabaseGrantInput[], protectedPaths: string[]): Promise<DatabaseGrant[]> {
    const grants: DatabaseGrant[] = [];
    for (const request of requests) {
      if (grants.some((g) => g.name === request.name)) throw new ServiceError('invalid-input', `Two databases are named "${request.name}"; give each its own name.`);
      let grant: DatabaseGrant;
      let password: string | null;
      try {
        const parsed = parseDatabaseUrl(request.url);
        password = request.password ?? parsed.password;
        if (parsed.engine === 'sqlite' && password) throw new GrantError(`A SQLite file has no password; leave it out for "${request.name}".`);
        grant = buildGrant(request, parsed, password !== null && password !== '');
      } catch (error) {
        if (error instanceof GrantError) throw new ServiceError('invalid-input', error.message);
        throw error;
      }
      if (grant.engine === 'sqlite') await this.checkFile(grant, protectedPaths);
      if (grant.passwordSecret && password) await this.vault.set(grant.passwordSecret, password);
      if (grant.engine === 'postgres') await this.checkServer(grant);
      grants.push(grant);
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
    return registerTaskDatabases(task.id, { channel: this.db, grants: task.databases ?? [], timeoutMs });
  }

  private async checkFile(grant: DatabaseGrant, protectedPaths: string[]): Promise<void> {
    const st = await stat(grant.location).catch(() => undefined);
    if (!st) throw new ServiceError('invalid-input', `The SQLite file ${grant.location} does not exist. Grant an existing database file.`);
    if (!st.isFile()) throw new ServiceError('invalid-input', `${grant.location} is not a file; grant a SQLite database file.`);
    const real = await realpath(grant.location);
    for (const guarded of await Promise.all(protectedPaths.map((g) => realpath(g).catch(() => g)))) {
      if (isPathInside(guarded, real)) {
        throw new ServiceError('invalid-input', `${grant.location} is part of Posthoc's own data (${guarded}); the agent must never reach it. Grant a copy instead.`);
      }
    }
    grant.location = real;
  }

  private async checkServer(grant: DatabaseGrant): Promise<void> {
    try {
      const client = await connectPg({ ...grant, readOnly: true }, (name) => this.vault.get(name));
      await client.end().catch(() => undefined);
    } catch (error) {
      throw new ServiceError('invalid-input', `${error instanceof Error ? error.message : String(error)} (${redact(grant.location)})`);
    }
  }
}
