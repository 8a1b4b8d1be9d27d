// The outside tasks of bench/tasks/ (Terminal-Bench's format) and the bench's own checks: every task cites
// where it comes from at a commit, starts without its reference solution, and holds the three scripts; the
// folder comparison after a rewind sees every kind of difference; a failure is named by its error line.
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstErrorLine, folderManifest, loadTask, loadTasks, manifestDiff, TASKS_DIR } from '../../bench/terminal-bench-task';

const made: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'posthoc-tb-unit-'));
  made.push(d);
  return d;
};
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the outside tasks', () => {
  const tasks = loadTasks();

  it('are at least 30, in at least five languages, each citing its repository, path and commit', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(30);
    expect(new Set(tasks.map((t) => t.language)).size).toBeGreaterThanOrEqual(5);
    for (const t of tasks) {
      const yaml = readFileSync(join(t.dir, 'task.yaml'), 'utf8');
      expect(yaml, t.name).toMatch(/^instruction: \|-\n {2}\S/m);
      expect(yaml, t.name).toMatch(/^difficulty: (easy|medium|hard)$/m);
      expect(yaml, t.name).toMatch(/^ {2}commit: [0-9a-f]{40}$/m);
      expect(yaml, t.name).toMatch(/^ {2}license: MIT/m);
      expect(t.name.startsWith(`${t.language}-`), t.name).toBe(true);
    }
  });

  it('start without their reference solution: no .meta folder, and every file the solution writes differs from its stub', () => {
    for (const t of tasks) {
      const files = readdirSync(join(t.dir, 'workspace'), { recursive: true }).map(String);
      expect(files.filter((f) => f.split('/').some((p) => p === '.meta' || p === '.docs')), t.name).toEqual([]);
      const writes = [...t.scripts.solution.matchAll(/^cat > '([^']+)' <<'POSTHOC_EOF'\n([\s\S]*?)^POSTHOC_EOF$/gm)];
      expect(writes.length, t.name).toBeGreaterThan(0);
      for (const [, file, body] of writes) {
        const stub = join(t.dir, 'workspace', file!);
        expect(existsSync(stub), `${t.name}: ${file}`).toBe(true);
        expect(readFileSync(stub, 'utf8').trimEnd(), `${t.name}: ${file}`).not.toBe(body!.trimEnd());
      }
    }
  });

  it('are granted as a folder named after the exercise, as its checkout would be (a CMakeLists names its target so)', () => {
    const [cpp] = loadTasks(undefined, ['cpp-all-your-base']);
    expect(cpp!.folder).toBe('all-your-base');
    expect(readFileSync(join(cpp!.dir, 'workspace', 'CMakeLists.txt'), 'utf8')).toMatch(/get_filename_component\(exercise \$\{CMAKE_CURRENT_SOURCE_DIR\} NAME\)/);
    for (const t of tasks) expect(t.folder, t.name).toMatch(/^[a-z0-9][a-z0-9_-]*$/);
  });

  it('are picked by name or by language, and a name that is neither says which languages there are', () => {
    expect(loadTasks(undefined, ['python-bowling']).map((t) => t.name)).toEqual(['python-bowling']);
    expect(loadTasks(undefined, ['go']).every((t) => t.language === 'go')).toBe(true);
    expect(() => loadTasks(undefined, ['cobol'])).toThrow(/No task or language named cobol .* the languages are .*python/);
  });

  it('refuses a task folder that lacks a script or its source, saying what a task holds', () => {
    const d = join(dir(), 'python-x');
    mkdirSync(join(d, 'workspace'), { recursive: true });
    writeFileSync(join(d, 'task.yaml'), 'instruction: |-\n  x\nlanguage: python\n');
    expect(() => loadTask(d)).toThrow(/lacks language or source/);
    writeFileSync(join(d, 'task.yaml'), 'language: python\nsource:\n  repository: a/b\n  path: p\n  commit: 0123\n');
    writeFileSync(join(d, 'setup.sh'), 'true\n');
    expect(() => loadTask(d)).toThrow(/python-x has no solution\.sh; a task holds setup\.sh, solution\.sh, run-tests\.sh and workspace\//);
  });

  it('TASKS_DIR is the suite in the repository', () => {
    expect(existsSync(join(TASKS_DIR, 'README.md'))).toBe(true);
  });
});

