// `posthoc sandbox build | status`: Docker and the image, before any data folder exists. Loaded by
// main/cli/index.ts only when a sandbox command runs (dockerode is not loaded for the others).
import { createDocker } from '../sandbox/docker-client';
import { formatBuildProgress, type BuildProgress } from '../sandbox/build-progress';
import { buildSandboxImage, sandboxStatus } from '../sandbox/sandbox-image';
import { EXIT } from './session';

export async function buildImage(image: string): Promise<void> {
  await buildSandboxImage(createDocker(), printBuildProgress(), image);
}

export async function printSandboxStatus(image: string, opts: { json?: boolean }, out: (line: string) => void): Promise<void> {
  const status = await sandboxStatus(createDocker(), image);
  if (opts.json) out(JSON.stringify(status));
  else {
    out(`docker: ${status.dockerAvailable ? `running (${status.dockerVersion})` : 'not reachable'}`);
    out(`image:  ${status.image} ${status.imagePresent ? 'present' : 'missing'}`);
    if (status.message) out(status.message);
  }
  if (!status.dockerAvailable || !status.imagePresent) process.exitCode = EXIT.usage;
}

/**
 * Prints an image build's progress on stderr: each phase once and then at most every few seconds; on a terminal
 * one line kept up to date in place.
 */
function printBuildProgress(): (progress: BuildProgress) => void {
  const tty = process.stderr.isTTY === true;
  let lastPhase = '';
  let lastAt = -Infinity;
  return (progress) => {
    const changed = progress.phase !== lastPhase;
    const final = progress.phase === 'done' || progress.phase === 'failed';
    if (!changed && !final && progress.elapsedMs - lastAt < (tty ? 100 : 5000)) return;
    // The reason of a failure is printed once, as the command's error.
    const text = formatBuildProgress(progress.phase === 'failed' ? { ...progress, line: undefined } : progress);
    if (tty) {
      const width = Math.max(20, (process.stderr.columns ?? 100) - 1);
      process.stderr.write(`\r\x1b[K${final || changed ? text : text.slice(0, width)}${final || changed ? '\n' : ''}`);
    } else process.stderr.write(`${text}\n`);
    lastPhase = progress.phase;
    lastAt = progress.elapsedMs;
  };
}
