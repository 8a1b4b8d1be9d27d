// The image build's progress (debootstrap's, apt-get's and docker build's lines as they really come), the
// package label `sandbox status` compares, what the app shows of a build, and the system prompt's list of
// what the image carries.
import { describe, expect, it } from 'vitest';
import { systemPrompt } from '../../main/agent/system-prompt';
import { BuildProgressParser, formatBuildProgress, type BuildStep } from '../../main/sandbox/build-progress';
import { MINIMAL_PACKAGES, missingPackages, PACKAGES, sandboxRecipe, staleImageMessage } from '../../main/sandbox/sandbox-image';
import { applyBuildProgress, applyBuildRefused, buildFraction, describeBuildProgress, idleBuild } from '../../renderer/src/model/sandbox-build';

const feedAll = (lines: string[]): Array<BuildStep | null> => {
  const parser = new BuildProgressParser();
  return lines.map((line) => parser.feed(line));
};

describe('build progress parsing', () => {
  it('follows debootstrap from resolving through downloading, unpacking and configuring, counting packages', () => {
    const steps = feedAll([
      'I: Retrieving InRelease ',
      'I: Checking Release signature',
      'I: Resolving dependencies of required packages...',
      'I: Retrieving adduser 3.134',
      'I: Validating adduser 3.134',
      'I: Retrieving apt 2.6.1',
      'I: Validating apt 2.6.1',
      'I: Retrieving base-files 12.4+deb12u15',
      'I: Extracting adduser...',
      'I: Installing core packages...',
      'I: Unpacking required packages...',
      'I: Unpacking adduser...',
      'I: Unpacking libc6:amd64...',
      'I: Configuring required packages...',
      'I: Configuring debian-archive-keyring...',
      'I: Base system installed successfully.',
    ]);
    expect(steps[0]).toMatchObject({ phase: 'resolving' });
    expect(steps[2]).toMatchObject({ phase: 'resolving' });
    expect(steps[3]).toEqual({ phase: 'downloading', done: 1, line: 'I: Retrieving adduser 3.134' });
    expect(steps[4]).toBeNull(); // Validating moves nothing
    expect(steps[7]).toMatchObject({ phase: 'downloading', done: 3 });
    expect(steps[8]).toMatchObject({ phase: 'installing', done: 1 });
    expect(steps[11]).toMatchObject({ phase: 'unpacking', done: 1, total: 3 });
    expect(steps[12]).toMatchObject({ phase: 'unpacking', done: 2, total: 3 });
    expect(steps[13]).toMatchObject({ phase: 'configuring' });
    expect(steps[14]).toMatchObject({ phase: 'configuring', done: 1, total: 3 });
    expect(steps[15]).toMatchObject({ phase: 'finishing' });
  });

  it("takes apt-get's total from 'newly installed' and counts Get, Unpacking and Setting up against it", () => {
    const steps = feedAll([
      'Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]', // apt-get update: not a package yet
      'Reading package lists...',
      '0 upgraded, 573 newly installed, 0 to remove and 0 not upgraded.',
      'Get:1 http://deb.debian.org/debian bookworm/main amd64 perl-modules-5.36 all 5.36.0-7+deb12u3 [2815 kB]',
      'Get:2 http://deb.debian.org/debian bookworm/main amd64 libgdbm6 amd64 1.23-3 [72.2 kB]',
      'Preparing to unpack .../0-perl-modules-5.36_5.36.0-7+deb12u3_all.deb ...',
      'Unpacking perl-modules-5.36 (5.36.0-7+deb12u3) ...',
      'Setting up libgdbm6:amd64 (1.23-3) ...',
      'Processing triggers for libc-bin (2.36-9+deb12u14) ...',
    ]);
    expect(steps[0]).toBeNull();
    expect(steps[1]).toBeNull();
    expect(steps[2]).toMatchObject({ phase: 'downloading', done: 0, total: 573 });
    expect(steps[4]).toMatchObject({ phase: 'downloading', done: 2, total: 573 });
    expect(steps[5]).toBeNull();
    expect(steps[6]).toMatchObject({ phase: 'unpacking', done: 1, total: 573 });
    expect(steps[7]).toMatchObject({ phase: 'configuring', done: 1, total: 573 });
    expect(steps[8]).toBeNull();
  });

  it("reads docker build's steps", () => {
    expect(feedAll(['Step 3/12 : RUN apt-get update'])[0]).toEqual({ phase: 'installing', line: 'Step 3/12 : RUN apt-get update' });
  });

  it('formats a line with the elapsed time as m:ss', () => {
    expect(formatBuildProgress({ phase: 'unpacking', done: 120, total: 310, elapsedMs: 42_900, line: 'I: Unpacking libc6...' })).toBe(
      '[0:42] unpacking 120/310 packages — I: Unpacking libc6...',
    );
    expect(formatBuildProgress({ phase: 'downloading', done: 7, elapsedMs: 125_000 })).toBe('[2:05] downloading 7 packages');
    expect(formatBuildProgress({ phase: 'done', elapsedMs: 0, line: 'built x' })).toBe('[0:00] done — built x');
  });
});