describe('the folder comparison after a rewind', () => {
  const folder = () => {
    const d = dir();
    mkdirSync(join(d, 'src'));
    writeFileSync(join(d, 'src', 'lib.rs'), 'fn main() {}\n');
    writeFileSync(join(d, 'run.sh'), 'echo hi\n', { mode: 0o755 });
    return d;
  };

  it('finds nothing in a folder left as it was', () => {
    const d = folder();
    expect(manifestDiff(folderManifest(d), folderManifest(d))).toEqual([]);
  });

  it('sees changed content, a lost executable bit, an added and a removed file', () => {
    const d = folder();
    const before = folderManifest(d);
    writeFileSync(join(d, 'src', 'lib.rs'), 'fn main() { }\n');
    chmodSync(join(d, 'run.sh'), 0o644);
    writeFileSync(join(d, 'Cargo.lock'), '');
    const after = folderManifest(d);
    expect(manifestDiff(before, after)).toEqual([
      expect.stringMatching(/^run\.sh: file 755 .* -> file 644 /),
      expect.stringMatching(/^src\/lib\.rs: file 644 \S+ [0-9a-f]{64} -> file 644 \S+ [0-9a-f]{64}$/),
      expect.stringMatching(/^Cargo\.lock: added \(file 644 /),
    ]);
    rmSync(join(d, 'src'), { recursive: true });
    expect(manifestDiff(before, folderManifest(d))).toEqual(expect.arrayContaining([expect.stringMatching(/^src: missing \(was dir /), expect.stringMatching(/^src\/lib\.rs: missing/)]));
  });

  it('tells a link from the file it points to, even with the same content', () => {
    const d = folder();
    writeFileSync(join(d, 'a.txt'), 'same\n');
    writeFileSync(join(d, 'b.txt'), 'same\n');
    const before = folderManifest(d);
    unlinkSync(join(d, 'b.txt'));
    symlinkSync('a.txt', join(d, 'b.txt'));
    expect(manifestDiff(before, folderManifest(d))).toEqual([expect.stringMatching(/^b\.txt: file .* -> link .* -> a\.txt$/)]);
  });
});

describe('the line that says why a step failed', () => {
  it('is the first error-looking line, not a summary of zero failures', () => {
    expect(firstErrorLine({ stdout: 'ok  \tbowling\t0.01s\n=== 0 failed ===\n', stderr: "bowling.go:3:1: syntax error: non-declaration statement outside function body\nFAIL\tbowling [build failed]\n" })).toBe(
      'bowling.go:3:1: syntax error: non-declaration statement outside function body',
    );
  });

  it("skips a section header to the line under it (pytest's FAILURES)", () => {
    expect(firstErrorLine({ stdout: 'bowling_test.py FFF\n=========== FAILURES ===========\nself = <bowling_test.BowlingTest testMethod=test_a_roll_cannot_score_more_than_10_points>\nE       AssertionError: Exception not raised\n', stderr: '' })).toBe('E       AssertionError: Exception not raised');
    expect(firstErrorLine({ stdout: 'bowling_test.py FFF\n=========== FAILURES ===========\n____ BowlingTest.test_all_zeros ____\nE       AssertionError: None != 0\n', stderr: '' })).toBe('E       AssertionError: None != 0');
  });

  it('is the last line when none looks like an error, and says when the step timed out', () => {
    expect(firstErrorLine({ stdout: 'compiling\nexit status 2\n', stderr: '' })).toBe('exit status 2');
    expect(firstErrorLine({ stdout: '', stderr: '', timedOut: true })).toBe('timed out');
    expect(firstErrorLine({ stdout: '', stderr: '' })).toBe('(no output)');
  });
});
