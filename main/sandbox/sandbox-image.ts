// The sandbox image posthoc-sandbox:<version>: a minimal Debian with Python 3 and requests. It is built
// offline from Debian's package archive with debootstrap where that is available (Linux, as root),
// otherwise with `docker build` from debian:bookworm-slim.
import type Docker from 'dockerode';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, copyFile, mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pkg from '../../package.json';
import { packageRoot } from '../platform/package-root';
import type { SandboxStatus } from '../../shared/domain';
import { INIT_PATH } from './container-policy';
import { explainDockerError, SandboxError } from './docker-client';
import { INIT_SCRIPT as initScript } from './image/posthoc-init';

export const SANDBOX_IMAGE = `posthoc-sandbox:${pkg.version}`;
const PACKAGES = ['python3-minimal', 'python3-requests', 'ca-certificates', 'git'];

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
];
const IMAGE_DIR = join('main', 'sandbox', 'image');

export interface BuildOptions {
  /** Debian packages to install; the default set when omitted. */
  packages?: readonly string[];
  /** Files to copy in; IMAGE_FILES when omitted. */
  files?: readonly ImageFile[];
}
/** Identifies what went into the image: a changed recipe makes `sandbox status` ask for a rebuild. */
export const RECIPE_LABEL = 'dev.posthoc.recipe';
/** The claim library (claims.ts): loaded into every process of the sandbox through /etc/ld.so.preload. */
const CLAIMS_SOURCE_PATH = join('main', 'sandbox', 'image', 'claims-preload.c');
const CLAIMS_LIBRARY = '/usr/local/lib/posthoc-claims.so';

function imageFileContent(file: ImageFile): Buffer {
  const root = packageRoot();
  if (!root) throw new SandboxError('docker-failed', `Posthoc's own files are missing (${IMAGE_DIR}); reinstall Posthoc.`);
  if (!file.target.startsWith('/') || file.target.split('/').includes('..') || file.source.includes('/')) {
    throw new SandboxError('docker-failed', `Bad sandbox image file ${file.source} → ${file.target}.`);
  }
  return readFileSync(join(root, IMAGE_DIR, file.source));
}

function claimsSource(): string {
  const root = packageRoot();
  if (!root) throw new SandboxError('docker-failed', `Posthoc's own files are missing (${CLAIMS_SOURCE_PATH}); reinstall Posthoc.`);
  return readFileSync(join(root, CLAIMS_SOURCE_PATH), 'utf8');
}

let recipe: string | undefined;
/** Identifies what went into the image: a changed recipe makes `sandbox status` ask for a rebuild. */
export function sandboxRecipe(options: BuildOptions = {}): string {
  if (options.packages || options.files) return computeRecipe(options.packages ?? PACKAGES, options.files ?? IMAGE_FILES);
  recipe ??= computeRecipe(PACKAGES, IMAGE_FILES);
  return recipe;
}