describe('the package label', () => {
  it('names the packages of the current list an image lacks', () => {
    expect(missingPackages(MINIMAL_PACKAGES.join(','), ['python3-minimal', 'python3-pandas', 'nodejs', 'git'])).toEqual(['python3-pandas', 'nodejs']);
    expect(missingPackages(PACKAGES.join(','))).toEqual([]);
    expect(missingPackages(undefined)).toBeNull();
    expect(missingPackages(' git , ,curl', ['curl', 'git', 'jq'])).toEqual(['jq']);
  });

  it('says what is missing and how to rebuild', () => {
    expect(staleImageMessage('posthoc-sandbox:0.1.0', 'python3-minimal,git', ['python3-minimal', 'python3-pandas', 'nodejs', 'git'])).toBe(
      'The sandbox image posthoc-sandbox:0.1.0 lacks python3-pandas, nodejs; rebuild it with "npx posthoc sandbox build".',
    );
    // The minimal image against today's list: a long list is cut, with the count of the rest.
    const message = staleImageMessage('img', MINIMAL_PACKAGES.join(','));
    expect(message).toMatch(/^The sandbox image img lacks python3, python3-numpy, .* and \d+ more; rebuild it with "npx posthoc sandbox build"\.$/);
    expect(staleImageMessage('img', undefined)).toMatch(/older Posthoc.*npx posthoc sandbox build/);
    expect(staleImageMessage('img', PACKAGES.join(','))).toMatch(/another version of Posthoc/);
  });

  it('refuses an image file from outside main/sandbox/image/ or to a relative or climbing target', () => {
    expect(() => sandboxRecipe({ files: [{ source: '../claims.ts', target: '/x', mode: 0o644 }] })).toThrow(/Bad sandbox image file/);
    expect(() => sandboxRecipe({ files: [{ source: 'claims-preload.c', target: 'etc/x', mode: 0o644 }] })).toThrow(/Bad sandbox image file/);
    expect(() => sandboxRecipe({ files: [{ source: 'claims-preload.c', target: '/usr/../../etc/x', mode: 0o644 }] })).toThrow(/Bad sandbox image file/);
    // A file's content and place are part of the recipe.
    const file = { source: 'claims-preload.c', target: '/usr/local/share/x.c', mode: 0o644 };
    expect(sandboxRecipe({ files: [file] })).not.toBe(sandboxRecipe({ files: [{ ...file, mode: 0o600 }] }));
  });

  it('makes the recipe depend on the package list', () => {
    expect(sandboxRecipe({ packages: MINIMAL_PACKAGES })).not.toBe(sandboxRecipe());
    expect(sandboxRecipe({ packages: PACKAGES })).toBe(sandboxRecipe());
  });
});

describe('the build as the app shows it', () => {
  it('goes from running with a fraction to done, or to failed with the reason', () => {
    let view = applyBuildProgress(idleBuild, { phase: 'unpacking', done: 50, total: 200, elapsedMs: 65_000 });
    expect(view.state).toBe('running');
    if (view.state !== 'running') throw new Error('not running');
    expect(buildFraction(view.progress)).toBe(0.25);
    expect(describeBuildProgress(view.progress)).toBe('Unpacking packages — 50 of 200 · 1:05');
    expect(buildFraction({ phase: 'downloading', done: 3, elapsedMs: 1 })).toBeNull();
    view = applyBuildProgress(view, { phase: 'failed', elapsedMs: 70_000, line: 'debootstrap failed' });
    expect(view).toEqual({ state: 'failed', message: 'debootstrap failed' });
    view = applyBuildProgress(view, { phase: 'done', elapsedMs: 80_000 });
    expect(view.state).toBe('done');
    expect(applyBuildRefused(idleBuild, 'A sandbox image build is already running')).toEqual({ state: 'failed', message: 'A sandbox image build is already running' });
  });
});

describe('the system prompt', () => {
  // Each package of the image, as the prompt names it.
  const named: Record<string, string> = {
    python3: 'Python 3',
    'python3-numpy': 'numpy',
    'python3-pandas': 'pandas',
    'python3-scipy': 'scipy',
    'python3-sklearn': 'scikit-learn',
    'python3-matplotlib': 'matplotlib',
    'python3-openpyxl': 'openpyxl',
    'python3-pil': 'Pillow',
    'python3-lxml': 'lxml',
    'python3-bs4': 'BeautifulSoup',
    'python3-yaml': 'PyYAML',
    'python3-pip': 'pip',
    'python3-venv': 'venv',
    'python3-requests': 'requests',
    'python3-pytest': 'pytest',
    'build-essential': 'gcc',
    cmake: 'cmake',
    nodejs: 'Node.js',
    npm: 'npm',
    curl: 'curl',
    jq: 'jq',
    sqlite3: 'sqlite3',
    ripgrep: 'ripgrep',
    git: 'git',
    unzip: 'unzip',
    file: 'file',
  };

  it('names everything the image carries, and how pip and npm installs work', () => {
    const prompt = systemPrompt([], 10);
    for (const pkg of PACKAGES.filter((p) => p !== 'ca-certificates')) {
      expect(named[pkg], `the test names ${pkg}`).toBeDefined();
      expect(prompt).toContain(named[pkg]);
    }
    expect(prompt).toContain("pip install and npm install work (through Posthoc's package door) when the person allows it");
  });
});
