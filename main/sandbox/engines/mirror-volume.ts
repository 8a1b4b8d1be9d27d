// A granted folder's mirror on a remote engine (issue 30, docs/ARCHITECTURE.md "Remote engines"): a named volume
// the sandbox mounts where a local one bind-mounts the folder, read and written by a helper container of the
// sandbox image (network none, read-only root, nothing of the action's running in it) through the engine's own
// connection: a manifest (path, kind, git blob id) computed in the volume, files put, read back and removed, as
// JSON lines (content in base64) on the exec stream's stdin and stdout. Nothing here follows a symbolic link: a link the action's code planted in
// the volume is listed and sent back as a link, and a path under one is neither read nor written.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { PassThrough } from 'node:stream';

export const MIRROR_LABEL = 'dev.posthoc.mirror';
export const MIRROR_MOUNT = '/posthoc-mirror';

export type MirrorKind = 'file' | 'exec' | 'link';
/** One file or symbolic link of a folder: its kind and its git blob id (a link's blob is its target). */
export type MirrorEntry = { kind: MirrorKind; oid: string };
/** Path (relative, "/"-separated) → entry. Folders are implied by their files. */
export type Manifest = Map<string, MirrorEntry>;
export type MirrorFile = { path: string; kind: MirrorKind; content: Buffer };

/** This machine's id (systemd's /etc/machine-id), else its host name: mirrors of two machines' folders never share a volume. */
export function machineId(): string {
  try {
    return readFileSync('/etc/machine-id', 'utf8').trim() || hostname();
  } catch {
    return hostname();
  }
}

/**
 * The mirror volume of a folder of this machine: one per folder, kept between tasks, so a second task on the
 * same folder sends only what changed since. Named by a hash: the folder's path never reaches the engine.
 */
export function mirrorVolumeName(folder: string, machine = machineId()): string {
  return `posthoc-mirror-${createHash('sha256').update(`${machine}\0${folder}`).digest('hex').slice(0, 32)}`;
}

