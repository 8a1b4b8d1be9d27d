// The host's only way into a granted folder's contents: every open, create, rename and remove happens
// relative to a folder's file descriptor opened beneath the granted folder, never following a link (the
// beneath addon, native/beneath.c: openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or a component-by-
// component O_NOFOLLOW walk). A folder the sandbox swaps for a symbolic link between a check and a use is
// then met as a link and refused, instead of steering the host's write or read outside the folder.
//
// Where the addon is not built (Windows, an install without a C compiler) the same API works by path,
// checking each folder on the way with lstat first. That is racy against a process changing the folder
// meanwhile, and safe enough only because no sandbox process runs while the host checkpoints or restores a
// folder (the action's container is frozen or stopped then).
import * as fs from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import { loadAddon } from '../native-addon';
import { packageRoot } from '../../platform/package-root';
import { checkRelative, PathOutsideWorkspace, resolveInsideSync } from './path-guard';

type Addon = {
  openBeneath(rootFd: number, rel: string, flags: number, mode: number): number;
  walkBeneath(rootFd: number, rel: string, flags: number, mode: number): number;
  openAt(dirFd: number, name: string, flags: number, mode: number): number;
  mkdirAt(dirFd: number, name: string, mode: number): void;
  unlinkAt(dirFd: number, name: string, isDir: boolean): void;
  renameAt(dirFd: number, from: string, to: string): void;
  symlinkAt(target: Buffer, dirFd: number, name: string): void;
  chownAt(dirFd: number, name: string, uid: number, gid: number): void;
  statAt(dirFd: number, name: string): EntryStat | null;
  readlinkAt(dirFd: number, name: string): Buffer;
  readNames(dirFd: number): string[];
  handleAt(dirFd: number, name: string): { type: number; handle: Buffer; ctimeSec?: number; ctimeNsec?: number } | null;
};

/** What lstat says of one entry. */
export type EntryStat = { mode: number; uid: number; gid: number; size: number; ino: number; dev: number };

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, S_IFMT, S_IFDIR, S_IFREG, S_IFLNK } = fs.constants;
// Not defined on Windows, where the fallback has no links to refuse and nothing to block on.
const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

export const isDir = (st: { mode: number } | null): boolean => st !== null && (st.mode & S_IFMT) === S_IFDIR;
export const isRegular = (st: { mode: number } | null): boolean => st !== null && (st.mode & S_IFMT) === S_IFREG;
export const isLink = (st: { mode: number } | null): boolean => st !== null && (st.mode & S_IFMT) === S_IFLNK;

const ADDON = join('main', 'effects', 'fs', 'native', 'build', 'Release', 'posthoc_beneath.node');
let loaded: { addon: Addon | null; reason: string } | undefined;

function addon(): Addon | null {
  loaded ??= (() => {
    const found = loadAddon<Addon>(ADDON, 'beneath addon', 'POSTHOC_NATIVE_BENEATH');
    return found.addon ? { addon: found.addon, reason: 'beneath the folder (file descriptors, no link followed)' } : { addon: null, reason: `by path (${found.reason})` };
  })();
  return loaded.addon;
}

/** How checkpoints and restores reach into a folder, for status output. */
export function beneathDescription(): string {
  addon();
  return loaded!.reason;
}

/** Whether this host can name a granted folder's paths by the kernel's file handles (the sandbox's kernel watch needs it). */
export function namesByHandle(): boolean {
  return typeof addon()?.handleAt === 'function';
}

/** The addon's raw calls, for its own tests. */
export function beneathAddon(): Addon | null {
  return addon();
}

/** One folder inside a granted folder, opened without following a link; every call names one of its entries. */
export interface FolderDir {
  /** Where it is, relative to the granted folder ('' for the granted folder itself). */
  readonly rel: string;
  /** The folder itself (fstat of its handle). */
  self(): EntryStat;
  /** One entry, not following a link; null when it is not there. */
  stat(name: string): EntryStat | null;
  mkdir(name: string, mode: number): void;
  remove(name: string, isDir: boolean): void;
  /** Renames an entry over another in this same folder. */
  rename(from: string, to: string): void;
  symlink(target: Buffer, name: string): void;
  /** A new file, opened for writing; fails when anything (a link too) already has the name. */
  createFile(name: string, mode: number): number;
  /** Changes the owner of an entry (of a link itself, not what it points to). */
  chown(name: string, uid: number, gid: number): void;
  readlink(name: string): Buffer;
  names(): string[];
  close(): void;
}

export type OpenedFile = { fd: number; stat: fs.Stats };

/** An entry's kernel file handle ("TYPE:HEX") and when it last changed (ctime in ns since the epoch; null: unknown). */
export type EntryHandle = { handle: string; ctimeNs: bigint | null };

