// npx tsx bench/tasks/import-exercism.ts — writes Terminal-Bench-format tasks (bench/tasks/LANG-EXERCISE/) from
// Exercism exercises in a local clone of their repository, at one commit, citing it. See bench/tasks/README.md.
//
//   npx tsx bench/tasks/import-exercism.ts --clone DIR --repo OWNER/NAME --under PATH --lang LANG
//       [--track-clone DIR --track OWNER/NAME] EXERCISE...
//
// --clone/--repo/--under: where the exercises are (Aider-AI/polyglot-benchmark's cpp/exercises/practice, or a
// track's own exercises/practice). --track-clone/--track: the Exercism track the exercise comes from, for its
// difficulty (its config.json) and the citation; the same repository when it is the track. Each task holds:
//   task.yaml     instruction (the exercise's introduction, instructions and append, with aider's addendum),
//                 author, difficulty, category, tags, language, source (repository, path, commit, license)
//   setup.sh      what a model types first for the language (apt-get install of the toolchain, npm install)
//   solution.sh   the exercise's reference solution (.meta/example.*, proof.ci.js), written over the stubs
//   run-tests.sh  the exercise's tests, all of them, as aider's harness or the track's own CI runs them
//   workspace/    the starting files: stubs, tests, build files and vendored test frameworks; never .meta/
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';

type Lang = { setup: string; tests: string; testsFrom: string };
const APT = (packages: string, check: string) => `apt-get update\napt-get install -y ${packages}\n${check}`;
/** Per language: the set-up a model would type, and how the tests run (and whose way that is). */
export const LANGS: Record<string, Lang> = {
  python: { setup: 'python3 --version\npython3 -m pytest --version', tests: 'python3 -m pytest', testsFrom: "aider's benchmark harness (pytest)" },
  cpp: {
    setup: 'cmake --version | head -n 1\ng++ --version | head -n 1\nmake --version | head -n 1',
    tests: '[ ! -d build ] && mkdir build\ncd build\ncmake -DEXERCISM_RUN_ALL_TESTS=1 -G "Unix Makefiles" ..\nmake',
    testsFrom: "aider's benchmark/cpp-test.sh (the tests run as the build's last step)",
  },
  c: { setup: 'gcc --version | head -n 1\nmake --version | head -n 1', tests: "sed -i 's#TEST_IGNORE();#// &#' test_*.c\nmake", testsFrom: "exercism/c's makefile (TEST_IGNORE commented out, then make)" },
  go: { setup: APT('golang-go', 'go version'), tests: 'go test ./...', testsFrom: "aider's benchmark harness (go test ./...)" },
  rust: { setup: APT('cargo', 'cargo --version'), tests: 'cargo test -- --include-ignored', testsFrom: "aider's benchmark harness (cargo test -- --include-ignored)" },
  javascript: { setup: 'node --version\nnpm install', tests: "sed -i 's/\\bxtest(/test(/g' *.spec.js\nnpm run test", testsFrom: "aider's benchmark/npm-test.sh (xtest made test, then npm run test)" },
  bash: { setup: APT('bats', 'bats --version'), tests: 'BATS_RUN_SKIPPED=true bats *.bats', testsFrom: "exercism/bash's bin/validate_one_exercise (BATS_RUN_SKIPPED=true bats)" },
  ruby: {
    setup: APT('ruby ruby-minitest', 'ruby --version'),
    tests: "for t in *_test.rb; do\n  ruby -rminitest/autorun -e 'Minitest::Test.define_method(:skip) { |*| }; load ARGV[0]' \"$t\"\ndone",
    testsFrom: "exercism/ruby's lib/disable_skip.rb (skip made a no-op, then ruby FILE_test.rb)",
  },
};

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};

type Config = { authors?: string[]; files: { solution: string[]; test: string[]; example: string[] } };

