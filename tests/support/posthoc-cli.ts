// The built CLI (bin/posthoc.js → out/main/cli.js) run as a person runs it: a fresh process each time,
// with a minimal environment plus what the test gives it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, beforeAll } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from './fake-openai-server';
import { tempDirs } from './temp-dir';

export const POSTHOC_BIN = resolve('bin/posthoc.js');

export type CliRun = { code: number | null; stdout: string; stderr: string };

export function assertCliBuilt(): void {
  if (!existsSync(resolve('out/main/cli.js'))) throw new Error('The CLI is not built: run "npm run build" (npm test does it first).');
}

/**
 * Runs the built CLI. `stdin` is written to it (for `secret set`); `asUid` runs it as that user and group
 * (setpriv, the tests being root), as a person of that uid would.
 */
export function runPosthoc(args: string[], env: Record<string, string> = {}, options: { stdin?: string; asUid?: number } = {}): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const command = [process.execPath, POSTHOC_BIN, ...args];
    const [file, ...argv] =
      options.asUid === undefined ? command : ['setpriv', `--reuid=${options.asUid}`, `--regid=${options.asUid}`, '--clear-groups', ...command];
    const child = spawn(file!, argv, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS ?? '', ...env },
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
    if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  });
}

/** `--json` output of `posthoc run`: one JSON object per line. */
export const jsonLines = (text: string): Array<Record<string, any>> => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);

/**
 * What a CLI test file needs, registered once: the built CLI checked, temporary folders and scripted
 * models (the OpenAI-compatible fake), all removed after each test.
 */
export function cliTestbed(): { dirs: ReturnType<typeof tempDirs>; model(replies: string[]): Promise<FakeOpenAi> } {
  const dirs = tempDirs();
  const models: FakeOpenAi[] = [];
  beforeAll(assertCliBuilt);
  afterEach(async () => {
    for (const m of models.splice(0)) await m.close();
    dirs.cleanup();
  });
  return {
    dirs,
    async model(replies) {
      const m = await startFakeOpenAi(replies);
      models.push(m);
      return m;
    },
  };
}
