// npm run bench:first-action — how soon a new task's first action has run (issue 28: "the first action of a
// task within 1.5 s on the full image, warm actions unchanged"), three ways, rounds interleaved:
// - `posthoc run` as a person types it: a fresh process timed from spawn to the line that says its first
//   action is done (process start, the services, the sandbox's start, the model's first reply, the action),
//   then to its exit;
// - the same inside one process: services.tasks.start → the first action finished (what the app pays, its
//   services already up), and the task's second action (warm);
// - the floor: `docker run --rm IMAGE python3 -c 'print(1)'` through the docker CLI, and `docker exec` of the
//   same in a running container (what a warm action compares with).
// The model is a local stand-in that answers at once (bench/terminal-bench-task.ts startScriptedModel): the
// provider's own latency is not Posthoc's. Each action is `print(1)` in a new empty folder.
//
// Usage: npm run bench:first-action [-- --rounds 7]
import { execFile, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createServices } from '../main/services/app-services';
import { FALLBACK_SANDBOX_UID } from '../main/sandbox/container-policy';
import { SANDBOX_IMAGE } from '../main/sandbox/sandbox-image';
import { scriptedEnv, startScriptedModel, type ScriptedModel } from './terminal-bench-task';

const run = promisify(execFile);
const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1] ?? 7) || 7;
const BIN = resolve('bin/posthoc.js');
const PRINT = { content: 'Running.', tool_calls: [{ name: 'run_code', arguments: { language: 'python', code: 'print(1)' } }] };

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const ms = (x: number) => `${x.toFixed(0)} ms`;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

const made: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-bench-first-'));
  if (process.getuid?.() === 0) chownSync(dir, FALLBACK_SANDBOX_UID, FALLBACK_SANDBOX_UID);
  made.push(dir);
  return dir;
}

/** `posthoc run` whole: ms to the first action's "done" line, and to the exit. */
async function cliRound(model: ScriptedModel, dataDir: string): Promise<{ first: number; exit: number }> {
  model.play([PRINT, 'Done.']);
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'run', 'print one', '--workspace', folder()], {
    env: { ...process.env, ...scriptedEnv(model), POSTHOC_HOME: dataDir, OPENAI_API_KEY: 'bench' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let first = 0;
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (!first && /▶ action 1 \(python\) — done, exit 0/.test(out)) first = performance.now() - started;
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  if (code !== 0 || !first) throw new Error(`posthoc run failed (exit ${code}): ${err.slice(-400) || out.slice(-400)}`);
  return { first, exit: performance.now() - started };
}

async function main(): Promise<void> {
  try {
    await run('docker', ['image', 'inspect', SANDBOX_IMAGE]);
  } catch {
    process.stderr.write(`The sandbox image ${SANDBOX_IMAGE} is missing: npm run build && npx posthoc sandbox build\n`);
    process.exit(2);
  }
  const model = await startScriptedModel();
  const cliData = mkdtempSync(join(tmpdir(), 'posthoc-bench-first-data-'));
  const appData = mkdtempSync(join(tmpdir(), 'posthoc-bench-first-app-'));
  const services = createServices({ dataDir: appData, env: scriptedEnv(model) });
  const { stdout: execId } = await run('docker', ['run', '-d', '--rm', '--network', 'none', SANDBOX_IMAGE, 'sleep', 'infinity']);
  const container = execId.trim();
  const rows = { cliFirst: [] as number[], cliExit: [] as number[], appFirst: [] as number[], appWarm: [] as number[], dockerRun: [] as number[], dockerExec: [] as number[] };
  const loads = [`start ${load()}`];
  try {
    await services.ready;
    for (let round = -1; round < ROUNDS; round++) {
      // Round -1 warms Docker's and the file system's caches; it is not counted.
      const keep = round >= 0;
      const cli = await cliRound(model, cliData);

      model.play([PRINT, PRINT, 'Done.']);
      const startedAt = Date.now();
      const { id } = await services.tasks.start({ prompt: 'print one', workspaces: [folder()] }, { maxSteps: 5 });
      await services.tasks.wait(id);
      const [a1, a2] = services.tasks.get(id).actions;
      if (!a1?.finishedAt || !a2?.finishedAt || a1.output.exitCode !== 0) throw new Error('the in-process task did not run its two actions');
      // The first action's end as recorded (wall clock, milliseconds), from the moment the task was started.
      const appFirst = Date.parse(a1.finishedAt) - startedAt;
      const appWarm = Date.parse(a2.finishedAt) - Date.parse(a2.startedAt);
      await services.executor.removeEnv(id);

      let s = performance.now();
      await run('docker', ['run', '--rm', '--network', 'none', SANDBOX_IMAGE, 'python3', '-c', 'print(1)']);
      const dockerRun = performance.now() - s;
      s = performance.now();
      await run('docker', ['exec', container, 'python3', '-c', 'print(1)']);
      const dockerExec = performance.now() - s;
      if (!keep) continue;
      rows.cliFirst.push(cli.first);
      rows.cliExit.push(cli.exit);
      rows.appFirst.push(appFirst);
      rows.appWarm.push(appWarm);
      rows.dockerRun.push(dockerRun);
      rows.dockerExec.push(dockerExec);
    }
    loads.push(`end ${load()}`);
  } finally {
    await services.close();
    await model.llm.close();
    await run('docker', ['rm', '-f', container]).catch(() => undefined);
    for (const d of [cliData, appData, ...made]) rmSync(d, { recursive: true, force: true });
  }
  console.log(`${SANDBOX_IMAGE}, ${ROUNDS} rounds, ${cpus().length} cores, load ${loads.join(', ')}`);
  console.log(`posthoc run, to its first action done:   median ${ms(median(rows.cliFirst))}`);
  console.log(`posthoc run, to its exit:                 median ${ms(median(rows.cliExit))}`);
  console.log(`in the app, task start to first action:  median ${ms(median(rows.appFirst))}`);
  console.log(`in the app, the second (warm) action:     median ${ms(median(rows.appWarm))}`);
  console.log(`docker run --rm (CLI):                    median ${ms(median(rows.dockerRun))}`);
  console.log(`docker exec (CLI), a running container:   median ${ms(median(rows.dockerExec))}`);
  const ratio = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!)).toFixed(2);
  console.log(`first action in the app / docker run: ${ratio(rows.appFirst, rows.dockerRun)}`);
  console.log(`warm action / docker exec: ${ratio(rows.appWarm, rows.dockerExec)}`);
}

await main();
