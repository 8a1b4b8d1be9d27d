// What `posthoc engines check` reports of an engine: it answers (over its TLS or SSH channel), its Docker version,
// operating system and architecture, the round-trip time of a ping, and whether the sandbox image is there, the
// same image as this machine's (its id). An engine of another architecture cannot run this machine's image.
import { arch as hostArch } from 'node:os';
import type Docker from 'dockerode';

export type EngineCheck = {
  reachable: boolean;
  version: string | null;
  os: string | null;
  architecture: string | null;
  /** The median of a few pings, in milliseconds. */
  roundTripMs: number | null;
  image: string;
  imagePresent: boolean;
  /** The image's id there (sha256:…), to compare with the local one. */
  imageId: string | null;
  /** What to do, when something is wrong; null when the engine can run tasks. */
  problem: string | null;
};

/** Docker's names of this machine's architecture (Node's os.arch() differs for x64). */
export function dockerArch(nodeArch = hostArch()): string {
  return nodeArch === 'x64' ? 'x86_64' : nodeArch === 'arm64' ? 'aarch64' : nodeArch;
}

export function describeEngineError(error: unknown): string {
  const e = error as { code?: string; message?: string; json?: { message?: string } };
  const detail = e.json?.message ?? e.message ?? String(error);
  if (e.code === 'ECONNREFUSED') return `nothing answers there (${detail}); is dockerd listening on that address?`;
  if (e.code === 'ETIMEDOUT' || e.code === 'EHOSTUNREACH' || e.code === 'ENOTFOUND') return `the machine cannot be reached (${detail}).`;
  if (/certificate|ssl|tls|handshake|alert|self.signed|EPROTO|ECONNRESET/i.test(`${detail} ${e.code ?? ''}`)) {
    return `the TLS handshake failed (${detail}): the CA must be the one that signed the daemon's certificate, and the daemon must trust the CA of the client certificate.`;
  }
  return detail;
}

export async function checkEngine(docker: Docker, image: string): Promise<EngineCheck> {
  const result: EngineCheck = { reachable: false, version: null, os: null, architecture: null, roundTripMs: null, image, imagePresent: false, imageId: null, problem: null };
  try {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      await docker.ping();
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    result.roundTripMs = Math.round(times[1]! * 10) / 10;
    result.reachable = true;
    const version = await docker.version();
    result.version = version.Version;
    result.os = version.Os;
    const info = (await docker.info()) as { Architecture?: string };
    result.architecture = info.Architecture ?? version.Arch;
  } catch (error) {
    result.problem = `The engine does not answer: ${describeEngineError(error)}`;
    return result;
  }
  try {
    const inspected = await docker.getImage(image).inspect();
    result.imagePresent = true;
    result.imageId = inspected.Id;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) {
      result.problem = `The engine answers but its images cannot be read: ${describeEngineError(error)}`;
      return result;
    }
  }
  if (result.os !== 'linux') result.problem = `The engine runs ${result.os} containers; the sandbox needs a Linux engine.`;
  else if (result.architecture !== dockerArch()) {
    result.problem = `The engine is ${result.architecture} and this machine ${dockerArch()}: the sandbox image built here does not run there. Build it on that machine instead.`;
  } else if (!result.imagePresent) result.problem = `The sandbox image ${image} is not there yet: send it with "posthoc engines send-image NAME".`;
  return result;
}