function entryHandle(got: { type: number; handle: Buffer; ctimeSec?: number; ctimeNsec?: number }): EntryHandle {
  const ctimeNs = got.ctimeSec === undefined || got.ctimeNsec === undefined ? null : BigInt(got.ctimeSec) * 1_000_000_000n + BigInt(got.ctimeNsec);
  return { handle: `${got.type}:${got.handle.toString('hex')}`, ctimeNs };
}

/** What a granted folder is: its device and inode (decimal strings: 64-bit values). */
export type FolderIdentity = { dev: string; ino: string };

/** A granted folder that is no longer the folder granted: moved, replaced, or a link on its way now. */
export class GrantMoved extends Error {
  readonly code = 'EGRANTMOVED';
}

/**
 * Opens an absolute folder path without following a link anywhere on it, from "/" down (a grant's path is
 * resolved once, when it is granted, so it holds none): a folder swapped for a link since is refused.
 */
function openRootNoFollow(root: string): number {
  if (!isAbsolute(root)) throw new GrantMoved(`The granted folder ${root} is not an absolute path.`);
  const rel = normalize(root).replace(/^\/+/, '').replace(/\/+$/, '');
  const native = addon();
  try {
    if (native) {
      const top = fs.openSync('/', O_RDONLY | O_DIRECTORY);
      try {
        return rel === '' ? fs.openSync('/', O_RDONLY | O_DIRECTORY) : native.openBeneath(top, rel, O_RDONLY | O_DIRECTORY, 0);
      } finally {
        fs.closeSync(top);
      }
    }
    // By path, checking each component first: racy, but no sandbox process runs while this is used.
    let at = '/';
    for (const part of rel.split('/').filter(Boolean)) {
      at = join(at, part);
      if (fs.lstatSync(at).isSymbolicLink()) throw Object.assign(new Error(`${at} is a symbolic link`), { code: 'ELOOP' });
    }
    return fs.openSync(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EXDEV') {
      throw new GrantMoved(
        `The granted folder ${root} now lies behind a symbolic link (it, or a folder on its way, was replaced by one): Posthoc will not read or write it. If the folder it leads to is the right one, grant that folder in a new task.`,
      );
    }
    throw error;
  }
}

