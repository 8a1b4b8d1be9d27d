// `posthoc engines add | list | check | remove | send-image`: the Docker engines a task may run on (issue 30).
// Like `sandbox`, these talk to Docker directly (the engine's answer and the image's stream are not contract
// calls); the engines are kept in the data folder's settings table, a tcp engine's client key in the keychain.
// Loaded by main/cli/index.ts only when an engines command runs.
import { readFileSync } from 'node:fs';
import { EnginesService, type EngineView } from '../services/engines-service';
import { ServiceError } from '../services/service-error';
import { createDocker } from '../sandbox/docker-client';
import type { EngineCheck } from '../sandbox/engines/engine-check';
import { sendImage } from '../sandbox/engines/image-transfer';
import { openDatabase } from '../store/database';
import { resolveDataDir } from '../store/data-dir';
import { TaskStore } from '../store/task-store';
import { Vault } from '../vault/vault';
import { CliFailure, EXIT } from './session';

type Out = (line: string) => void;

async function withEngines<T>(dataDir: string | undefined, fn: (engines: EnginesService) => Promise<T>): Promise<T> {
  const db = openDatabase(resolveDataDir(dataDir));
  try {
    return await fn(new EnginesService(new TaskStore(db), new Vault()));
  } catch (error) {
    if (error instanceof ServiceError) throw new CliFailure(error.code, error.message);
    throw error;
  } finally {
    db.close();
  }
}

function readPem(path: string | undefined, option: string): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliFailure('invalid-input', `${option} ${path} cannot be read: ${(error as Error).message}`);
  }
}

function printList(list: EngineView[], json: boolean | undefined, out: Out): void {
  if (json) return out(JSON.stringify(list));
  for (const e of list) out(`${e.name}\t${e.kind}\t${e.address}${e.kind === 'tcp' ? (e.keySet ? '' : '\t(client key missing from the keychain)') : ''}`);
}

export function printCheck(check: EngineCheck & { name: string }, json: boolean | undefined, out: Out): void {
  if (json) out(JSON.stringify(check));
  else {
    out(`engine:       ${check.name}`);
    out(`docker:       ${check.reachable ? `${check.version} (${check.os}/${check.architecture})` : 'not reachable'}`);
    if (check.roundTripMs !== null) out(`round trip:   ${check.roundTripMs} ms`);
    out(`image:        ${check.image} ${check.imagePresent ? `present (${check.imageId})` : 'missing'}`);
    if (check.problem) out(check.problem);
  }
  if (check.problem) process.exitCode = EXIT.usage;
}

export async function addEngine(
  name: string,
  url: string | undefined,
  opts: { dataDir?: string; json?: boolean; context?: string; tlsCa?: string; tlsCert?: string; tlsKey?: string },
  out: Out,
): Promise<void> {
  const tls = { ca: readPem(opts.tlsCa, '--tls-ca'), cert: readPem(opts.tlsCert, '--tls-cert'), key: readPem(opts.tlsKey, '--tls-key') };
  const any = tls.ca !== undefined || tls.cert !== undefined || tls.key !== undefined;
  await withEngines(opts.dataDir, async (engines) => printList(await engines.add({ name, url, context: opts.context, tls: any ? tls : undefined }), opts.json, out));
}

export async function listEngines(opts: { dataDir?: string; json?: boolean }, out: Out): Promise<void> {
  await withEngines(opts.dataDir, async (engines) => printList(await engines.list(), opts.json, out));
}

export async function removeEngine(name: string, opts: { dataDir?: string; json?: boolean }, out: Out): Promise<void> {
  await withEngines(opts.dataDir, async (engines) => printList(await engines.remove(name), opts.json, out));
}

export async function checkEngineCommand(name: string, image: string, opts: { dataDir?: string; json?: boolean }, out: Out): Promise<void> {
  await withEngines(opts.dataDir, async (engines) => printCheck(await engines.check(name, image), opts.json, out));
}

export async function sendImageCommand(name: string, image: string, opts: { dataDir?: string; json?: boolean }, out: Out): Promise<void> {
  await withEngines(opts.dataDir, async (engines) => {
    const before = await engines.check(name, image);
    if (!before.reachable) throw new CliFailure('unavailable', before.problem ?? `Engine ${name} does not answer.`);
    const localId = (await createDocker().getImage(image).inspect().catch(() => null))?.Id;
    if (before.imagePresent && before.imageId === localId) {
      if (opts.json) out(JSON.stringify({ name, image, imageId: before.imageId, sent: false }));
      else out(`${name} has ${image} already (${before.imageId}).`);
      return;
    }
    const sent = await sendImage(createDocker(), await engines.connect(name), image, (p) => {
      if (!p.done) process.stderr.write(`sent ${Math.round(p.bytes / 1024 / 1024)} MiB${p.totalBytes ? ` of about ${Math.round(p.totalBytes / 1024 / 1024)} MiB` : ''}\n`);
    });
    if (opts.json) out(JSON.stringify({ name, image, imageId: sent.imageId, sent: true, bytes: sent.bytes }));
    else out(`${name} has ${image} now (${sent.imageId}, ${Math.round(sent.bytes / 1024 / 1024)} MiB sent).`);
  });
}
