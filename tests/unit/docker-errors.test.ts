// Each way Docker can fail becomes one typed error that says what to do.
import { describe, expect, it } from 'vitest';
import { dockerSocketPath, explainDockerError, SandboxError } from '../../main/sandbox/docker-client';

const err = (props: Record<string, unknown>, message = 'boom') => Object.assign(new Error(message), props);

describe('explainDockerError', () => {
  it('daemon down: says Docker is not running and how to start it', () => {
    for (const code of ['ENOENT', 'ECONNREFUSED']) {
      const e = explainDockerError(err({ code }));
      expect(e).toBeInstanceOf(SandboxError);
      expect(e.code).toBe('docker-unreachable');
      expect(e.message).toMatch(/Docker is not running.*Start Docker.*never runs actions outside the sandbox/);
    }
  });

  it('permission denied on the socket: says how to get access', () => {
    const e = explainDockerError(err({ code: 'EACCES' }));
    expect(e.code).toBe('docker-permission');
    expect(e.message).toMatch(/usermod -aG docker/);
  });

  it('image missing: says to build it', () => {
    const e = explainDockerError(err({ statusCode: 404, json: { message: 'No such image: posthoc-sandbox:9' } }), 'posthoc-sandbox:9');
    expect(e.code).toBe('image-missing');
    expect(e.message).toContain('npx posthoc sandbox build');
  });

  it('out of disk: says how to free space', () => {
    const e = explainDockerError(err({ statusCode: 500, json: { message: 'write /var/lib/docker/x: no space left on device' } }));
    expect(e.code).toBe('disk-full');
    expect(e.message).toMatch(/docker system prune/);
  });

  it('anything else keeps Docker\'s own words', () => {
    const e = explainDockerError(err({ statusCode: 500, json: { message: 'something odd' } }));
    expect(e.code).toBe('docker-failed');
    expect(e.message).toBe('Docker failed: something odd');
  });

  it('finds the daemon socket from DOCKER_HOST', () => {
    expect(dockerSocketPath({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' })).toBe('/run/user/1000/docker.sock');
    expect(dockerSocketPath({})).toBe('/var/run/docker.sock');
  });
});
