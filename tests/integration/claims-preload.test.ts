// The claim library against real programs on this machine: compiled as the image build compiles it,
// preloaded into python, bash, coreutils, sed and git, and its log parsed by parseClaimsLog must name
// exactly what each program changed, with the state it left. Every case runs as root in a root-owned
// folder and as uid 1000 in a folder it owns (the sandbox runs actions as the folder's owner).
//
// Cost (measured by the last test, which prints it; CPU time of the programs, median of 5 interleaved
// runs, on a 2-core machine shared with other test runs; four runs of the test): a python loop writing
// 5,000 small files 0.96x to 1.17x (0.7-1.0 s either way: within the machine's noise), `git add` of
// 2,000 files 1.03x to 1.35x (0.15-0.18 s -> 0.17-0.24 s). git is the worst case: every object is a
// file created, closed, linked and unlinked, four records of 3 to 6 system calls each, against git's own
// dozen; opening for reading and reading cost nothing.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PYTHON,
  claimsFor,
  compileLibrary,
  expectTrueClaims,
  median,
  ownFolder,
  runClaimed,
  timed,
  type Runner,
} from '../support/claims-preload-harness';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let library: string;
let seq = 0;

beforeAll(() => {
  library = compileLibrary(ownFolder({ who: 'root', library: '', home: '' }, dirs.make('posthoc-claims-lib-')));
});
afterAll(() => dirs.cleanup());

function runnerFor(who: Runner['who']): Runner {
  const runner: Runner = { who, library, home: '' };
  runner.home = ownFolder(runner, dirs.make('posthoc-claims-home-'));
  return runner;
}

/** A fresh folder owned by the runner, with `setup` run in it without the library. */
function folder(runner: Runner, setup = ''): string {
  const dir = ownFolder(runner, join(runner.home, `folder-${++seq}`));
  if (setup) expect(runClaimed(runner, dir, setup, { preload: false, logPath: join(runner.home, 'setup.log') }).status).toBe(0);
  return dir;
}

const py = (code: string) => `${PYTHON} - <<'PY'\n${code}\nPY`;

