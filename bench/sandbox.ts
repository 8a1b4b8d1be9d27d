// npm run bench:sandbox — the time of a trivial Python action (print(1)) through Posthoc's executor,
// cold (a new task: container start included) and warm (the next action of the same task), against
// `docker run --rm IMAGE python3 -c 'print(1)'` through the docker CLI, measured in the same run.
// Prints medians and ratios; the last line is `warm/docker-run ratio: X`.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createServices } from '../main/services/app-services';
import { SANDBOX_IMAGE } from '../main/sandbox/sandbox-image';
import { FALLBACK_SANDBOX_UID } from '../main/sandbox/container-policy';
import { chownSync } from 'node:fs';

const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const ms = (x: number): string => `${x.toFixed(1)} ms`;

async function main(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), 'posthoc-bench-data-'));
  const ws = mkdtempSync(join(tmpdir(), 'posthoc-bench-ws-'));
  if (process.getuid?.() === 0) chownSync(ws, FALLBACK_SANDBOX_UID, FALLBACK_SANDBOX_UID);
  const services = createServices({ dataDir: data, env: {} });
  const grant = [{ name: 'ws', hostPath: ws, mountPath: '/workspace', readOnly: false }];
  const action = (taskId: string, seq: number) =>
    services.executor.run({ taskId, workspaces: grant, seq, language: 'python', source: 'print(1)', timeoutSeconds: 30 });
  const timed = async (fn: () => Promise<unknown>): Promise<number> => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  try {
    // Warm-up, so image layers and the daemon's caches are hot for every contender.
    await run('docker', ['run', '--rm', '--network', 'none', SANDBOX_IMAGE, 'python3', '-c', 'print(1)']);
    await action('bench-warmup', 1);
    await services.executor.stop('bench-warmup');

    const dockerRun: number[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      dockerRun.push(await timed(() => run('docker', ['run', '--rm', '--network', 'none', SANDBOX_IMAGE, 'python3', '-c', 'print(1)'])));
      const taskId = `bench-cold-${i}`;
      cold.push(await timed(() => action(taskId, 1)));
      for (let j = 0; j < 3; j++) warm.push(await timed(() => action(taskId, j + 2)));
      await services.executor.stop(taskId);
    }
    const d = median(dockerRun);
    const c = median(cold);
    const w = median(warm);
    console.log(`rounds: ${ROUNDS} (warm: ${warm.length} actions)`);
    console.log(`docker run --rm (CLI):      median ${ms(d)}`);
    console.log(`posthoc executor, cold:     median ${ms(c)}`);
    console.log(`posthoc executor, warm:     median ${ms(w)}`);
    console.log(`cold/docker-run ratio: ${(c / d).toFixed(2)}`);
    console.log(`warm/docker-run ratio: ${(w / d).toFixed(2)}`);
  } finally {
    await services.close();
    rmSync(data, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
