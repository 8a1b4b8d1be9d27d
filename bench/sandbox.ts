// npm run bench:sandbox — the time of a trivial Python action (print(1)) through Posthoc's executor,
// cold (a new task: container start included) and warm (the next action of the same task), against
// `docker run --rm IMAGE python3 -c 'print(1)'` through the docker CLI, measured in the same run, for each
// image: the full image (posthoc-sandbox:VERSION) and the minimal one (the four packages of Posthoc 0.1,
// posthoc-sandbox:minimal), with each image's size.
// Runs on a fresh machine: an image that is missing, or was built by another version of Posthoc, is built
// first (stderr says why and how long it took); one that cannot be built is left out, saying why, and the
// rest is measured — the full image alone when the minimal one fails (bench/sandbox-plan.ts decides).
// BENCH_BUILD=1 builds both images whatever Docker has (the full one under BENCH_FULL_IMAGE, default
// posthoc-sandbox:VERSION) and prints their build times. BENCH_IMAGES=a,b measures only those images.
// Prints medians and ratios per image; each image's block ends with `warm/docker-run ratio: X`.
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createServices } from '../main/services/app-services';
import type Docker from 'dockerode';
import { createDocker, explainDockerError } from '../main/sandbox/docker-client';
import { formatBuildProgress } from '../main/sandbox/build-progress';
import { buildSandboxImage, MINIMAL_PACKAGES, PACKAGES, RECIPE_LABEL, SANDBOX_IMAGE, sandboxRecipe, type BuildOptions } from '../main/sandbox/sandbox-image';
import { FALLBACK_SANDBOX_UID } from '../main/sandbox/container-policy';
import { buildFirst, planBench, type Found, type KnownImage } from './sandbox-plan';

const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const MINIMAL_IMAGE = 'posthoc-sandbox:minimal';
const FULL_IMAGE = process.env.BENCH_FULL_IMAGE ?? SANDBOX_IMAGE;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const ms = (x: number): string => `${x.toFixed(1)} ms`;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`;

async function build(image: string, options: BuildOptions): Promise<void> {
  const started = performance.now();
  let phase = '';
  await buildSandboxImage(
    createDocker(),
    (p) => {
      if (p.phase !== phase) console.error(formatBuildProgress(p));
      phase = p.phase;
    },
    image,
    options,
  );
  console.log(`build ${image}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

async function imageSize(image: string): Promise<number> {
  return (await createDocker().getImage(image).inspect()).Size;
}

async function measure(image: string): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), 'posthoc-bench-data-'));
  const ws = mkdtempSync(join(tmpdir(), 'posthoc-bench-ws-'));
  if (process.getuid?.() === 0) chownSync(ws, FALLBACK_SANDBOX_UID, FALLBACK_SANDBOX_UID);
  const services = createServices({ dataDir: data, env: {}, image });
  const grant = [{ name: 'ws', hostPath: ws, mountPath: '/workspace', readOnly: false }];
  const action = (taskId: string, seq: number) =>
    services.executor.run({ taskId, workspaces: grant, seq, language: 'python', source: 'print(1)', timeoutSeconds: 30 });
  const timed = async (fn: () => Promise<unknown>): Promise<number> => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const dockerRun = () => run('docker', ['run', '--rm', '--network', 'none', image, 'python3', '-c', 'print(1)']);
  try {
    // Warm-up, so image layers and the daemon's caches are hot for every contender.
    await dockerRun();
    await action('bench-warmup', 1);
    await services.executor.stop('bench-warmup');

    const dockerRuns: number[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      dockerRuns.push(await timed(dockerRun));
      const taskId = `bench-cold-${i}`;
      cold.push(await timed(() => action(taskId, 1)));
      for (let j = 0; j < 3; j++) warm.push(await timed(() => action(taskId, j + 2)));
      await services.executor.stop(taskId);
    }
    const d = median(dockerRuns);
    const c = median(cold);
    const w = median(warm);
    console.log(`\n${image}: ${mb(await imageSize(image))}`);
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

/** What Docker has under `image`: nothing, or an image and its recipe label. */
async function found(docker: Docker, image: string): Promise<Found> {
  try {
    const info = await docker.getImage(image).inspect();
    return { present: true, recipe: info.Config?.Labels?.[RECIPE_LABEL] };
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return { present: false };
    throw explainDockerError(error, image);
  }
}

async function main(): Promise<void> {
  const docker = createDocker();
  try {
    await docker.version();
  } catch (error) {
    throw explainDockerError(error, FULL_IMAGE);
  }
  const known = new Map<string, KnownImage>([
    [FULL_IMAGE, { options: {}, recipe: sandboxRecipe(), what: `the full image, ${PACKAGES.length} packages` }],
    [MINIMAL_IMAGE, { options: { packages: MINIMAL_PACKAGES }, recipe: sandboxRecipe({ packages: MINIMAL_PACKAGES }), what: `the minimal image: ${MINIMAL_PACKAGES.join(', ')}` }],
  ]);
  const wanted = process.env.BENCH_IMAGES?.split(',').filter(Boolean) ?? [FULL_IMAGE, MINIMAL_IMAGE];
  const have = new Map(await Promise.all(wanted.map(async (image) => [image, await found(docker, image)] as const)));
  const steps = planBench(wanted, known, have, process.env.BENCH_BUILD === '1');
  const images = await buildFirst(steps, known, build, (line) => console.error(line));
  for (const image of images) await measure(image);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