function computeRecipe(packages: readonly string[], files: readonly ImageFile[]): string {
  const hash = createHash('sha256').update(JSON.stringify({ PACKAGES: packages, initScript, claims: claimsSource() }));
  for (const file of files) {
    hash.update(JSON.stringify({ target: file.target, mode: file.mode, source: file.source }));
    hash.update(imageFileContent(file));
  }
  return hash.digest('hex').slice(0, 16);
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
    if (info.Config?.Labels?.[RECIPE_LABEL] !== sandboxRecipe()) {
      return {
        dockerAvailable: true,
        dockerVersion: version,
        image,
        imagePresent: false,
        message: `The sandbox image ${image} is from an older Posthoc. Rebuild it with "npx posthoc sandbox build".`,
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

export async function buildSandboxImage(
  docker: Docker,
  log: (line: string) => void,
  image = SANDBOX_IMAGE,
  options: BuildOptions = {},
): Promise<void> {
  const spec = { packages: options.packages ?? PACKAGES, files: options.files ?? IMAGE_FILES, recipe: sandboxRecipe(options) };
  try {
    await docker.version();
  } catch (error) {
    throw explainDockerError(error, image);
  }
  const canDebootstrap = process.platform === 'linux' && process.getuid?.() === 0 && (await commandExists('debootstrap'));
  if (canDebootstrap) await buildWithDebootstrap(docker, log, image, spec);
  else await buildWithDockerfile(docker, log, image, spec);
  await docker.getImage(image).inspect().catch((error) => {
    throw new SandboxError('docker-failed', `The build finished but ${image} is not there: ${String(error)}`);
  });
  log(`Built ${image}.`);
}

interface BuildSpec {
  packages: readonly string[];
  files: readonly ImageFile[];
  recipe: string;
}

async function buildWithDebootstrap(docker: Docker, log: (line: string) => void, image: string, spec: BuildSpec): Promise<void> {
  const PACKAGES = spec.packages;
  const work = await mkdtemp(join(tmpdir(), 'posthoc-sandbox-'));
  const rootfs = join(work, 'rootfs');
  try {
    log(`debootstrap bookworm (${PACKAGES.join(', ')}) into ${rootfs} — about a minute…`);
    await run('debootstrap', ['--variant=minbase', `--include=${PACKAGES.join(',')}`, 'bookworm', rootfs], log);
    await rm(join(rootfs, 'var/cache/apt/archives'), { recursive: true, force: true });
    for (const dir of ['workspace', 'run/posthoc', 'run/posthoc-claims', 'home/sandbox']) await mkdir(join(rootfs, dir), { recursive: true });
    await writeFile(join(rootfs, INIT_PATH.slice(1)), initScript);
    await chmod(join(rootfs, INIT_PATH.slice(1)), 0o755);
    await writeFile(join(rootfs, 'etc/posthoc-sandbox'), `${image}\n`);
    log('compiling the claim library');
    await compileClaimsLibrary(work, join(rootfs, CLAIMS_LIBRARY.slice(1)), log);
    await writeFile(join(rootfs, 'etc/ld.so.preload'), `${CLAIMS_LIBRARY}\n`);
    for (const file of spec.files) {
      const target = join(rootfs, file.target.slice(1));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, imageFileContent(file));
      await chmod(target, file.mode);
    }
    log(`docker import → ${image}`);
    const [repo, tag] = image.split(':') as [string, string];
    const tar = spawn('tar', ['-C', rootfs, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const stream = (await docker.importImage(tar.stdout as never, {
      repo,
      tag,
      changes: [`LABEL ${RECIPE_LABEL}=${spec.recipe}`, `CMD ["${INIT_PATH}"]`],
    } as never)) as unknown as NodeJS.ReadableStream;
    await followProgress(docker, stream);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function buildWithDockerfile(docker: Docker, log: (line: string) => void, image: string, spec: BuildSpec): Promise<void> {
  const PACKAGES = spec.packages;
  const work = await mkdtemp(join(tmpdir(), 'posthoc-sandbox-'));
  try {
    await writeFile(join(work, 'posthoc-init'), initScript);
    const fileSources = spec.files.map((_, i) => `file-${i}`);
    for (const [i, file] of spec.files.entries()) await writeFile(join(work, fileSources[i]!), imageFileContent(file));
    await writeFile(join(work, 'claims-preload.c'), claimsSource());
    await writeFile(
      join(work, 'Dockerfile'),
      [
        // The claim library is compiled in a throwaway stage, so the image carries no compiler.
        'FROM debian:bookworm-slim AS claims',
        'RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev',
        'COPY claims-preload.c /src/claims-preload.c',
        `RUN ${CLAIMS_CC.join(' ')} -o /posthoc-claims.so /src/claims-preload.c -ldl`,
        'FROM debian:bookworm-slim',
        `RUN apt-get update && apt-get install -y --no-install-recommends ${PACKAGES.join(' ')} && rm -rf /var/lib/apt/lists/*`,
        'RUN mkdir -p /workspace /run/posthoc /run/posthoc-claims /home/sandbox',
        `COPY posthoc-init ${INIT_PATH}`,
        `COPY --from=claims /posthoc-claims.so ${CLAIMS_LIBRARY}`,
        `RUN echo ${CLAIMS_LIBRARY} > /etc/ld.so.preload`,
        ...spec.files.map((file, i) => `COPY ${fileSources[i]} ${file.target}`),
        ...spec.files.map((file) => `RUN chmod ${file.mode.toString(8)} ${file.target}`),
        `RUN chmod 755 ${INIT_PATH} && echo ${image} > /etc/posthoc-sandbox`,
        `LABEL ${RECIPE_LABEL}=${spec.recipe}`,
        `CMD ["${INIT_PATH}"]`,
        '',
      ].join('\n'),
    );
    log(`docker build → ${image}`);
    const stream = await docker.buildImage({ context: work, src: ['Dockerfile', 'posthoc-init', 'claims-preload.c', ...fileSources] }, { t: image });
    await followProgress(docker, stream, (event) => {
      const line = (event as { stream?: string }).stream?.trim();
      if (line) log(line);
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const CLAIMS_CC = ['cc', '-shared', '-fPIC', '-O2', '-Wall'];

/** Compiles the claim library on this (Linux) machine; it uses only calls bookworm's glibc has. */
async function compileClaimsLibrary(work: string, target: string, log: (line: string) => void): Promise<void> {
  const source = join(work, 'claims-preload.c');
  await writeFile(source, claimsSource());
  const built = join(work, 'posthoc-claims.so');
  await run(CLAIMS_CC[0]!, [...CLAIMS_CC.slice(1), '-o', built, source, '-ldl'], log).catch((error: unknown) => {
    throw new SandboxError(
      'docker-failed',
      `Could not compile the sandbox's claim library (${error instanceof Error ? error.message : String(error)}). Install a C compiler (Debian: sudo apt install gcc libc6-dev) and build again.`,
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

function run(command: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const collect = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else {
        log(tail);
        reject(new SandboxError('docker-failed', `${command} failed with exit code ${code}; its last output is above.`));
      }
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
