// A private X display (Xvfb) started and ended by the test: a desktop's keyring shows its unlock prompt
// (gcr-prompter) on it. Xvfb picks a free display number itself (-displayfd); no TCP listener.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export type VirtualDisplay = { name: string; stop(): Promise<void> };

export async function startVirtualDisplay(): Promise<VirtualDisplay> {
  const xvfb = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '800x600x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const number = await new Promise<string>((resolve, reject) => {
    createInterface({ input: xvfb.stdout }).once('line', (line) => resolve(line.trim()));
    xvfb.once('error', (error) => reject(new Error(`Xvfb could not start: ${error.message} (sudo apt-get install xvfb, or sudo bash scripts/setup-test-env.sh apt)`)));
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code}) before it was ready`)));
  });
  return {
    name: `:${number}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (xvfb.exitCode !== null || xvfb.signalCode !== null) return resolve();
        xvfb.once('exit', () => resolve());
        xvfb.kill('SIGTERM');
      }),
  };
}
