// The one door to the Docker daemon. Everything that talks to Docker goes through here, so connection
// failures become one typed error that says what to do, and tests can point it at any daemon.
import Docker from 'dockerode';
import { SandboxError } from './sandbox-error';

export { SandboxError, type SandboxErrorCode } from './sandbox-error';

/** The local engine with no options (dockerode reads DOCKER_HOST and friends itself; the default is the unix socket), or a remote engine's (engines/engine-spec.ts). */
export function createDocker(options?: Docker.DockerOptions): Docker {
  return options ? new Docker(options) : new Docker();
}

/** The daemon's unix socket on this host (a grant must never expose it to the sandbox). */
export function dockerSocketPath(env = process.env): string {
  const host = env.DOCKER_HOST;
  return host?.startsWith('unix://') ? host.slice('unix://'.length) : '/var/run/docker.sock';
}

export function socketDescription(): string {
  return process.env.DOCKER_HOST ?? '/var/run/docker.sock';
}

/** Turns whatever dockerode threw into a SandboxError that tells the person what to do. */
export function explainDockerError(error: unknown, image?: string): SandboxError {
  if (error instanceof SandboxError) return error;
  const e = error as { code?: string; statusCode?: number; message?: string; json?: { message?: string } };
  const detail = e.json?.message ?? e.message ?? String(error);
  if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED') {
    return new SandboxError(
      'docker-unreachable',
      `Docker is not running: nothing answers at ${socketDescription()}. Start Docker (Linux: "sudo systemctl start docker"; macOS/Windows: open Docker Desktop), then try again. Posthoc never runs actions outside the sandbox.`,
      error,
    );
  }
  if (e.code === 'EACCES' || e.code === 'EPERM') {
    return new SandboxError(
      'docker-permission',
      `Permission denied on the Docker socket ${socketDescription()}. Add your user to the "docker" group ("sudo usermod -aG docker $USER", then log in again) or run Docker rootless.`,
      error,
    );
  }
  if (e.statusCode === 404 && /image/i.test(detail)) {
    return new SandboxError(
      'image-missing',
      `The sandbox image ${image ?? ''} is missing. Build it once with "npx posthoc sandbox build".`,
      error,
    );
  }
  if (/no space left on device/i.test(detail)) {
    return new SandboxError(
      'disk-full',
      'Docker is out of disk space. Free some with "docker system prune" (it removes stopped containers and unused images), then try again.',
      error,
    );
  }
  return new SandboxError('docker-failed', `Docker failed: ${detail}`, error);
}
