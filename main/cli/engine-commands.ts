// `posthoc engines add | list | check | remove | send-image`: the Docker engines a task may run on (issue 30),
// through the contract's engine:* calls like every command. The TLS files are read here; the client key goes
// to the keychain by engine:add, never into the data folder. Loaded by main/cli/index.ts when an engines command runs.
import { readFileSync } from 'node:fs';
import type { PosthocApi } from '../../shared/contract';
import type { EngineCheck, EngineView } from '../../shared/domain/engines';
import { CliFailure, EXIT, value } from './session';

type Out = (line: string) => void;

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
  for (const e of list) out(`${e.name}\t${e.kind}\t${e.address}${e.kind === 'tcp' && !e.keySet ? '\t(client key missing from the keychain)' : ''}`);
}

function printCheck(check: EngineCheck, json: boolean | undefined, out: Out): void {
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

export async function addEngine(api: PosthocApi, name: string, url: string | undefined, opts: { json?: boolean; context?: string; tlsCa?: string; tlsCert?: string; tlsKey?: string }, out: Out): Promise<void> {
  const tls = { ca: readPem(opts.tlsCa, '--tls-ca'), cert: readPem(opts.tlsCert, '--tls-cert'), key: readPem(opts.tlsKey, '--tls-key') };
  const any = tls.ca !== undefined || tls.cert !== undefined || tls.key !== undefined;
  printList(await value(api.engineAdd({ name, url, context: opts.context, tls: any ? tls : undefined })), opts.json, out);
}

export async function listEngines(api: PosthocApi, opts: { json?: boolean }, out: Out): Promise<void> {
  printList(await value(api.engineList({})), opts.json, out);
}

export async function removeEngine(api: PosthocApi, name: string, opts: { json?: boolean }, out: Out): Promise<void> {
  printList(await value(api.engineRemove({ name })), opts.json, out);
}

export async function checkEngineCommand(api: PosthocApi, name: string, opts: { json?: boolean }, out: Out): Promise<void> {
  printCheck(await value(api.engineCheck({ name })), opts.json, out);
}

export async function sendImageCommand(api: PosthocApi, name: string, opts: { json?: boolean }, out: Out): Promise<void> {
  process.stderr.write(`Sending the sandbox image to ${name} (unless it has it already); this takes a while…\n`);
  const sent = await value(api.engineSend({ name }));
  if (opts.json) out(JSON.stringify(sent));
  else if (!sent.sent) out(`${name} has ${sent.image} already (${sent.imageId}).`);
  else out(`${name} has ${sent.image} now (${sent.imageId}, ${Math.round(sent.bytes / 1024 / 1024)} MiB sent).`);
}
