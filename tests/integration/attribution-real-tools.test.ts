// Real tools as actions in the real sandbox, each then rewound: the folder must come back byte for byte, and
// nothing the tool did may be taken for an edit of the person's (which no undo reverts, and which left work
// behind before the kernel's account: issue 23). As root with a root-owned folder and as the person (uid 1000).
// Tools: Debian's pytest (python3-pytest in the image), a folder made under a temporary name and renamed into
// place the way pytest 8's cache provider does it (`Cache._ensure_cache_dir_and_supporting_files`: mkdtemp
// beside the cache, then os.rename), sed -i's atomic save, git init/add/commit, tar -x, npm install of a real
// package (commander, served from this repository's node_modules by tests/support/npm-modules-registry.ts),
// and a statically linked C program that changes files by raw system calls only (tests/fixtures/tools).
// And the person's edit while a tool holds their file open for appending without writing: it survives undo.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FsEffect } from '../../shared/domain';
import { createServices, type AppServices } from '../../main/services/app-services';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image';
import { OWNERS, own, ownPaths } from '../support/claims';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai-server';
import { startNpmModulesRegistry, type NpmModulesRegistry } from '../support/npm-modules-registry';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const built = tempDirs();
let llm: FakeOpenAi | undefined;
let services: AppServices | undefined;
let registry: NpmModulesRegistry;
let rawTool: string;

beforeAll(async () => {
  registry = await startNpmModulesRegistry(['commander']);
  rawTool = join(built.make('posthoc-rawtool-'), 'raw-syscalls');
  execFileSync('cc', ['-static', '-O2', '-o', rawTool, join(__dirname, '..', 'fixtures', 'tools', 'raw-syscalls.c')]);
});
afterAll(async () => {
  await registry.close();
  built.cleanup();
});
afterEach(async () => {
  await services?.close();
  await llm?.close();
  services = undefined;
  llm = undefined;
  dirs.cleanup();
});

const bash = (code: string) => `\`\`\`bash\n${code}\n\`\`\``;
const python = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

