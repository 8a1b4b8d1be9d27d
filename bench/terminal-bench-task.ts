// One Terminal-Bench-format task (bench/tasks/NAME/) run through Posthoc's real services: its starting files
// copied into a new granted folder, then three actions in one task — set-up (setup.sh), the reference
// solution (solution.sh) and the task's tests (run-tests.sh), each sent by the scripted model as a run_code
// call —, then a rewind to before the first, and the folder compared with its starting state (content,
// kind, permission bits, owner). Used by bench/terminal-bench.ts and tests/integration/terminal-bench-tasks.test.ts.
import { createHash } from 'node:crypto';
import { chownSync, cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Action, PackagesEffect } from '../shared/domain';
import type { AppServices } from '../main/services/app-services';
import { FALLBACK_SANDBOX_UID } from '../main/sandbox/container-policy';
import { startFakeOpenAi, type FakeOpenAi, type ScriptedTurn } from '../tests/support/fake-openai-server';

export const TASKS_DIR = join(import.meta.dirname, 'tasks');
export const STEPS = ['setup', 'solution', 'tests'] as const;
export type StepName = (typeof STEPS)[number];

/** `folder`: the granted folder's name, the exercise's own (its source path's last part), as a person's checkout is named. */
export type BenchTask = { name: string; dir: string; language: string; folder: string; scripts: Record<StepName, string>; source: string };

/** The tasks under `root` (folders holding a task.yaml), by name; `only` keeps those named or of a language named. */
export function loadTasks(root = TASKS_DIR, only: readonly string[] = []): BenchTask[] {
  const tasks = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(root, e.name, 'task.yaml')))
    .map((e) => loadTask(join(root, e.name)))
    .sort((a, b) => a.name.localeCompare(b.name));
  const picked = only.length === 0 ? tasks : tasks.filter((t) => only.includes(t.name) || only.includes(t.language));
  const unknown = only.filter((o) => !tasks.some((t) => t.name === o || t.language === o));
  if (unknown.length > 0) throw new Error(`No task or language named ${unknown.join(', ')} in ${root}; the languages are ${[...new Set(tasks.map((t) => t.language))].join(', ')}.`);
  return picked;
}

export function loadTask(dir: string): BenchTask {
  const name = dir.split('/').pop()!;
  const yaml = readFileSync(join(dir, 'task.yaml'), 'utf8');
  // The bench reads two flat keys of task.yaml; the rest (instruction, difficulty, authors) is for people.
  const key = (k: string) => new RegExp(`^\\s*${k}: (.+)$`, 'm').exec(yaml)?.[1]?.trim();
  const language = key('language');
  const [repository, path, commit] = [key('repository'), key('path'), key('commit')];
  if (!language || !repository || !path || !commit) throw new Error(`${dir}/task.yaml lacks language or source (repository, path, commit).`);
  const read = (file: string) => {
    if (!existsSync(join(dir, file))) throw new Error(`${name} has no ${file}; a task holds setup.sh, solution.sh, run-tests.sh and workspace/.`);
    return readFileSync(join(dir, file), 'utf8');
  };
  if (!existsSync(join(dir, 'workspace'))) read('workspace');
  return { name, dir, language, folder: path.split('/').filter(Boolean).pop()!, scripts: { setup: read('setup.sh'), solution: read('solution.sh'), tests: read('run-tests.sh') }, source: `${repository} ${path} @ ${commit.slice(0, 12)}` };
}

/**
 * A new granted folder holding the task's starting files, named as the exercise (a CMakeLists names its target
 * after its folder), owned as a person's folder would be. It lies in a temporary parent: remove `dirname(folder)`.
 */
export function prepareFolder(task: BenchTask): string {
  const folder = join(mkdtempSync(join(tmpdir(), `posthoc-tb-${task.name}-`)), task.folder);
  cpSync(join(task.dir, 'workspace'), folder, { recursive: true });
  // Run as root (CI), the sandbox runs as the folder's owner: give it to the unprivileged sandbox uid.
  if (process.getuid?.() === 0) {
    chownSync(folder, FALLBACK_SANDBOX_UID, FALLBACK_SANDBOX_UID);
    for (const e of readdirSync(folder, { withFileTypes: true, recursive: true })) chownSync(join(e.parentPath, e.name), FALLBACK_SANDBOX_UID, FALLBACK_SANDBOX_UID);
  }
  return folder;
}

/** Every entry of a folder (itself as '.'): kind, permission bits, owner, and content hash or link target. */
export function folderManifest(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (rel: string) => {
    const abs = rel === '.' ? root : join(root, rel);
    const st = lstatSync(abs);
    const head = `${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`;
    if (st.isSymbolicLink()) out.set(rel, `link ${head} -> ${readlinkSync(abs)}`);
    else if (st.isFile()) out.set(rel, `file ${head} ${createHash('sha256').update(readFileSync(abs)).digest('hex')}`);
    else if (st.isDirectory()) {
      out.set(rel, `dir ${head}`);
      for (const name of readdirSync(abs).sort()) visit(rel === '.' ? name : `${rel}/${name}`);
    } else out.set(rel, `other ${head}`);
  };
  visit('.');
  return out;
}

/** What differs between two manifests, one line a path: added, removed, or what it held and holds. */
export function manifestDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const lines: string[] = [];
  for (const [path, was] of before) {
    const now = after.get(path);
    if (now === undefined) lines.push(`${path}: missing (was ${was})`);
    else if (now !== was) lines.push(`${path}: ${was} -> ${now}`);
  }
  for (const [path, now] of after) if (!before.has(path)) lines.push(`${path}: added (${now})`);
  return lines;
}

