// The sandbox image posthoc-sandbox:<version>: Debian bookworm with what a data, office and coding agent
// needs (PACKAGES), the init, the claim library and IMAGE_FILES. It is built from Debian's package archive
// with debootstrap and apt-get in the new root where that is available (Linux, as root), otherwise with
// `docker build` from debian:bookworm-slim; both report their progress (build-progress.ts).
import type Docker from 'dockerode';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, copyFile, mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../platform/package-root';
import type { SandboxStatus } from '../../shared/domain';
import { INIT_PATH } from './container-policy';
import { BuildReporter, type BuildProgress } from './build-progress';
import { explainDockerError, SandboxError } from './docker-client';
import { SANDBOX_IMAGE } from './sandbox-image-name';

export { SANDBOX_IMAGE } from './sandbox-image-name';
/** The image of Posthoc 0.1 before issue 14: Python's standard library, requests and git (the benchmark's minimal image). */
export const MINIMAL_PACKAGES: readonly string[] = ['python3-minimal', 'python3-requests', 'ca-certificates', 'git'];
/** What a data/office/coding agent needs, all from Debian bookworm so that the image builds offline with debootstrap. */
export const PACKAGES: readonly string[] = [
  'python3',
  'python3-numpy',
  'python3-pandas',
  'python3-scipy',
  'python3-sklearn',
  'python3-matplotlib',
  'python3-openpyxl',
  'python3-pil',
  'python3-lxml',
  'python3-bs4',
  'python3-yaml',
  'python3-pip',
  'python3-venv',
  'python3-requests',
  // The test runner most Python projects use: `python -m pytest` works without an install through the gateway.
  'python3-pytest',
  // C and C++ (gcc, g++, make, libc headers) and CMake: what most build steps of a project need first. Other
  // toolchains (go, cargo, a JDK) come on demand with apt-get through the gateway (posthoc_apt.py).
  'build-essential',
  'cmake',
  'nodejs',
  'npm',
  'curl',
  'jq',
  'sqlite3',
  'ripgrep',
  'git',
  'unzip',
  'file',
  'ca-certificates',
];

/** A file of main/sandbox/image/ copied into the image at `target` with `mode`, by both build paths. */
export interface ImageFile {
  /** The file's name in main/sandbox/image/. */
  source: string;
  /** Absolute path inside the image. */
  target: string;
  mode: number;
}
/** Extra files every sandbox image carries; their contents are part of the recipe. */
export const IMAGE_FILES: readonly ImageFile[] = [
  // matplotlib's backend (MPLBACKEND=module://posthoc_figures): figures come back to the card (main/effects/figures/).
  { source: 'posthoc_figures.py', target: '/usr/lib/python3/dist-packages/posthoc_figures.py', mode: 0o644 },
  // The granted MCP servers' tools as Python functions (from posthoc_tools import NAME), through $POSTHOC_GATEWAY/mcp.
  { source: 'posthoc_tools.py', target: '/usr/lib/python3/dist-packages/posthoc_tools.py', mode: 0o644 },
  // apt-get, apt and apt-cache that install into the task's own environment through the gateway's Debian route.
  { source: 'posthoc_apt.py', target: '/usr/local/bin/apt-get', mode: 0o755 },
  { source: 'posthoc_apt.py', target: '/usr/local/bin/apt', mode: 0o755 },
  { source: 'posthoc_apt.py', target: '/usr/local/bin/apt-cache', mode: 0o755 },
  // sudo runs the command as the action's user: there is no root to give.
  { source: 'posthoc_sudo.sh', target: '/usr/local/bin/sudo', mode: 0o755 },
];
const IMAGE_DIR = join('main', 'sandbox', 'image');