/** A relative path that stays inside the folder: no "..", no ".", no empty part, not absolute, no NUL. */
export function safeRelative(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\0') || path.includes('\\')) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

// Lists the volume without following links: JSON lines {p, k, o}; names that are not UTF-8 are skipped and said on stderr.
const MANIFEST_PY = String.raw`
import os, sys, json, hashlib, stat
root = sys.argv[1]
out = sys.stdout
def blob(data):
    return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()
def walk(rel):
    d = os.path.join(root, rel) if rel else root
    with os.scandir(d) as it:
        for e in sorted(it, key=lambda e: e.name):
            p = e.name if not rel else rel + '/' + e.name
            try:
                p.encode('utf-8')
            except UnicodeEncodeError:
                sys.stderr.write('skipped a name that is not UTF-8\n'); continue
            st = os.lstat(e.path)
            if stat.S_ISLNK(st.st_mode):
                out.write(json.dumps({'p': p, 'k': 'link', 'o': blob(os.fsencode(os.readlink(e.path)))}) + '\n')
            elif stat.S_ISDIR(st.st_mode):
                walk(p)
            elif stat.S_ISREG(st.st_mode):
                fd = os.open(e.path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, 'rb') as f:
                    data = f.read()
                out.write(json.dumps({'p': p, 'k': 'exec' if st.st_mode & 0o100 else 'file', 'o': blob(data)}) + '\n')
walk('')
`;

// Writes the named paths to stdout as JSON lines {p, k, c (base64)}; a path with a link among its parents (or gone) is skipped and said on stderr.
const READ_PY = String.raw`
import os, sys, json, stat, base64
root = sys.argv[1]
paths = json.loads(sys.stdin.read())
def parents_plain(p):
    cur = root
    for part in p.split('/')[:-1]:
        cur = os.path.join(cur, part)
        if not stat.S_ISDIR(os.lstat(cur).st_mode):
            return False
    return True
for p in paths:
    full = os.path.join(root, p)
    try:
        if not parents_plain(p):
            sys.stderr.write('refused ' + json.dumps(p) + ': a parent is not a folder\n'); continue
        st = os.lstat(full)
    except FileNotFoundError:
        sys.stderr.write('gone ' + json.dumps(p) + '\n'); continue
    if stat.S_ISLNK(st.st_mode):
        k, data = 'link', os.fsencode(os.readlink(full))
    elif stat.S_ISREG(st.st_mode):
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, 'rb') as f:
            data = f.read()
        k = 'exec' if st.st_mode & 0o100 else 'file'
    else:
        sys.stderr.write('refused ' + json.dumps(p) + ': not a file or link\n'); continue
    sys.stdout.write(json.dumps({'p': p, 'k': k, 'c': base64.b64encode(data).decode('ascii')}) + '\n')
    sys.stdout.flush()
`;

// Writes files and links from JSON lines {p, k, c (base64)} on stdin, parents made as needed, never through a
// link (a parent that is not a folder is refused), each file written to a temporary name and renamed; owned by UID:GID.
const PUT_PY = String.raw`
import os, sys, json, stat, base64
root, uid, gid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bad = []
for line in sys.stdin:
    if not line.strip(): continue
    e = json.loads(line)
    parts = e['p'].split('/')
    cur = root
    ok = True
    for part in parts[:-1]:
        cur = os.path.join(cur, part)
        try:
            st = os.lstat(cur)
            if not stat.S_ISDIR(st.st_mode): ok = False; break
        except FileNotFoundError:
            os.mkdir(cur, 0o755); os.chown(cur, uid, gid)
    if not ok:
        bad.append(e['p']); continue
    full = os.path.join(root, e['p'])
    tmp = os.path.join(cur, '.posthoc-mirror-tmp')
    data = base64.b64decode(e['c'])
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    if e['k'] == 'link':
        os.symlink(os.fsdecode(data), tmp)
        os.lchown(tmp, uid, gid)
    else:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if e['k'] == 'exec' else 0o644)
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
        os.chown(tmp, uid, gid)
        os.chmod(tmp, 0o755 if e['k'] == 'exec' else 0o644)
    if os.path.isdir(full) and not os.path.islink(full):
        import shutil; shutil.rmtree(full)
    os.rename(tmp, full)
if bad:
    sys.stderr.write('refused ' + json.dumps(bad) + '\n'); sys.exit(3)
`;

// Removes the named paths (files or links, never through a link), then folders left empty above them.
const REMOVE_PY = String.raw`
import os, sys, json, stat
root = sys.argv[1]
for p in json.loads(sys.stdin.read()):
    parts = p.split('/')
    cur = root
    ok = True
    for part in parts[:-1]:
        cur = os.path.join(cur, part)
        try:
            if not stat.S_ISDIR(os.lstat(cur).st_mode): ok = False; break
        except FileNotFoundError:
            ok = False; break
    if not ok: continue
    try:
        os.unlink(os.path.join(root, p))
    except FileNotFoundError:
        pass
    for i in range(len(parts) - 1, 0, -1):
        try:
            os.rmdir(os.path.join(root, *parts[:i]))
        except OSError:
            break
`;

/**
 * How a container mounts the mirror: NoCopy, or Docker fills an empty volume from the image's files at the target
 * and gives its root the image's owner (root), so the action user could not write the folder.
 */
export function mirrorMount(volume: string, target: string, readOnly = false): Docker.MountSettings {
  // dockerode's type asks for Labels and DriverConfig too; Docker takes NoCopy alone.
  const options = { NoCopy: true } as Docker.MountSettings['VolumeOptions'];
  return { Type: 'volume', Source: volume, Target: target, ReadOnly: readOnly, VolumeOptions: options };
}

export class MirrorVolume {
  private constructor(
    private readonly docker: Docker,
    readonly volume: string,
    private readonly container: Docker.Container,
  ) {}

  /**
   * The volume (made if missing) and a helper container over it. `owner`: "UID:GID" the files put there belong to
   * (the action user, container-policy.ts sandboxUser).
   */
  static async open(docker: Docker, input: { image: string; volume: string; owner: string }): Promise<MirrorVolume> {
    // Made if missing; the one a task before left is taken as it is (its manifest says what it holds).
    await docker.createVolume({ Name: input.volume, Labels: { [MIRROR_LABEL]: '1' } });
    const container = await docker.createContainer({
      Image: input.image,
      Entrypoint: ['sleep', 'infinity'],
      Cmd: [],
      User: '0:0',
      Labels: { [MIRROR_LABEL]: input.volume },
      NetworkDisabled: true,
      HostConfig: {
        NetworkMode: 'none',
        ReadonlyRootfs: true,
        Mounts: [mirrorMount(input.volume, MIRROR_MOUNT)],
        // Reads every file whoever wrote it, and gives what it puts to the action user.
        CapDrop: ['ALL'],
        CapAdd: ['DAC_OVERRIDE', 'DAC_READ_SEARCH', 'CHOWN', 'FOWNER'],
        SecurityOpt: ['no-new-privileges'],
        AutoRemove: false,
      },
    });
    await container.start();
    const mirror = new MirrorVolume(docker, input.volume, container);
    mirror.owner = input.owner;
    // The volume's root is the granted folder's: the action user's, as the folder is (Docker makes it root's).
    const [uid, gid] = input.owner.split(':');
    await mirror.python('import os, sys; os.chown(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])); os.chmod(sys.argv[1], 0o755)', null, [uid!, gid!]);
    return mirror;
  }

  private owner = '0:0';

  /** Runs python3 in the helper with `stdin`; stdout as bytes, stderr as text, and the exit code. */
  private async python(script: string, stdin: string | null, args: string[] = []): Promise<{ stdout: Buffer; stderr: string }> {
    const exec = await this.container.exec({ Cmd: ['python3', '-c', script, MIRROR_MOUNT, ...args], AttachStdin: stdin !== null, AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: stdin !== null });
    const out = new PassThrough();
    const err = new PassThrough();
    const chunks: Buffer[] = [];
    let stderr = '';
    out.on('data', (c: Buffer) => chunks.push(c));
    err.on('data', (c: Buffer) => (stderr += c.toString()));
    this.docker.modem.demuxStream(stream, out, err);
    if (stdin !== null) stream.end(stdin);
    await new Promise<void>((resolve, reject) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', reject);
    });
    const { ExitCode } = await exec.inspect();
    if (ExitCode !== 0) throw new Error(`The mirror helper failed (exit ${ExitCode}): ${stderr.trim().slice(-2000)}`);
    return { stdout: Buffer.concat(chunks), stderr };
  }

  async manifest(): Promise<Manifest> {
    const { stdout } = await this.python(MANIFEST_PY, null);
    const manifest: Manifest = new Map();
    for (const line of stdout.toString('utf8').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line) as { p: string; k: MirrorKind; o: string };
      if (safeRelative(e.p)) manifest.set(e.p, { kind: e.k, oid: e.o });
    }
    return manifest;
  }

  /** Writes files and links into the volume (parents made as needed), owned by the action user. */
  async put(files: readonly MirrorFile[]): Promise<void> {
    if (files.length === 0) return;
    for (const f of files) if (!safeRelative(f.path)) throw new Error(`Refused to mirror "${f.path}": not a path inside the folder.`);
    const [uid, gid] = this.owner.split(':');
    const lines = files.map((f) => `${JSON.stringify({ p: f.path, k: f.kind, c: f.content.toString('base64') })}\n`).join('');
    await this.python(PUT_PY, lines, [uid!, gid!]);
  }

  /** Removes files and links (a path under a link is left alone). */
  async remove(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.python(REMOVE_PY, JSON.stringify(paths.filter(safeRelative)));
  }

  /** The named files and links as they are in the volume now; a path under a link, or gone, is not among them (said in `refused`). */
  async read(paths: readonly string[]): Promise<{ files: MirrorFile[]; refused: string }> {
    if (paths.length === 0) return { files: [], refused: '' };
    const { stdout, stderr } = await this.python(READ_PY, JSON.stringify(paths.filter(safeRelative)));
    const files: MirrorFile[] = [];
    for (const line of stdout.toString('utf8').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line) as { p: string; k: MirrorKind; c: string };
      if (safeRelative(e.p)) files.push({ path: e.p, kind: e.k, content: Buffer.from(e.c, 'base64') });
    }
    return { files, refused: stderr };
  }

  /** Ends the helper container; the volume stays (a second task on the folder sends only what changed). */
  async close(): Promise<void> {
    await this.container.remove({ force: true }).catch(() => undefined);
  }

  /** Removes the volume too. */
  async destroy(): Promise<void> {
    await this.close();
    await this.docker.getVolume(this.volume).remove({ force: true }).catch(() => undefined);
  }
}

