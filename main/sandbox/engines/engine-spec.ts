// A Docker engine a task may run on (issue 30): the local one (the default, dockerode's own DOCKER_HOST or the
// unix socket), or a remote one the person added by name. Pure: what a name and an address may be, and the
// dockerode options an engine connects with, from its saved form and its TLS key (which lives in the keychain,
// never in the settings table; main/services/engines-service.ts keeps both).
import type { DockerOptions } from 'dockerode';

/** The engine a task runs on when it names none. */
export const LOCAL_ENGINE = 'local';

export type TcpEngine = {
  name: string;
  kind: 'tcp';
  host: string;
  port: number;
  /** PEM text of the CA that signed the daemon's certificate, and of the client's certificate (not secrets). */
  ca: string;
  cert: string;
};
export type SshEngine = { name: string; kind: 'ssh'; host: string; port: number; username: string };
/** An existing Docker context (docker context create …), read from the Docker CLI's configuration when used. */
export type ContextEngine = { name: string; kind: 'context'; context: string };
export type SavedEngine = TcpEngine | SshEngine | ContextEngine;

export class EngineSpecError extends Error {}

const ENGINE_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

export function checkEngineName(name: string): string {
  if (name === LOCAL_ENGINE) throw new EngineSpecError(`"${LOCAL_ENGINE}" is this machine's Docker; give the remote engine another name.`);
  if (!ENGINE_NAME.test(name)) throw new EngineSpecError(`"${name}" is not an engine name: use lower-case letters, digits and "-" (at most 40), for example gpu-box.`);
  return name;
}

/** The vault entry of a tcp engine's client key. */
export const engineKeySecret = (name: string) => `engine-tls-key:${name}`;

const PEM = (label: string) => new RegExp(`-----BEGIN ${label}-----[\\s\\S]+-----END ${label}-----`);

/**
 * An engine from what the person typed: `tcp://HOST:PORT` with TLS material (a tcp engine without TLS would
 * hand the machine to anyone on its network: refused), `ssh://USER@HOST[:PORT]`, or the name of a Docker
 * context. Checks everything it can without the network.
 */
export function parseEngine(input: {
  name: string;
  url?: string;
  context?: string;
  tls?: { ca?: string; cert?: string; key?: string };
}): { engine: SavedEngine; key: string | null } {
  const name = checkEngineName(input.name);
  if (input.context !== undefined) {
    if (input.url !== undefined) throw new EngineSpecError('Give either an address (tcp://… or ssh://…) or --context NAME, not both.');
    if (!/^[A-Za-z0-9][A-Za-z0-9_.+-]*$/.test(input.context)) throw new EngineSpecError(`"${input.context}" is not a Docker context name (see "docker context ls").`);
    if (input.context === 'default') throw new EngineSpecError('The "default" Docker context is this machine\'s Docker, which tasks use already.');
    return { engine: { name, kind: 'context', context: input.context }, key: null };
  }
  if (input.url === undefined) throw new EngineSpecError('Give the engine\'s address: tcp://HOST:PORT (with --tls-ca, --tls-cert, --tls-key), ssh://USER@HOST, or --context NAME.');
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new EngineSpecError(`"${input.url}" is not an address: write tcp://HOST:PORT or ssh://USER@HOST[:PORT].`);
  }
  if (url.protocol !== 'tcp:' && url.protocol !== 'ssh:') {
    throw new EngineSpecError(`"${url.protocol}//" is not an engine address Posthoc connects to: use tcp://HOST:PORT with TLS, ssh://USER@HOST, or --context NAME.`);
  }
  if (url.pathname !== '' && url.pathname !== '/') throw new EngineSpecError(`"${input.url}" has a path; an engine's address is tcp://HOST:PORT or ssh://USER@HOST[:PORT].`);
  if (url.protocol === 'tcp:') {
    const port = Number(url.port);
    if (!url.hostname || !url.port || !Number.isInteger(port) || port < 1) throw new EngineSpecError(`"${input.url}" needs a host and a port, for example tcp://gpu-box:2376.`);
    const tls = input.tls ?? {};
    if (!tls.ca || !tls.cert || !tls.key) {
      throw new EngineSpecError(
        'A tcp:// engine needs TLS with a client certificate (--tls-ca, --tls-cert, --tls-key: the files "dockerd --tlsverify" was set up with); without them anyone who reaches the port controls the machine. Or use ssh://.',
      );
    }
    if (!PEM('CERTIFICATE').test(tls.ca)) throw new EngineSpecError('The CA file (--tls-ca) holds no PEM certificate.');
    if (!PEM('CERTIFICATE').test(tls.cert)) throw new EngineSpecError('The client certificate file (--tls-cert) holds no PEM certificate.');
    if (!PEM('(RSA |EC )?PRIVATE KEY').test(tls.key)) throw new EngineSpecError('The client key file (--tls-key) holds no PEM private key.');
    return { engine: { name, kind: 'tcp', host: url.hostname, port, ca: tls.ca, cert: tls.cert }, key: tls.key };
  }
  // ssh://
  if (input.tls && (input.tls.ca || input.tls.cert || input.tls.key)) throw new EngineSpecError('TLS files are for tcp:// engines; an ssh:// engine logs in with your SSH agent.');
  if (!url.hostname || !url.username) throw new EngineSpecError(`"${input.url}" needs a user and a host, for example ssh://me@gpu-box.`);
  return { engine: { name, kind: 'ssh', host: url.hostname, port: url.port ? Number(url.port) : 22, username: decodeURIComponent(url.username) }, key: null };
}

/** How an engine is shown (never its key). */
export function engineAddress(engine: SavedEngine): string {
  if (engine.kind === 'tcp') return `tcp://${engine.host}:${engine.port}`;
  if (engine.kind === 'ssh') return `ssh://${engine.username}@${engine.host}:${engine.port}`;
  return `context ${engine.context}`;
}

/** dockerode's options for a tcp or ssh engine (a context is resolved first: docker-context.ts). */
export function dockerOptions(engine: TcpEngine | SshEngine, key: string | null, env: NodeJS.ProcessEnv = process.env): DockerOptions {
  if (engine.kind === 'tcp') {
    if (!key) throw new EngineSpecError(`The client key of engine ${engine.name} is not in the keychain; add the engine again with --tls-key.`);
    return { protocol: 'https', host: engine.host, port: engine.port, ca: engine.ca, cert: engine.cert, key };
  }
  // ssh2 through docker-modem: the person's SSH agent logs in, as `docker -H ssh://…` does.
  return { protocol: 'ssh', host: engine.host, port: engine.port, username: engine.username, sshOptions: env.SSH_AUTH_SOCK ? { agent: env.SSH_AUTH_SOCK } : {} };
}