export interface BuildOptions {
  /** Debian packages to install; the default set when omitted. */
  packages?: readonly string[];
  /** Files to copy in; IMAGE_FILES when omitted. */
  files?: readonly ImageFile[];
  /** How to build: debootstrap where it can (Linux, as root), else docker build; 'dockerfile' forces the latter. */
  method?: 'auto' | 'dockerfile';
}
/** Identifies what went into the image: a changed recipe makes `sandbox status` ask for a rebuild. */
export const RECIPE_LABEL = 'dev.posthoc.recipe';
/** The Debian packages the image was built with, comma-separated: `sandbox status` names the missing ones. */
export const PACKAGES_LABEL = 'dev.posthoc.packages';
/** The claim library (claims.ts): loaded into every process of the sandbox through /etc/ld.so.preload. */
const CLAIMS_SOURCE_PATH = join('main', 'sandbox', 'image', 'claims-preload.c');
const CLAIMS_LIBRARY = '/usr/local/lib/posthoc-claims.so';
/** PID 1 of every sandbox (image/posthoc_init.py, Python): the reaper, the action runner, the relay. */
const INIT_SOURCE_PATH = join('main', 'sandbox', 'image', 'posthoc_init.py');
/** The kernel watcher (image/posthoc-watch.c): loaded by PID 1, which runs its loop on a thread of its own. */
const WATCH_SOURCE_PATH = join('main', 'sandbox', 'image', 'posthoc-watch.c');
const WATCH_LIBRARY = '/usr/local/lib/posthoc-watch.so';

function imageFileContent(file: ImageFile): Buffer {
  const root = packageRoot();
  if (!root) throw new SandboxError('docker-failed', `Posthoc's own files are missing (${IMAGE_DIR}); reinstall Posthoc.`);
  if (!file.target.startsWith('/') || file.target.split('/').includes('..') || file.source.includes('/')) {
    throw new SandboxError('docker-failed', `Bad sandbox image file ${file.source} → ${file.target}.`);
  }
  return readFileSync(join(root, IMAGE_DIR, file.source));
}

/** The init's text, as it goes into the image at INIT_PATH. */
export function initScript(): string {
  return ownSource(INIT_SOURCE_PATH);
}

function claimsSource(): string {
  return ownSource(CLAIMS_SOURCE_PATH);
}

function watchSource(): string {
  return ownSource(WATCH_SOURCE_PATH);
}

function ownSource(path: string): string {
  const root = packageRoot();
  if (!root) throw new SandboxError('docker-failed', `Posthoc's own files are missing (${path}); reinstall Posthoc.`);
  return readFileSync(join(root, path), 'utf8');
}

let recipe: string | undefined;
/** Identifies what went into the image: a changed recipe makes `sandbox status` ask for a rebuild. */
export function sandboxRecipe(options: BuildOptions = {}): string {
  if (options.packages || options.files) return computeRecipe(options.packages ?? PACKAGES, options.files ?? IMAGE_FILES);
  recipe ??= computeRecipe(PACKAGES, IMAGE_FILES);
  return recipe;
}

