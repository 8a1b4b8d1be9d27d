// A Docker context (docker context create NAME --docker host=…,ca=…,cert=…,key=…) read as the Docker CLI
// reads it: its endpoint in DOCKER_CONFIG (default ~/.docker)/contexts/meta/SHA256(NAME)/meta.json, its TLS
// files beside it in contexts/tls/SHA256(NAME)/docker/. Read when the engine is used, so a context the person
// changes with the Docker CLI is followed; its key stays where the Docker CLI keeps it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { DockerOptions } from 'dockerode';
import { EngineSpecError } from './engine-spec';

export function contextDockerOptions(context: string, env: NodeJS.ProcessEnv = process.env): DockerOptions {
  const config = env.DOCKER_CONFIG ?? join(env.HOME ?? homedir(), '.docker');
  const id = createHash('sha256').update(context).digest('hex');
  const metaPath = join(config, 'contexts', 'meta', id, 'meta.json');
  if (!existsSync(metaPath)) throw new EngineSpecError(`There is no Docker context "${context}" in ${config} (see "docker context ls").`);
  let meta: { Endpoints?: { docker?: { Host?: string; SkipTLSVerify?: boolean } } };
  try {
    meta = JSON.parse(readFileSync(metaPath, 'utf8')) as typeof meta;
  } catch (error) {
    throw new EngineSpecError(`The Docker context "${context}" cannot be read (${metaPath}: ${(error as Error).message}).`);
  }
  const endpoint = meta.Endpoints?.docker;
  if (!endpoint?.Host) throw new EngineSpecError(`The Docker context "${context}" has no Docker endpoint.`);
  const url = new URL(endpoint.Host);
  if (url.protocol === 'unix:') return { socketPath: url.pathname };
  if (url.protocol === 'ssh:') {
    return { protocol: 'ssh', host: url.hostname, port: url.port ? Number(url.port) : 22, username: decodeURIComponent(url.username), sshOptions: env.SSH_AUTH_SOCK ? { agent: env.SSH_AUTH_SOCK } : {} };
  }
  if (url.protocol !== 'tcp:') throw new EngineSpecError(`The Docker context "${context}" points at ${endpoint.Host}, which Posthoc does not connect to (tcp://, ssh:// or unix://).`);
  const tlsDir = join(config, 'contexts', 'tls', id, 'docker');
  const file = (name: string) => (existsSync(join(tlsDir, name)) ? readFileSync(join(tlsDir, name), 'utf8') : undefined);
  const ca = file('ca.pem');
  const cert = file('cert.pem');
  const key = file('key.pem');
  if (!cert || !key || endpoint.SkipTLSVerify) {
    throw new EngineSpecError(
      `The Docker context "${context}" reaches ${endpoint.Host} without verified TLS and a client certificate; anyone who reaches that port controls the machine. Give the context ca, cert and key (docker context update ${context} --docker "host=…,ca=…,cert=…,key=…").`,
    );
  }
  return { protocol: 'https', host: url.hostname, port: Number(url.port || 2376), ca, cert, key };
}