function main(): void {
  const clone = opt('clone');
  const repo = opt('repo');
  const under = opt('under')?.replace(/\/+$/, '');
  const lang = opt('lang');
  const trackClone = opt('track-clone') ?? clone;
  const track = opt('track') ?? repo;
  if (!clone || !repo || !under || !lang || !LANGS[lang] || args.length === 0) {
    console.error(`usage: import-exercism.ts --clone DIR --repo OWNER/NAME --under PATH --lang ${Object.keys(LANGS).join('|')} [--track-clone DIR --track OWNER/NAME] EXERCISE...`);
    process.exit(2);
  }
  // stderr ignored: a file the exercise lacks (.docs/introduction.md) is asked for and answered by the catch.
  const git = (dir: string, ...a: string[]) => execFileSync('git', ['-C', dir, ...a], { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  const commit = git(clone, 'rev-parse', 'HEAD').toString().trim();
  const trackCommit = git(trackClone!, 'rev-parse', 'HEAD').toString().trim();
  const trackConfig = JSON.parse(git(trackClone!, 'show', `${trackCommit}:config.json`).toString()) as { exercises: { practice: Array<{ slug: string; difficulty?: number }> } };
  for (const exercise of args) {
    const path = `${under}/${exercise}`;
    const show = (file: string) => git(clone, 'show', `${commit}:${path}/${file}`);
    const maybe = (file: string) => {
      try {
        return show(file).toString();
      } catch {
        return '';
      }
    };
    const config = JSON.parse(show('.meta/config.json').toString()) as Config;
    const dir = join(import.meta.dirname, `${lang}-${exercise}`);
    rmSync(dir, { recursive: true, force: true });
    // The starting files: everything but the hidden folders (.meta holds the reference solution, .docs the text).
    const listed = git(clone, 'ls-tree', '-r', commit, `${path}/`).toString().trim().split('\n');
    for (const line of listed) {
      const [meta, file] = line.split('\t') as [string, string];
      const rel = file.slice(path.length + 1);
      if (rel.split('/').slice(0, -1).some((part) => part.startsWith('.'))) continue;
      const target = join(dir, 'workspace', rel);
      mkdirSync(join(target, '..'), { recursive: true });
      writeFileSync(target, show(rel), { mode: meta.startsWith('100755') ? 0o755 : 0o644 });
    }
    // The reference solution: each example file over the solution file of the same extension.
    const writes = config.files.example.map((example, i) => {
      const same = config.files.solution.filter((s) => extname(s) === extname(example));
      const target = same.length > 1 ? same[i] : same[0];
      if (!target) throw new Error(`${path}: no solution file for ${example}`);
      const text = show(example).toString();
      if (text.includes('POSTHOC_EOF')) throw new Error(`${path}: ${example} holds the heredoc's delimiter`);
      return `cat > '${target}' <<'POSTHOC_EOF'\n${text.endsWith('\n') ? text : `${text}\n`}POSTHOC_EOF`;
    });
    const script = (body: string) => `#!/bin/bash\nset -e\n${body}\n`;
    writeFileSync(join(dir, 'setup.sh'), script(LANGS[lang]!.setup), { mode: 0o755 });
    writeFileSync(join(dir, 'solution.sh'), script(writes.join('\n')), { mode: 0o755 });
    writeFileSync(join(dir, 'run-tests.sh'), script(LANGS[lang]!.tests), { mode: 0o755 });

    const text = [maybe('.docs/introduction.md'), maybe('.docs/instructions.md'), maybe('.docs/instructions.append.md')].filter(Boolean).join('\n');
    const files = config.files.solution.join(' ');
    const instruction = `${text.trimEnd()}\n\n####\n\nUse the above instructions to modify the supplied files: ${files}\nDon't change the names of existing functions or classes, as they may be referenced from other code like unit tests, etc.\nOnly use standard libraries, don't suggest installing any packages.\nThe tests are ${config.files.test.join(' ')}; run-tests.sh runs all of them.`;
    const level = trackConfig.exercises.practice.find((e) => e.slug === exercise)?.difficulty;
    const difficulty = level === undefined ? 'medium' : level <= 3 ? 'easy' : level <= 6 ? 'medium' : 'hard';
    const yaml = [
      `# Imported by bench/tasks/import-exercism.ts from ${repo}/${path} at ${commit.slice(0, 12)}. Exercism exercises are MIT-licensed.`,
      'instruction: |-',
      ...instruction.split('\n').map((l) => (l ? `  ${l}` : '')),
      `author_name: ${JSON.stringify((config.authors ?? []).join(', ') || 'Exercism contributors')}`,
      'author_email: unknown',
      `difficulty: ${difficulty}`,
      'category: software-engineering',
      'tags:',
      '  - exercism',
      `  - ${lang}`,
      `language: ${lang}`,
      'max_agent_timeout_sec: 900.0',
      'max_test_timeout_sec: 600.0',
      'source:',
      `  repository: ${repo}`,
      `  path: ${path}`,
      `  commit: ${commit}`,
      '  license: MIT (Exercism)',
      `  track: ${track}`,
      `  track_commit: ${trackCommit}`,
      `  track_difficulty: ${level ?? 'unknown'}`,
      `  tests_run_as: ${JSON.stringify(LANGS[lang]!.testsFrom)}`,
      '',
    ].join('\n');
    writeFileSync(join(dir, 'task.yaml'), yaml);
    console.log(`${lang}-${exercise}: ${listed.length} files at ${commit.slice(0, 12)}, difficulty ${difficulty}`);
  }
}

main();