function computeRecipe(packages: readonly string[], files: readonly ImageFile[]): string {
  const hash = createHash('sha256').update(JSON.stringify({ PACKAGES: packages, initScript: initScript(), claims: claimsSource(), watch: watchSource() }));
  for (const file of files) {
    hash.update(JSON.stringify({ target: file.target, mode: file.mode, source: file.source }));
    hash.update(imageFileContent(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The packages of `wanted` an image built with `label` (PACKAGES_LABEL's value) lacks; null when it has no label. */
export function missingPackages(label: string | undefined, wanted: readonly string[] = PACKAGES): string[] | null {
  if (label === undefined) return null;
  const has = new Set(label.split(',').map((p) => p.trim()).filter(Boolean));
  return wanted.filter((p) => !has.has(p));
}

/** What `sandbox status` says of an image whose recipe is not the current one: the packages it lacks, if it says. */
export function staleImageMessage(image: string, packagesLabel: string | undefined, wanted: readonly string[] = PACKAGES): string {
  const missing = missingPackages(packagesLabel, wanted);
  const rebuild = 'rebuild it with "npx posthoc sandbox build"';
  if (missing === null) return `The sandbox image ${image} is from an older Posthoc and may lack what the agent needs; ${rebuild}.`;
  if (missing.length === 0) return `The sandbox image ${image} is from another version of Posthoc; ${rebuild}.`;
  const shown = missing.length > 8 ? `${missing.slice(0, 8).join(', ')} and ${missing.length - 8} more` : missing.join(', ');
  return `The sandbox image ${image} lacks ${shown}; ${rebuild}.`;
}

export async function sandboxStatus(docker: Docker, image = SANDBOX_IMAGE): Promise<SandboxStatus> {
  let version: string;
  try {
    version = (await docker.version()).Version;
  } catch (error) {
    const e = explainDockerError(error, image);
    return { dockerAvailable: false, dockerVersion: null, image, imagePresent: false, message: e.message };
  }
  try {
    const info = await docker.getImage(image).inspect();
    const labels = info.Config?.Labels ?? {};
    if (labels[RECIPE_LABEL] !== sandboxRecipe()) {
      return {
        dockerAvailable: true,
        dockerVersion: version,
        image,
        imagePresent: false,
        message: staleImageMessage(image, labels[PACKAGES_LABEL]),
      };
    }
    return { dockerAvailable: true, dockerVersion: version, image, imagePresent: true, message: null };
  } catch {
    return {
      dockerAvailable: true,
      dockerVersion: version,
      image,
      imagePresent: false,
      message: `The sandbox image ${image} is missing. Build it once with "npx posthoc sandbox build".`,
    };
  }
}

/**
 * Builds the image; `onProgress` hears every phase and output line (the last is 'done', or 'failed' with the
 * reason before the promise rejects).
 */
export async function buildSandboxImage(
  docker: Docker,
  onProgress: (progress: BuildProgress) => void,
  image = SANDBOX_IMAGE,
  options: BuildOptions = {},
): Promise<void> {
  const report = new BuildReporter(onProgress);
  report.phase('starting', `building ${image}`);
  try {
    const spec = { packages: options.packages ?? PACKAGES, files: options.files ?? IMAGE_FILES, recipe: sandboxRecipe(options) };
    try {
      await docker.version();
    } catch (error) {
      throw explainDockerError(error, image);
    }
    const canDebootstrap =
      options.method !== 'dockerfile' && process.platform === 'linux' && process.getuid?.() === 0 && (await commandExists('debootstrap'));
    if (canDebootstrap) await buildWithDebootstrap(docker, report, image, spec);
    else await buildWithDockerfile(docker, report, image, spec);
    await docker.getImage(image).inspect().catch((error) => {
      throw new SandboxError('docker-failed', `The build finished but ${image} is not there: ${String(error)}`);
    });
  } catch (error) {
    report.phase('failed', error instanceof Error ? error.message : String(error));
    throw error;
  }
  report.phase('done', `built ${image}`);
}

interface BuildSpec {
  packages: readonly string[];
  files: readonly ImageFile[];
  recipe: string;
}

/**
 * At most one image build at a time in this process (the app's Build button). A build reports through
 * `onProgress`, at most every quarter second within a phase; its last report is 'done' or 'failed'.
 */
export class ImageBuilds {
  private current: Promise<void> | null = null;

  get running(): boolean {
    return this.current !== null;
  }

  /** Starts a build and returns at once: false (nothing started) while another build runs. */
  start(docker: Docker, image: string, onProgress: (progress: BuildProgress) => void, options: BuildOptions = {}): boolean {
    if (this.current) return false;
    let lastPhase = '';
    let lastAt = -Infinity;
    const throttled = (p: BuildProgress) => {
      if (p.phase === lastPhase && p.elapsedMs - lastAt < 250 && p.phase !== 'done' && p.phase !== 'failed') return;
      lastPhase = p.phase;
      lastAt = p.elapsedMs;
      onProgress(p);
    };
    this.current = buildSandboxImage(docker, throttled, image, options)
      .catch(() => undefined) // reported as the 'failed' progress
      .finally(() => {
        this.current = null;
      });
    return true;
  }

  /** Resolves when the running build (if any) has ended. */
  async settled(): Promise<void> {
    await this.current;
  }
}

/** The image builds of this process. */
export const imageBuilds = new ImageBuilds();

/** Shrinks an image's root: apt's lists and caches, documentation, manual pages and translations. */
const LEAN_PATHS = ['var/lib/apt/lists', 'var/cache/apt', 'var/cache/debconf/templates.dat-old', 'var/log', 'usr/share/doc', 'usr/share/man', 'usr/share/info', 'usr/share/locale'];
const leanShell = `rm -rf ${LEAN_PATHS.map((p) => `/${p}/*`).join(' ')}`;

/** The image's labels: the recipe (is the image current?) and the package list (what is missing?). */
function labels(spec: BuildSpec): Array<[string, string]> {
  return [
    [RECIPE_LABEL, spec.recipe],
    [PACKAGES_LABEL, spec.packages.join(',')],
  ];
}

async function buildWithDebootstrap(docker: Docker, report: BuildReporter, image: string, spec: BuildSpec): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'posthoc-sandbox-'));
  const rootfs = join(work, 'rootfs');
  try {
    report.phase('resolving', `debootstrap bookworm (${spec.packages.join(', ')})`);
    // debootstrap's own --include resolves dependencies only roughly (npm's tree, with its Provides, fails to
    // configure), so the packages come from apt-get in the new root.
    await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs], report);
    await aptInstallInChroot(rootfs, spec.packages, report);
    report.phase('finishing', 'removing caches and documentation');
    for (const path of LEAN_PATHS) await emptyDir(join(rootfs, path));
    for (const dir of ['workspace', 'run/posthoc', 'run/posthoc-claims', 'home/sandbox']) await mkdir(join(rootfs, dir), { recursive: true });
    await writeFile(join(rootfs, INIT_PATH.slice(1)), initScript());
    await chmod(join(rootfs, INIT_PATH.slice(1)), 0o755);
    await writeFile(join(rootfs, 'etc/posthoc-sandbox'), `${image}\n`);
    report.phase('finishing', 'compiling the claim library and the kernel watcher');
    await compileLibrary(work, 'claims-preload.c', claimsSource(), ['-ldl'], join(rootfs, CLAIMS_LIBRARY.slice(1)), report);
    await compileLibrary(work, 'posthoc-watch.c', watchSource(), [], join(rootfs, WATCH_LIBRARY.slice(1)), report);
    await writeFile(join(rootfs, 'etc/ld.so.preload'), `${CLAIMS_LIBRARY}\n`);
    for (const file of spec.files) {
      const target = join(rootfs, file.target.slice(1));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, imageFileContent(file));
      await chmod(target, file.mode);
    }
    report.phase('importing', `docker import → ${image}`);
    const [repo, tag] = image.split(':') as [string, string];
    const tar = spawn('tar', ['-C', rootfs, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const stream = (await docker.importImage(tar.stdout as never, {
      repo,
      tag,
      changes: [...labels(spec).map(([k, v]) => `LABEL ${k}=${v}`), `CMD ["${INIT_PATH}"]`],
    } as never)) as unknown as NodeJS.ReadableStream;
    await followProgress(docker, stream);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** apt-get install in the new root, with /proc mounted for the packages' scripts, and unmounted whatever happens. */
async function aptInstallInChroot(rootfs: string, packages: readonly string[], report: BuildReporter): Promise<void> {
  await run('mount', ['-t', 'proc', 'proc', join(rootfs, 'proc')], report);
  try {
    const env = 'DEBIAN_FRONTEND=noninteractive';
    report.phase('resolving', 'apt-get update');
    await run('chroot', [rootfs, 'apt-get', 'update'], report);
    report.phase('resolving', `apt-get install ${packages.join(' ')}`);
    // The root is thrown away if the build fails, so dpkg need not sync each file (a large part of the time).
    await run('chroot', [rootfs, 'env', env, 'apt-get', 'install', '-y', '--no-install-recommends', '-o', 'Dpkg::Options::=--force-unsafe-io', ...packages], report);
  } finally {
    await run('umount', ['-l', join(rootfs, 'proc')], report).catch(() => undefined);
  }
}

async function emptyDir(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const entry of entries) await rm(join(dir, entry), { recursive: true, force: true });
}

async function buildWithDockerfile(docker: Docker, report: BuildReporter, image: string, spec: BuildSpec): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'posthoc-sandbox-'));
  try {
    await writeFile(join(work, 'posthoc-init'), initScript());
    const fileSources = spec.files.map((_, i) => `file-${i}`);
    for (const [i, file] of spec.files.entries()) await writeFile(join(work, fileSources[i]!), imageFileContent(file));
    await writeFile(join(work, 'claims-preload.c'), claimsSource());
    await writeFile(join(work, 'posthoc-watch.c'), watchSource());
    await writeFile(
      join(work, 'Dockerfile'),
      [
        // The claim library and the watcher are compiled in a throwaway stage, so the image carries no compiler.
        'FROM debian:bookworm-slim AS claims',
        'RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev',
        'COPY claims-preload.c /src/claims-preload.c',
        'COPY posthoc-watch.c /src/posthoc-watch.c',
        `RUN ${LIBRARY_CC.join(' ')} -o /posthoc-claims.so /src/claims-preload.c -ldl`,
        `RUN ${LIBRARY_CC.join(' ')} -o /posthoc-watch.so /src/posthoc-watch.c`,
        'FROM debian:bookworm-slim',
        `RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${spec.packages.join(' ')} && ${leanShell}`,
        'RUN mkdir -p /workspace /run/posthoc /run/posthoc-claims /home/sandbox',
        `COPY posthoc-init ${INIT_PATH}`,
        `COPY --from=claims /posthoc-claims.so ${CLAIMS_LIBRARY}`,
        `COPY --from=claims /posthoc-watch.so ${WATCH_LIBRARY}`,
        `RUN echo ${CLAIMS_LIBRARY} > /etc/ld.so.preload`,
        ...spec.files.map((file, i) => `COPY ${fileSources[i]} ${file.target}`),
        ...spec.files.map((file) => `RUN chmod ${file.mode.toString(8)} ${file.target}`),
        `RUN chmod 755 ${INIT_PATH} && echo ${image} > /etc/posthoc-sandbox`,
        ...labels(spec).map(([k, v]) => `LABEL ${k}=${v}`),
        `CMD ["${INIT_PATH}"]`,
        '',
      ].join('\n'),
    );
    report.phase('installing', `docker build → ${image}`);
    const stream = await docker.buildImage({ context: work, src: ['Dockerfile', 'posthoc-init', 'claims-preload.c', 'posthoc-watch.c', ...fileSources] }, { t: image, forcerm: true });
    await followProgress(docker, stream, (event) => {
      const text = (event as { stream?: string }).stream;
      if (text) for (const line of text.split('\n')) if (line.trim()) report.line(line);
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const LIBRARY_CC = ['cc', '-shared', '-fPIC', '-O2', '-Wall'];

/** Compiles one of the image's C libraries on this (Linux) machine; each uses only calls bookworm's glibc has. */
async function compileLibrary(work: string, name: string, text: string, libs: string[], target: string, report: BuildReporter): Promise<void> {
  const source = join(work, name);
  await writeFile(source, text);
  const built = join(work, name.replace(/\.c$/, '.so'));
  await run(LIBRARY_CC[0]!, [...LIBRARY_CC.slice(1), '-o', built, source, ...libs], report).catch((error: unknown) => {
    throw new SandboxError(
      'docker-failed',
      `Could not compile the sandbox's ${name} (${error instanceof Error ? error.message : String(error)}). Install a C compiler (Debian: sudo apt install gcc libc6-dev) and build again.`,
    );
  });
  await copyFile(built, target);
  await chmod(target, 0o644);
}

function followProgress(docker: Docker, stream: NodeJS.ReadableStream, onEvent?: (e: unknown) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, output: Array<{ error?: string }>) => {
        const failed = error ?? output.find((o) => o.error);
        if (failed) reject(explainDockerError(failed instanceof Error ? failed : new Error(failed.error)));
        else resolve();
      },
      onEvent,
    );
  });
}

/** Runs a build tool; each output line goes to the reporter, and its last output is kept for the error. */
function run(command: string, args: string[], report: BuildReporter): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const partial = { stdout: '', stderr: '' };
    const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-2000);
      const lines = (partial[stream] + text).split(/\r?\n|\r/);
      partial[stream] = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) report.line(line);
    };
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new SandboxError('docker-failed', `${command} failed with exit code ${code}; its last output:\n${tail.trim()}`));
    });
  });
}

function commandExists(command: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    child.on('close', (code) => resolve(code === 0));
    child.on('error', () => resolve(false));
  });
}