// Whole words only, so a test's own name (pytest's 'self = <…test_a_roll_cannot_score…>') is not taken for an
// error; 'Error' may end a longer word (AssertionError), not a name's last part (test_raises_error).
const ERROR = /(?<!_)error\b|\bfail(s|ed|ure|ures)?\b|\bcannot\b|\bcan't\b|\bnot found\b|\bno such\b|\bundefined\b|\bpanic|\bdenied\b|\brefused\b|\btraceback\b|\bunable\b/i;
// A count of none, a passing line, or a section header (pytest's '==== FAILURES ====') names no error.
const NOT_ERROR = /\b0 (failed|errors?|failures)\b|^\s*ok\b|^[=_*-]{3,}.*[=_*-]{3,}$/i;

/** The line that says why an action failed: its first error-looking line, else its last line. */
export function firstErrorLine(output: { stdout: string; stderr: string; timedOut?: boolean }): string {
  if (output.timedOut) return 'timed out';
  const lines = `${output.stderr}\n${output.stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.find((l) => ERROR.test(l) && !NOT_ERROR.test(l)) ?? lines.at(-1) ?? '(no output)';
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

export type Downloads = { upstream: number; cache: number; refused: number; bytes: number };
export type StepResult = { step: StepName; exitCode: number | null; status: string; ms: number; downloads: Downloads; error: string | null };
export type TaskResult = {
  task: string;
  language: string;
  passed: boolean;
  /** Why it did not pass: the step and its error line; null when it passed. */
  failure: string | null;
  steps: StepResult[];
  /** From the task's start to its end (the three actions and the model's turns). */
  taskMs: number;
  rewindMs: number;
  /** The rewind's outcome, and how the folder differs from its starting state after it ([] when exact). */
  rewind: string;
  differences: string[];
};

/** The stand-in model: it answers each task with the task's script, one run_code call a turn, then 'Done.'. */
export type ScriptedModel = { llm: FakeOpenAi; play(turns: Array<ScriptedTurn | string>): void };

export async function startScriptedModel(): Promise<ScriptedModel> {
  let queue: Array<ScriptedTurn | string> = [];
  const llm = await startFakeOpenAi(Array.from({ length: 50_000 }, () => () => queue.shift() ?? 'Done.'));
  return { llm, play: (turns) => (queue = [...turns]) };
}

/** The services' environment for the scripted model: its URL, and run_code calls rather than fenced code. */
export const scriptedEnv = (model: ScriptedModel): Record<string, string> => ({ OPENAI_BASE_URL: model.llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '0', POSTHOC_PROTOCOL: 'tools' });

const downloads = (a: Action): Downloads => {
  const p = a.effects.filter((e): e is PackagesEffect => e.channel === 'packages');
  return {
    upstream: p.filter((e) => !e.refused && e.source !== 'cache').length,
    cache: p.filter((e) => !e.refused && e.source === 'cache').length,
    refused: p.filter((e) => e.refused).length,
    bytes: p.reduce((n, e) => n + (e.refused ? 0 : (e.bytes ?? 0)), 0),
  };
};

/**
 * Runs the task's three actions in one Posthoc task on a new folder, rewinds to before the first, compares the
 * folder with its starting state, and removes the folder and the task's environment (its packages).
 */
export async function runTask(services: AppServices, model: ScriptedModel, task: BenchTask, actionTimeoutSeconds = 900): Promise<TaskResult> {
  const folder = prepareFolder(task);
  try {
    const before = folderManifest(folder);
    model.play([...STEPS.map((s) => ({ content: `Running ${s}.`, tool_calls: [{ name: 'run_code', arguments: { language: 'bash', code: task.scripts[s] } }] })), 'Done.']);
    const started = performance.now();
    const { id } = await services.tasks.start({ prompt: `Make the tests of ${task.name} pass (bench/tasks/${task.name}/task.yaml).`, workspaces: [folder] }, { actionTimeoutSeconds, maxSteps: 10 });
    const done = await services.tasks.wait(id);
    const taskMs = performance.now() - started;
    const actions = services.tasks.get(id).actions;
    const steps: StepResult[] = STEPS.map((step, i) => {
      const a = actions[i];
      if (!a) return { step, exitCode: null, status: 'not run', ms: 0, downloads: { upstream: 0, cache: 0, refused: 0, bytes: 0 }, error: done.error ?? 'the action did not run' };
      const ms = a.finishedAt ? Date.parse(a.finishedAt) - Date.parse(a.startedAt) : 0;
      const ok = a.output.exitCode === 0 && !a.output.timedOut;
      return { step, exitCode: a.output.exitCode, status: a.status, ms, downloads: downloads(a), error: ok ? null : firstErrorLine(a.output) };
    });
    const tests = steps[2]!;
    const passed = tests.exitCode === 0 && !tests.error;
    const failed = steps.find((s) => s.error);
    const failure = passed ? null : failed ? `${failed.step}: ${failed.error}` : 'tests: did not pass';
    let rewind = 'nothing to rewind';
    const t = performance.now();
    if (actions[0]) {
      try {
        rewind = (await services.undo.rewind(actions[0].id)).outcome;
      } catch (error) {
        rewind = `refused: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    const rewindMs = performance.now() - t;
    const differences = manifestDiff(before, folderManifest(folder));
    await services.executor.removeEnv(id);
    return { task: task.name, language: task.language, passed, failure, steps, taskMs, rewindMs, rewind, differences };
  } finally {
    rmSync(dirname(folder), { recursive: true, force: true });
  }
}