/** Every entry under `root`: kind, executable bit, content hash or link target. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const st = lstatSync(abs);
      const rel = relative(root, abs);
      if (st.isDirectory()) {
        out[`${rel}/`] = 'dir';
        walk(abs);
      } else if (st.isSymbolicLink()) out[rel] = `link ${readlinkSync(abs)}`;
      else out[rel] = `${st.mode & 0o100 ? 'x' : '-'} ${createHash('sha256').update(readFileSync(abs)).digest('hex').slice(0, 16)}`;
    }
  };
  walk(root);
  return out;
}

async function runTask(ws: string, replies: string[]) {
  llm = await startFakeOpenAi(replies);
  services = createServices({
    dataDir: dirs.make('posthoc-data-'),
    image: process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE,
    env: { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '0', POSTHOC_NPM_REGISTRY_URL: registry.url },
  });
  const started = await services.tasks.start({ prompt: 'use a tool', workspaces: [ws] });
  return { started, services };
}

const fsEffect = (effects: readonly { channel: string }[]) => effects.find((e): e is FsEffect => e.channel === 'fs')!;

type Tool = { name: string; setup(ws: string): void; code: string; changed: RegExp };

const TOOLS: Tool[] = [
  {
    name: 'python -m pytest in a project (Debian pytest)',
    setup: (ws) => {
      writeFileSync(join(ws, 'calc.py'), 'def add(a, b):\n    return a + b\n');
      writeFileSync(join(ws, 'test_calc.py'), 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_fails():\n    assert add(2, 2) == 5\n');
    },
    // One test fails, so pytest records it in its cache (lastfailed).
    code: bash('python3 -m pytest -q; test -f .pytest_cache/v/cache/lastfailed'),
    changed: /^\.pytest_cache\//,
  },
  {
    name: "a folder made under a temporary name and renamed into place (pytest 8's cache)",
    setup: (ws) => writeFileSync(join(ws, 'keep.txt'), 'the person\n'),
    code: python(
      [
        'import os, tempfile',
        "tmp = tempfile.mkdtemp(prefix='pytest-cache-files-', dir='.')",
        "os.makedirs(os.path.join(tmp, 'v', 'cache'))",
        "open(os.path.join(tmp, 'v', 'cache', 'lastfailed'), 'w').write('{}')",
        "open(os.path.join(tmp, 'README.md'), 'w').write('# pytest cache directory #\\n')",
        "open(os.path.join(tmp, '.gitignore'), 'w').write('*\\n')",
        "os.rename(tmp, '.pytest_cache')",
      ].join('\n'),
    ),
    changed: /^\.pytest_cache\/v\/cache\/lastfailed$/,
  },
  {
    name: "an editor's atomic save (sed -i) and Python's write-then-replace",
    setup: (ws) => {
      writeFileSync(join(ws, 'notes.txt'), 'one\n');
      writeFileSync(join(ws, 'config.json'), '{"a": 1}\n');
    },
    code: bash(`sed -i 's/one/two/' notes.txt && python3 -c "import os; open('config.json.tmp','w').write('{\\"a\\": 2}\\n'); os.replace('config.json.tmp', 'config.json')"`),
    changed: /^(notes\.txt|config\.json)$/,
  },
  {
    name: 'git init, add and commit',
    setup: (ws) => writeFileSync(join(ws, 'README.md'), '# project\n'),
    code: bash('git init -q . && git add -A && git -c user.email=a@example.com -c user.name=Agent commit -qm first && git log --oneline | wc -l'),
    changed: /^\.git\/objects\//,
  },
  {
    name: 'tar -x of an archive',
    setup: (ws) => {
      const src = dirs.make('posthoc-tar-src-');
      mkdirSync(join(src, 'pkg', 'sub'), { recursive: true });
      writeFileSync(join(src, 'pkg', 'a.txt'), 'a\n');
      writeFileSync(join(src, 'pkg', 'sub', 'b.txt'), 'b\n');
      execFileSync('tar', ['-czf', join(ws, 'archive.tgz'), '-C', src, 'pkg']);
    },
    // --no-same-owner: an action holds no capability, so it cannot give files the archive's owners.
    code: bash('mkdir out && tar --no-same-owner -xzf archive.tgz -C out && ls -R out'),
    changed: /^out\/pkg\/sub\/b\.txt$/,
  },
  {
    name: 'npm install of a real package',
    setup: (ws) => writeFileSync(join(ws, 'package.json'), '{"name": "demo", "version": "1.0.0"}\n'),
    code: bash('npm install commander --no-audit --no-fund && node --input-type=module -e "import \'commander\'; console.log(\'ok\')"'),
    changed: /^node_modules\/commander\/package\.json$/,
  },
  {
    name: 'a statically linked program changing files by raw system calls (write, rename, mkdir, link, unlink)',
    setup: (ws) => {
      mkdirSync(join(ws, 'bin'));
      writeFileSync(join(ws, 'bin', 'raw-syscalls'), readFileSync(rawTool), { mode: 0o755 });
      writeFileSync(join(ws, 'old-name.txt'), 'renamed by the program\n');
      writeFileSync(join(ws, 'gone.txt'), 'removed by the program\n');
      writeFileSync(join(ws, 'notes.txt'), 'before the save\n');
    },
    code: bash('./bin/raw-syscalls'),
    changed: /^(raw\.txt|new-name\.txt|made\/hard-link\.txt|notes\.txt)$/,
  },
];

describe.each(OWNERS)('real tools as actions, rewound byte for byte ($who)', ({ uid }) => {
  it.each(TOOLS)('$name', async (tool) => {
    const ws = dirs.make('posthoc-tools-ws-');
    tool.setup(ws);
    own(ws, uid);
    const before = snapshot(ws);
    const { started, services: s } = await runTask(ws, [tool.code, 'Done.']);
    const task = await s.tasks.wait(started.id);
    expect(task.error ?? null).toBeNull();
    const [action] = s.tasks.get(task.id).actions;
    expect(action!.output.exitCode, `${action!.output.stdout}\n${action!.output.stderr}`).toBe(0);
    const effect = fsEffect(action!.effects);
    // The kernel saw it all: nothing of the tool's is taken for someone else's edit.
    expect(effect.unattributed).toBeUndefined();
    expect(effect.whileRunning, JSON.stringify(effect.whileRunning)).toBeUndefined();
    const changed = [...effect.added, ...effect.modified, ...effect.deleted, ...(effect.renamed ?? []).map((r) => r.to)];
    expect(changed.some((p) => tool.changed.test(p)), changed.join(', ')).toBe(true);

    const rewound = await s.undo.rewind(action!.id);
    expect(rewound.outcome, JSON.stringify(rewound)).toBe('rewound');
    expect(snapshot(ws)).toEqual(before);
  });

  it("keeps the person's line written while a raw-syscall program held the file open for appending", async () => {
    const ws = dirs.make('posthoc-tools-ws-');
    mkdirSync(join(ws, 'bin'));
    writeFileSync(join(ws, 'bin', 'raw-syscalls'), readFileSync(rawTool), { mode: 0o755 });
    writeFileSync(join(ws, 'notes.txt'), 'first line\n');
    own(ws, uid);
    const { started, services: s } = await runTask(ws, [bash('./bin/raw-syscalls wait'), 'Done.']);
    while (!existsSync(join(ws, 'started.txt'))) await sleep(20);
    // The person appends while the program holds notes.txt open (it never writes to it), then lets it end.
    writeFileSync(join(ws, 'notes.txt'), 'first line\nthe person, meanwhile\n');
    writeFileSync(join(ws, 'go.txt'), 'go\n');
    ownPaths(ws, uid, ['go.txt']);
    const task = await s.tasks.wait(started.id);
    const [action] = s.tasks.get(task.id).actions;
    const effect = fsEffect(action!.effects);
    expect(effect).toMatchObject({ added: ['started.txt'], modified: [] });
    expect(effect.whileRunning).toMatchObject({ added: ['go.txt'], modified: ['notes.txt'], ambiguous: [] });

    expect(await s.undo.undo(action!.id)).toMatchObject({ outcome: 'undone', removed: ['started.txt'] });
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('first line\nthe person, meanwhile\n');
  });
});
