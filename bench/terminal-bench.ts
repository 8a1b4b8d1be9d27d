// npx tsx bench/terminal-bench.ts — outside tasks in Terminal-Bench's format (bench/tasks/, see its README),
// each run through Posthoc's real services: the set-up a model would type (apt-get install of the toolchain,
// npm install), the task's reference solution and its tests as three actions in the sandbox, then a rewind
// to before the first, after which the folder must be byte-identical to its starting state (content, kind,
// permission bits, owner). All tasks run once with a cold package cache (a new data folder: every package
// comes from Debian's archive or npm's registry through the gateway) and once warm (the same data folder:
// the gateway's host cache serves them). Prints per language: passes, exact rewinds, median time per task,
// packages fetched; then every failure with the line that says why, and each task's times.
//
// Usage: npx tsx bench/terminal-bench.ts [--only NAME|LANGUAGE,...] [--passes cold,warm] [--json FILE]
//   BENCH_IMAGE  another sandbox image (default posthoc-sandbox:VERSION; it must be current: "npx posthoc sandbox status")
// Needs Docker, the sandbox image, and Debian's archive (deb.debian.org) and npm's registry reachable.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../main/services/app-services';
import { createDocker } from '../main/sandbox/docker-client';
import { SANDBOX_IMAGE, sandboxStatus } from '../main/sandbox/sandbox-image';
import { loadTasks, runTask, scriptedEnv, startScriptedModel, STEPS, type TaskResult } from './terminal-bench-task';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);

const median = (xs: number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const secs = (ms: number) => (Number.isNaN(ms) ? '-' : `${(ms / 1000).toFixed(1)} s`);
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

type Pass = 'cold' | 'warm';

async function main(): Promise<void> {
  const tasks = loadTasks(undefined, list(arg('only')));
  const passes = (list(arg('passes')).length ? list(arg('passes')) : ['cold', 'warm']) as Pass[];
  const wrong = passes.filter((p) => p !== 'cold' && p !== 'warm');
  if (wrong.length) throw new Error(`--passes takes cold and warm, not ${wrong.join(', ')}.`);
  // A fresh machine: Docker and a current image first, or say what to run (the bench builds nothing).
  const image = process.env.BENCH_IMAGE ?? SANDBOX_IMAGE;
  const status = await sandboxStatus(createDocker(), image);
  if (!status.dockerAvailable || !status.imagePresent) {
    const message = status.message ?? `The sandbox image ${image} cannot be used.`;
    console.error(/sandbox build/.test(message) ? `${message} Then run the bench again.` : `${message} The bench needs Docker and a current sandbox image ("npx posthoc sandbox build").`);
    process.exit(2);
  }

  const model = await startScriptedModel();
  const dataDir = mkdtempSync(join(tmpdir(), 'posthoc-tb-data-'));
  const services = createServices({ dataDir, image, env: scriptedEnv(model) });
  const results: Record<Pass, TaskResult[]> = { cold: [], warm: [] };
  const loads: string[] = [`start ${load()}`];
  console.error(`${tasks.length} tasks in ${new Set(tasks.map((t) => t.language)).size} languages, image ${image}, ${cpus().length} cores, load ${load()}`);
  try {
    await services.ready;
    for (const pass of passes) {
      for (const task of tasks) {
        const r = await runTask(services, model, task);
        results[pass].push(r);
        const steps = r.steps.map((s) => `${s.step} ${secs(s.ms)}${s.downloads.upstream + s.downloads.cache ? ` (${s.downloads.upstream} fetched, ${s.downloads.cache} cached)` : ''}`).join(', ');
        console.error(`${pass} ${task.name}: ${r.passed ? 'pass' : `FAIL ${r.failure}`}; ${steps}; rewind ${r.rewind}${r.differences.length ? `, ${r.differences.length} differences` : ', exact'}`);
      }
      loads.push(`after ${pass} ${load()}`);
    }
  } finally {
    await services.close();
    await model.llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  report(tasks.map((t) => t.language), passes, results, loads);
  const json = arg('json');
  if (json) writeFileSync(json, JSON.stringify({ image, cores: cpus().length, loads, results }, null, 2));
}

function report(languages: string[], passes: Pass[], results: Record<Pass, TaskResult[]>, loads: string[]): void {
  const langs = [...new Set(languages)];
  const row = (cells: string[], widths: number[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const widths = [11, 6, ...passes.flatMap(() => [6, 7, 11, 11, 22])];
  const head = ['language', 'tasks', ...passes.flatMap((p) => [`pass`, 'exact', `task ${p}`, `set-up`, `packages ${p}`])];
  console.log(`\nPer language (${passes.join(', then ')}; times are medians per task; exact: the folder byte-identical after the rewind)`);
  console.log(row(head, widths));
  const line = (label: string, pick: (r: TaskResult) => boolean) => {
    const cells = [label, String(results[passes[0]!].filter(pick).length)];
    for (const p of passes) {
      const rs = results[p].filter(pick);
      const d = rs.flatMap((r) => r.steps.map((s) => s.downloads));
      const fetched = d.reduce((n, x) => n + x.upstream, 0);
      const cached = d.reduce((n, x) => n + x.cache, 0);
      const bytes = d.reduce((n, x) => n + x.bytes, 0);
      cells.push(`${rs.filter((r) => r.passed).length}/${rs.length}`, `${rs.filter((r) => r.differences.length === 0 && r.rewind === 'rewound').length}/${rs.length}`);
      cells.push(secs(median(rs.map((r) => r.taskMs))), secs(median(rs.map((r) => r.steps[0]!.ms))), fetched + cached ? `${fetched}+${cached}c ${mb(bytes)}` : '-');
    }
    console.log(row(cells, widths));
  };
  for (const l of langs) line(l, (r) => r.language === l);
  line('all', () => true);
  console.log('packages: files fetched from the upstream + served from the host cache (c), and their size');

  const failures = passes.flatMap((p) => results[p].filter((r) => !r.passed).map((r) => `${p.padEnd(5)} ${r.task.padEnd(28)} ${r.failure}`));
  console.log(`\nFailures (${failures.length}): the first step that failed and its first error line`);
  for (const f of failures) console.log(f);
  const inexact = passes.flatMap((p) => results[p].filter((r) => r.differences.length > 0 || r.rewind !== 'rewound').map((r) => `${p} ${r.task}: rewind ${r.rewind}; ${r.differences.slice(0, 5).join('; ')}${r.differences.length > 5 ? ` and ${r.differences.length - 5} more` : ''}`));
  console.log(`\nRewinds not exact (${inexact.length})`);
  for (const i of inexact) console.log(i);

  console.log(`\nPer task: ${passes.map((p) => `${p} task (${STEPS.join(' / ')}) rewind`).join(' | ')}`);
  const names = results[passes[0]!].map((r) => r.task);
  for (const name of names) {
    const cells = passes.map((p) => {
      const r = results[p].find((x) => x.task === name);
      return r ? `${r.passed ? 'pass' : 'FAIL'} ${secs(r.taskMs)} (${r.steps.map((s) => secs(s.ms)).join(' / ')}) ${secs(r.rewindMs)}` : '-';
    });
    console.log(`${name.padEnd(28)} ${cells.join(' | ')}`);
  }
  console.log(`\nmachine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}); load averages (1, 5, 15 min): ${loads.join('; ')}`);
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