/** The folder's identity, read with no link followed on its path (GrantMoved when one is there). */
export function folderIdentity(root: string): FolderIdentity {
  const fd = openRootNoFollow(root);
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    return { dev: st.dev.toString(), ino: st.ino.toString() };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * At most `limit` bytes from the start of the regular file at `rel` in the granted folder `root` (checked to
 * be `identity`), read through a handle opened beneath it with no link followed; null when nothing, a link, a
 * folder or anything but a regular file is there. GrantMoved when the folder itself is no longer the one granted.
 */
export function readHeadBeneath(root: string, identity: FolderIdentity | null, rel: string, limit: number): Buffer | null {
  const folder = GrantedFolder.open(root, identity);
  try {
    const opened = folder.openFile(rel);
    if (opened === null || opened === 'link') return null;
    try {
      if (!opened.stat.isFile()) return null;
      const buffer = Buffer.alloc(limit);
      let got = 0;
      for (;;) {
        const n = fs.readSync(opened.fd, buffer, got, limit - got, got);
        if (n === 0 || (got += n) >= limit) break;
      }
      return buffer.subarray(0, got);
    } finally {
      fs.closeSync(opened.fd);
    }
  } finally {
    folder.close();
  }
}

/** A granted folder, held open while the host works in it. */
export class GrantedFolder {
  private constructor(
    readonly root: string,
    private fd: number | null,
    private readonly native: Addon | null,
  ) {}

  /**
   * Opens the granted folder itself, no link followed on its path, and checks it is `expected` (the folder
   * granted): a folder moved or replaced since is refused with GrantMoved, and nothing is read or written.
   */
  static open(root: string, expected?: FolderIdentity | null): GrantedFolder {
    const native = addon();
    const fd = openRootNoFollow(root);
    try {
      if (expected) {
        const st = fs.fstatSync(fd, { bigint: true });
        if (st.dev.toString() !== expected.dev || st.ino.toString() !== expected.ino) {
          throw new GrantMoved(
            `The granted folder ${root} is no longer the folder that was granted (device ${expected.dev}, inode ${expected.ino}; now device ${st.dev}, inode ${st.ino}): it was moved or replaced since. Posthoc will not read or write it. If the folder there now is the right one, grant it in a new task.`,
          );
        }
      }
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
    if (native) return new GrantedFolder(root, fd, native);
    fs.closeSync(fd);
    return new GrantedFolder(root, null, null);
  }

  /**
   * The path to list the folder by: on Linux its open handle (/proc/self/fd/N, which names exactly the folder
   * opened and checked, whatever happens to its path meanwhile), else its path.
   */
  get listRoot(): string {
    return this.fd !== null && process.platform === 'linux' ? `/proc/self/fd/${this.fd}` : this.root;
  }

  /**
   * For reading the folder's files in worker threads: its open handle (valid in every thread of the process)
   * and where the addon is, so a worker opens each file beneath it exactly as `openFile` does; null without
   * the addon (files are then opened by path, in this thread only).
   */
  get workerAccess(): { rootFd: number; addonPath: string } | null {
    const root = packageRoot();
    return this.fd !== null && this.native && root ? { rootFd: this.fd, addonPath: join(root, ADDON) } : null;
  }

  /** Whether this folder is reached through file descriptors (the addon) or by path (the fallback). */
  get beneath(): boolean {
    return this.native !== null;
  }

  /**
   * The folder at `rel`, or null when nothing or a file is there (or on the way). A symbolic link there or
   * on the way is refused with PathOutsideWorkspace.
   */
  openDir(rel: string): FolderDir | null {
    if (rel !== '') checkRelative(rel);
    if (this.native) {
      const fd = this.open(rel, O_RDONLY | O_DIRECTORY);
      return fd === null ? null : new FdDir(this.native, fd, rel);
    }
    const abs = rel === '' ? this.root : resolveInsideSync(this.root, rel);
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) throw refused(rel, 'ELOOP');
    return st?.isDirectory() ? new PathDir(abs, rel) : null;
  }

  /** Runs `fn` with the folder at `rel` (null when it is not there), and closes it. */
  withDir<T>(rel: string, fn: (dir: FolderDir | null) => T): T {
    const dir = this.openDir(rel);
    try {
      return fn(dir);
    } finally {
      dir?.close();
    }
  }

  /**
   * Opens the file at `rel` for reading and fstats the handle: null when it is gone, 'link' when it (or a
   * folder on the way) is now a symbolic link. The caller checks the handle is the regular file it expects
   * (O_NONBLOCK: a pipe swapped in opens at once instead of waiting for a writer).
   */
  openFile(rel: string): OpenedFile | null | 'link' {
    checkRelative(rel);
    let fd: number | null;
    try {
      if (this.native) fd = this.open(rel, O_RDONLY | O_NONBLOCK);
      else fd = openOrNull(resolveInsideSync(this.root, rel), O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
    } catch (error) {
      if (error instanceof PathOutsideWorkspace || (error as NodeJS.ErrnoException).code === 'ELOOP') return 'link';
      throw error;
    }
    if (fd === null) return null;
    try {
      return { fd, stat: fs.fstatSync(fd) };
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /** The target of the symbolic link at `rel`, read relative to its folder. */
  readlink(rel: string): Buffer {
    const parts = checkRelative(rel);
    const name = parts.pop()!;
    const dir = this.openDir(parts.join('/'));
    if (!dir) throw Object.assign(new Error(`ENOENT: ${rel} is gone`), { code: 'ENOENT' });
    try {
      return dir.readlink(name);
    } finally {
      dir.close();
    }
  }

  /**
   * The kernel's file handle of the entry at `rel` ('' the folder itself) as "TYPE:HEX", the form the sandbox's
   * watcher reports (watch-log.ts), and when it last changed (ctime, ns); null when it is gone, a link is on the
   * way, or the file system has no handles. Needs the addon: null without it.
   */
  handle(rel: string): EntryHandle | null {
    if (!this.native || this.fd === null) return null;
    try {
      let got;
      if (rel === '') {
        got = this.native.handleAt(this.fd, '');
      } else {
        const parts = checkRelative(rel);
        const name = parts.pop()!;
        const dir = this.openDir(parts.join('/'));
        if (!dir) return null;
        try {
          got = this.native.handleAt((dir as FdDir).descriptor, name);
        } finally {
          dir.close();
        }
      }
      return got ? entryHandle(got) : null;
    } catch (error) {
      if (error instanceof PathOutsideWorkspace) return null;
      throw error;
    }
  }

  /**
   * handle() of many paths at once: each folder on the way is opened once (a node_modules of 20,000 files is
   * a thousand opens, not twenty thousand). Paths that are gone, or behind a link, map to null.
   */
  handles(rels: Iterable<string>): Map<string, EntryHandle | null> {
    const out = new Map<string, EntryHandle | null>();
    const byDir = new Map<string, string[]>();
    for (const rel of rels) {
      if (out.has(rel)) continue;
      out.set(rel, null);
      if (rel === '') continue;
      const cut = rel.lastIndexOf('/');
      const dir = cut < 0 ? '' : rel.slice(0, cut);
      let names = byDir.get(dir);
      if (!names) byDir.set(dir, (names = []));
      names.push(rel.slice(cut + 1));
    }
    if (out.has('')) out.set('', this.handle(''));
    if (!this.native) return out;
    for (const [dirRel, names] of byDir) {
      let dir: FolderDir | null;
      try {
        dir = this.openDir(dirRel);
      } catch (error) {
        if (error instanceof PathOutsideWorkspace) continue;
        throw error;
      }
      if (!dir) continue;
      try {
        for (const name of names) {
          const got = this.native.handleAt((dir as FdDir).descriptor, name);
          if (got) out.set(dirRel === '' ? name : `${dirRel}/${name}`, entryHandle(got));
        }
      } finally {
        dir.close();
      }
    }
    return out;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private open(rel: string, flags: number): number | null {
    if (this.fd === null) throw new Error(`The folder ${this.root} was closed.`);
    try {
      return this.native!.openBeneath(this.fd, rel, flags, 0);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A file on the way: nothing is at `rel` (a link on the way is reported as ELOOP by the addon).
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      if (code === 'ELOOP' || code === 'EXDEV') throw refused(rel, code);
      throw error;
    }
  }
}

function refused(rel: string, code: string): PathOutsideWorkspace {
  const why = code === 'EXDEV' ? 'it leaves the folder' : 'it or a folder on its way is a symbolic link (swapped while Posthoc was working?)';
  return Object.assign(new PathOutsideWorkspace(`Refusing path ${JSON.stringify(rel)}: ${why}.`), { code });
}

function openOrNull(path: string, flags: number): number | null {
  try {
    return fs.openSync(path, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

class FdDir implements FolderDir {
  constructor(
    private readonly n: Addon,
    private fd: number,
    readonly rel: string,
  ) {}
  get descriptor(): number {
    return this.fd;
  }
  self(): EntryStat {
    const st = fs.fstatSync(this.fd);
    return { mode: st.mode, uid: st.uid, gid: st.gid, size: st.size, ino: st.ino, dev: st.dev };
  }
  stat(name: string): EntryStat | null {
    return this.n.statAt(this.fd, name);
  }
  mkdir(name: string, mode: number): void {
    this.n.mkdirAt(this.fd, name, mode);
  }
  remove(name: string, isDir: boolean): void {
    this.n.unlinkAt(this.fd, name, isDir);
  }
  rename(from: string, to: string): void {
    this.n.renameAt(this.fd, from, to);
  }
  symlink(target: Buffer, name: string): void {
    this.n.symlinkAt(target, this.fd, name);
  }
  createFile(name: string, mode: number): number {
    return this.n.openAt(this.fd, name, O_WRONLY | O_CREAT | O_EXCL, mode);
  }
  chown(name: string, uid: number, gid: number): void {
    this.n.chownAt(this.fd, name, uid, gid);
  }
  readlink(name: string): Buffer {
    return this.n.readlinkAt(this.fd, name);
  }
  names(): string[] {
    return this.n.readNames(this.fd);
  }
  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }
}

/** The fallback: the same calls by path (see the header for why that is acceptable there). */
class PathDir implements FolderDir {
  constructor(
    private readonly abs: string,
    readonly rel: string,
  ) {}
  private at(name: string): string {
    checkRelative(name);
    if (name.includes('/')) throw new PathOutsideWorkspace(`Refusing name ${JSON.stringify(name)}: it must be one name.`);
    return join(this.abs, name);
  }
  self(): EntryStat {
    return fs.lstatSync(this.abs);
  }
  stat(name: string): EntryStat | null {
    try {
      return fs.lstatSync(this.at(name), { throwIfNoEntry: false }) ?? null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw error;
    }
  }
  mkdir(name: string, mode: number): void {
    fs.mkdirSync(this.at(name), { mode });
  }
  remove(name: string, isDir: boolean): void {
    if (isDir) fs.rmdirSync(this.at(name));
    else fs.unlinkSync(this.at(name));
  }
  rename(from: string, to: string): void {
    fs.renameSync(this.at(from), this.at(to));
  }
  symlink(target: Buffer, name: string): void {
    fs.symlinkSync(target, this.at(name));
  }
  createFile(name: string, mode: number): number {
    return fs.openSync(this.at(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  }
  chown(name: string, uid: number, gid: number): void {
    fs.lchownSync(this.at(name), uid, gid);
  }
  readlink(name: string): Buffer {
    return fs.readlinkSync(this.at(name), { encoding: 'buffer' });
  }
  names(): string[] {
    return fs.readdirSync(this.abs);
  }
  close(): void {}
}