describe.each(['root', 'person'] as const)('claims of real programs, as %s', (who) => {
  let runner: Runner;
  beforeAll(() => {
    runner = runnerFor(who);
  });

  it('python: write, append, os.replace, tempfile + rename, shutil.rmtree, pathlib', () => {
    const dir = folder(runner, 'echo old > old.txt; mkdir -p tree/a; echo b > tree/a/b.txt');
    const { claims } = expectTrueClaims(
      runner,
      dir,
      py(`import os, pathlib, shutil, tempfile
with open('a.txt', 'w') as f: f.write('one\\n')
with open('a.txt', 'a') as f: f.write('two\\n')
with open('b.txt', 'w') as f: f.write('b')
os.replace('b.txt', 'old.txt')
fd, tmp = tempfile.mkstemp(dir='.')
os.write(fd, b'atomic'); os.close(fd)
os.rename(tmp, 'atomic.txt')
shutil.rmtree('tree')
pathlib.Path('p/q').mkdir(parents=True)
pathlib.Path('p/q/r.txt').write_text('r')
os.makedirs('d1/d2'); os.chdir('d1/d2')
open('../../up.txt', 'w').write('up')
os.chdir('../..')
os.link('a.txt', 'hard.txt')
os.rename('a.txt', 'hard.txt')  # two links to one file: succeeds and changes nothing`),
    );
    expect(claims.get('b.txt')?.final).toBe('absent');
    expect(claims.get('tree/a/b.txt')?.final).toBe('absent');
    expect(claims.get('tree')).toEqual({ final: 'absent', dir: true });
    expect(readFileSync(join(dir, 'old.txt'), 'utf8')).toBe('b');
    const kept = [...claims].filter(([, c]) => c.final !== 'absent').map(([p]) => p).sort();
    expect(kept).toEqual(['a.txt', 'atomic.txt', 'd1', 'd1/d2', 'hard.txt', 'old.txt', 'p', 'p/q', 'p/q/r.txt', 'up.txt']);
  });

  it('bash redirections: >, >> and a redirected group', () => {
    const dir = folder(runner);
    const { claims } = expectTrueClaims(runner, dir, 'echo one > r.txt; echo two >> r.txt; { echo x; echo y; } > s.txt; printf z >> s.txt; cat r.txt > t.txt; ls > /dev/null');
    expect([...claims.keys()].sort()).toEqual(['r.txt', 's.txt', 't.txt']);
    expect(readFileSync(join(dir, 's.txt'), 'utf8')).toBe('x\ny\nz');
  });

  it('coreutils and sed: cp, mv, mkdir -p, touch, ln -s, sed -i, rm -r', () => {
    const dir = folder(runner, 'echo abc > src.txt; mkdir -p gone/deep; echo x > gone/deep/x.txt; echo old > old.txt');
    const { claims } = expectTrueClaims(
      runner,
      dir,
      'cp src.txt copy.txt && mv copy.txt moved.txt && mkdir -p m/n/o && touch m/n/o/t.txt && ln -s src.txt link && sed -i s/a/z/ src.txt && rm -r gone && touch -d @-5 old.txt',
    );
    // touch sets the times through the descriptor; a time before 1970 is a negative stamp.
    expect(claims.get('old.txt')?.final).toMatchObject({ mtimeNs: '-5000000000' });
    expect(readFileSync(join(dir, 'src.txt'), 'utf8')).toBe('zbc\n');
    expect(claims.get('copy.txt')?.final).toBe('absent');
    expect(claims.get('gone/deep/x.txt')?.final).toBe('absent');
    expect(claims.get('link')).toMatchObject({ dir: false });
  });

  it('git init, add and commit', () => {
    const dir = folder(runner, 'for i in $(seq 1 30); do echo $i > f$i.txt; done');
    const { claims } = expectTrueClaims(
      runner,
      dir,
      'git init -q . && git add . && git -c user.name=t -c user.email=t@example.com commit -q -m first && echo 31 > f1.txt && git -c user.name=t -c user.email=t@example.com commit -qam second',
    );
    expect(claims.get('.git/index')?.final).not.toBeNull();
    expect(claims.get('f1.txt')?.final).not.toBeNull();
    expect([...claims.keys()].filter((p) => p.startsWith('.git/objects/')).length).toBeGreaterThan(30);
  });

  it('many threads writing at once', () => {
    const dir = folder(runner);
    const { claims } = expectTrueClaims(
      runner,
      dir,
      py(`import concurrent.futures, os
def work(i):
    with open(f't{i}.txt', 'w') as f: f.write(str(i) * 50)
    os.rename(f't{i}.txt', f'r{i}.txt')
    os.makedirs(f'd{i % 7}', exist_ok=True)
with concurrent.futures.ThreadPoolExecutor(8) as pool: list(pool.map(work, range(200)))`),
    );
    expect([...claims].filter(([p, c]) => p.startsWith('r') && c.final !== 'absent').length).toBe(200);
  });

  it('node: sync and promise file calls (libuv closes through syscall())', () => {
    const dir = folder(runner, 'echo old > old.txt');
    const node = process.execPath;
    const { claims } = expectTrueClaims(
      runner,
      dir,
      `${node} -e "
const fs = require('fs');
fs.writeFileSync('a.txt', 'a');
fs.appendFileSync('old.txt', 'more');
(async () => {
  await Promise.all([...Array(20).keys()].map((i) => fs.promises.writeFile('p' + i + '.txt', String(i))));
  await fs.promises.rename('p0.txt', 'renamed.txt');
  await fs.promises.mkdir('d/e', { recursive: true });
  await fs.promises.writeFile('d/e/f.txt', 'f');
  await fs.promises.rm('d', { recursive: true });
})();"`,
    );
    expect(claims.get('a.txt')?.final).not.toBeNull();
    expect(claims.get('p0.txt')?.final).toBe('absent');
    expect(claims.get('d/e/f.txt')?.final).toBe('absent');
    expect([...claims.keys()].filter((p) => /^p\d+\.txt$/.test(p)).length).toBe(20);
  });

  it('many processes writing at once: python multiprocessing and xargs -P', () => {
    const dir = folder(runner);
    const { run, claims } = expectTrueClaims(
      runner,
      dir,
      py(`import multiprocessing, os
def work(i):
    with open(f'mp{i}.txt', 'w') as f: f.write(str(i) * 100)
    os.replace(f'mp{i}.txt', f'done{i}.txt')
with multiprocessing.Pool(4) as pool: pool.map(work, range(40))`) + "\nseq 1 40 | xargs -P 4 -I{} sh -c 'echo {} > x{}.txt'",
    );
    expect([...claims].filter(([p, c]) => p.startsWith('done') && c.final !== 'absent').length).toBe(40);
    expect([...claims].filter(([p]) => p.startsWith('x')).length).toBe(40);
    // One write() per line: no line of one process is cut into by another.
    expect(run.log!.toString('utf8').split('\n').slice(0, -1).every((l) => /^[WCNG]\t\d+\t\d+\t-?\d+\t[01]\t\//.test(l))).toBe(true);
  });

  it('exec: a child program started by a shell writes, also to a stdout it inherited', () => {
    const dir = folder(runner);
    const log = join(runner.home, 'claims.log');
    const { claims } = expectTrueClaims(
      runner,
      dir,
      `bash -c '${PYTHON} -c "open(\\"child.txt\\", \\"w\\").write(\\"c\\")"'
${PYTHON} -c 'print("to stdout")' > out.txt
exec ${PYTHON} -c "import os
open('exec.txt', 'w').write('')
fds = []
for n in os.listdir('/proc/self/fd'):
    try: fds.append((int(n), os.readlink(f'/proc/self/fd/{n}')))
    except OSError: pass  # the listing's own descriptor
open('exec.txt', 'w').write(' '.join(str(n >= 10) for n, p in fds if p == '${log}'))"`,
    );
    expect([...claims.keys()].sort()).toEqual(['child.txt', 'exec.txt', 'out.txt']);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('to stdout\n');
    // The log's descriptor does not cross exec (CLOEXEC): the new program opened its own, once, above
    // the numbers shells use.
    expect(readFileSync(join(dir, 'exec.txt'), 'utf8')).toBe('True');
  });

  it('names with %, tab, newline and non-ASCII bytes', () => {
    const dir = folder(runner);
    const names = ['100%', 'tab\there', 'new\nline', 'cr\rname', 'caf\u00e9 \u65e5\u672c'];
    const { claims } = expectTrueClaims(runner, dir, py(`for n in ${JSON.stringify(names)}: open(n, 'w').write(n)`));
    expect([...claims.keys()].sort()).toEqual([...names].sort());
  });

  // The kernel gives no working folder longer than PATH_MAX, so only escaping ('%' is written %25) makes
  // a line's path longer than 2 * PATH_MAX.
  it('a path longer than 2 * PATH_MAX once escaped is cut, marked, and left out by the parser', () => {
    const dir = folder(runner);
    const run = runClaimed(
      runner,
      dir,
      py(`import os
for i in range(18):
    os.mkdir('%' * 200); os.chdir('%' * 200)
open('%' * 200 + 'deep.txt', 'w').write('deep')`),
    );
    expect(run.status).toBe(0);
    const lines = run.log!.toString('utf8').split('\n');
    const cut = lines.filter((l) => l.endsWith('%!'));
    expect(cut.length).toBeGreaterThan(0);
    expect(Math.max(...cut.map((l) => l.length))).toBeLessThanOrEqual(8192 + 96);
    const claims = claimsFor(run.log, dir);
    expect([...claims.keys()].some((p) => p.endsWith('deep.txt'))).toBe(false);
    expect(claims.has('%'.repeat(200))).toBe(true); // the short ones are still there
  });

  it('hands every error back as it was (errno preserved)', () => {
    const dir = folder(runner, 'mkdir full; touch full/x');
    const script = py(`import os
def attempt(label, fn):
    try: fn(); print(label, 'ok')
    except OSError as e: print(label, type(e).__name__, e.errno)
attempt('open', lambda: open('missing/x.txt', 'w'))
attempt('mkdir', lambda: os.mkdir('full'))
attempt('rename', lambda: os.rename('nope', 'x'))
attempt('unlink', lambda: os.unlink('full'))
attempt('rmdir', lambda: os.rmdir('full'))
attempt('chmod', lambda: os.chmod('nope', 0o600))
attempt('link', lambda: os.link('nope', 'l'))`);
    const expected = 'open FileNotFoundError 2\nmkdir FileExistsError 17\nrename FileNotFoundError 2\nunlink IsADirectoryError 21\nrmdir OSError 39\nchmod FileNotFoundError 2\nlink FileNotFoundError 2\n';
    const withLibrary = runClaimed(runner, dir, script);
    expect(withLibrary.stdout).toBe(expected);
    expect(withLibrary.log!.length).toBe(0); // nothing succeeded, nothing is claimed
    expect(runClaimed(runner, dir, script, { preload: false }).stdout).toBe(expected);
  });

  it('a program that never writes leaves the log empty', () => {
    const dir = folder(runner, 'echo data > x.txt; mkdir d');
    const run = runClaimed(runner, dir, `cat x.txt; ls -la; grep -r data .; wc -c x.txt; ${PYTHON} -c "print(open('x.txt').read())"`);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('data');
    expect(run.log!.length).toBe(0);
  });

  it('without a log the programs run as ever and nothing is written', () => {
    const dir = folder(runner);
    const logPath = join(runner.home, 'never.log');
    const run = runClaimed(runner, dir, `echo a > a.txt; ${PYTHON} -c "open('b.txt', 'w').write('b')"; cat a.txt b.txt`, { withLog: false, logPath });
    expect(run).toEqual({ status: 0, stdout: 'a\nb', stderr: '', log: null });
  });

  it('a program closing every descriptor and reusing their numbers never receives a claim line', () => {
    const dir = folder(runner);
    const { claims } = expectTrueClaims(
      runner,
      dir,
      py(`import os
os.closerange(3, 65536)
for i in range(20):
    fd = os.open(f'f{i}.txt', os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b'mine\\n')
with open('f0.txt', 'a') as f: f.write('more\\n')`),
      // Left open at os._exit-free interpreter exit: the library records them on the way out.
    );
    for (let i = 0; i < 20; i++) expect(readFileSync(join(dir, `f${i}.txt`), 'utf8')).toBe(i === 0 ? 'mine\nmore\n' : 'mine\n');
    expect(claims.size).toBe(20);
  });
});

describe('the library itself', () => {
  it('needs nothing newer than bookworm\'s glibc 2.36', () => {
    const symbols = execFileSync('readelf', ['--dyn-syms', '--wide', library], { encoding: 'utf8' });
    const versions = [...symbols.matchAll(/@GLIBC_(\d+)\.(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
    expect(versions.length).toBeGreaterThan(5);
    expect(versions.filter(([major, minor]) => major > 2 || (major === 2 && minor > 36))).toEqual([]);
  });

});

describe('cost', () => {
  it('measures a python loop of 5,000 files and git add of 2,000 files with and without the library', () => {
    const runner = runnerFor('root');
    const measure = (script: string, setup: string) => {
      const cpu = { with: [] as number[], without: [] as number[] };
      const wall = { with: [] as number[], without: [] as number[] };
      // Interleaved, so that load from elsewhere falls on both sides alike.
      for (let i = 0; i < 5; i++) {
        for (const preload of [false, true]) {
          const dir = folder(runner, setup);
          const sample = timed(runner, dir, script, preload);
          const side = preload ? 'with' : 'without';
          cpu[side].push(sample.cpu);
          wall[side].push(sample.wall);
          if (preload) expect(claimsFor(sample.run.log, dir).size).toBeGreaterThanOrEqual(2000);
          else expect(sample.run.log!.length).toBe(0);
        }
      }
      return {
        cpu: median(cpu.with) / median(cpu.without),
        wall: median(wall.with) / median(wall.without),
        cpuSeconds: [median(cpu.without), median(cpu.with)],
      };
    };
    const python = measure(py(`for i in range(5000):\n    with open(f'f{i}.txt', 'w') as f: f.write('x')`), '');
    const git = measure('git add .', 'git init -q . && for i in $(seq 1 2000); do echo $i > f$i.txt; done');
    const show = (r: typeof python) => `CPU ${r.cpu.toFixed(2)}x (${r.cpuSeconds.map((s) => s.toFixed(3)).join(' s -> ')} s), wall ${r.wall.toFixed(2)}x`;
    console.log(`claim library cost, with / without, median of 5: python 5,000 files ${show(python)}; git add 2,000 files ${show(git)}`);
  });
});
