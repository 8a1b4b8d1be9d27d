// The one door to a shadow repository: objects and refs. Everything else in effects/fs reads and writes
// the repository through this class.
//
// Blobs and trees are written here as loose objects (zlib-deflated "type size\0content" under
// objects/xx/…, exactly what `git hash-object -w` writes), because isomorphic-git's writeBlob costs about
// 1 ms per object — 10 s for a 10,000-file folder. Between `startPacking` and `endPacking` (a first
// checkpoint) they go into packs instead (pack-file.ts): a file per ~32 MiB of objects instead of a file
// per object, and in a store that held no object before, no existence check per object. Packed objects are
// read here too, unless a `git gc` stored them as deltas. Commits are written and read here too (the same bytes
// isomorphic-git writes), and refs under refs/posthoc/ are written and read here as loose refs: a
// checkpoint in a fresh process (the CLI) then never loads isomorphic-git, whose import and first commit
// (its deflate starts Node's web streams) cost ~120 ms. isomorphic-git is imported on demand for the rest:
// creating the repository, a packed object or ref (someone ran `git gc` on the shadow repository), the
// list of refs. A blob can also be read in part (`streamBlob`, `readBlobHead`, `blobSize`): its
// size from the object's header and only as much content as asked, inflated as a stream (blob-stream.ts).
import * as fs from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createDeflate, deflateSync, inflateSync } from 'node:zlib';
import { streamLoose, streamPacked, type BlobVisitor } from './blob-stream';
import { PackSet, PackWriter, readEntryHeader, readPacked, type ObjectType } from './pack-file';

export type GitMode = '100644' | '100755' | '120000' | '040000' | '160000';
/** A tree entry as stored: `name` is the stored (escaped) name. */
export type TreeEntry = { name: string; mode: GitMode; oid: string };

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const AUTHOR = { name: 'Posthoc', email: 'checkpoints@posthoc.invalid', timezoneOffset: 0 };
const TREE_CACHE_LIMIT = 20_000;
const REFS = 'refs/posthoc';

/** isomorphic-git, loaded the first time something needs it. */
async function isoGit(): Promise<typeof import('isomorphic-git').default> {
  return (await import('isomorphic-git')).default;
}

export class ShadowRepo {
  private readonly madeDirs = new Set<string>();
  private readonly known = new Set<string>();
  private readonly trees = new Map<string, TreeEntry[]>();
  private readonly packs: PackSet;
  private packer: PackWriter | null = null;
  /** Packing into a store that held no object: nothing but `known` can be there already. */
  private fresh = false;
  /**
   * During a walk (`beginWalk`): the names in each object folder (the first two hex digits), read with one
   * readdir the first time one is asked about, instead of an existsSync per object — a walk in a fresh
   * process checks every folder's cached tree is still here. Dropped at `endWalk`, so a loose object
   * deleted by another process later is not taken for present.
   */
  private looseNames: Map<string, Set<string>> | null = null;

  constructor(readonly gitdir: string) {
    this.packs = new PackSet(join(gitdir, 'objects'));
  }

  /**
   * From now on blobs and trees go into packs (commits stay loose). Until `endPacking` returns they are
   * not readable, only known (`has`), so the caller writes no commit naming them before.
   */
  startPacking(): void {
    if (this.packer) return;
    this.fresh = isEmptyStore(join(this.gitdir, 'objects'));
    this.packer = new PackWriter(join(this.gitdir, 'objects'), (name) => this.packs.added(name));
  }

  /**
   * Back to loose objects. `keep`: writes out the objects collected since `startPacking`; else drops
   * those not written out yet (a failed walk: nothing will name them), and forgets them.
   */
  endPacking(keep: boolean): void {
    const packer = this.packer;
    this.packer = null;
    this.fresh = false;
    if (!packer) return;
    if (keep) packer.flush();
    else for (const oid of packer.drop()) this.known.delete(oid);
  }

  beginWalk(): void {
    this.looseNames = new Map();
  }

  endWalk(): void {
    this.looseNames = null;
  }

  private looseExists(oid: string): boolean {
    if (!this.looseNames) return fs.existsSync(this.objectPath(oid));
    const dir = oid.slice(0, 2);
    let names = this.looseNames.get(dir);
    if (!names) {
      try {
        names = new Set(fs.readdirSync(join(this.gitdir, 'objects', dir)));
      } catch {
        names = new Set();
      }
      this.looseNames.set(dir, names);
    }
    return names.has(oid.slice(2));
  }

  /** Creates the bare repository if it does not exist yet. */
  static async open(gitdir: string, description: string): Promise<ShadowRepo> {
    if (!fs.existsSync(join(gitdir, 'HEAD'))) {
      fs.mkdirSync(gitdir, { recursive: true });
      await (await isoGit()).init({ fs, gitdir, bare: true, defaultBranch: 'checkpoints' });
      fs.writeFileSync(join(gitdir, 'description'), `${description}\n`);
    }
    return new ShadowRepo(gitdir);
  }

  hash(type: 'blob' | 'tree', content: Buffer): string {
    return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
  }

  /** Writes a blob (if it is not there yet) and returns its id. */
  writeBlob(content: Buffer): string {
    const oid = this.hash('blob', content);
    this.writeLoose(oid, 'blob', content);
    return oid;
  }

  /** Writes a tree from entries already in git order; returns its id. */
  writeTree(entries: readonly TreeEntry[]): string {
    const content = serializeTree(entries);
    const oid = this.hash('tree', content);
    this.writeLoose(oid, 'tree', content);
    // Not while packing: a first checkpoint's trees are a copy of every entry of the folder, and nothing reads them before the walk ends.
    if (!this.packer && !this.trees.has(oid)) this.cacheTree(oid, [...entries]);
    return oid;
  }

  /**
   * Takes a blob read and deflated by a reader thread (file-readers.ts) into the pack being written: true
   * when the store has it now. False when it cannot (not packing, or the reader sent no content because it
   * deflated the same blob before and that one was not taken): the caller writes it the usual way.
   */
  addDeflatedBlob(oid: string, size: number, deflated: Buffer | null): boolean {
    if (this.has(oid)) return true;
    if (!this.packer || !deflated) return false;
    this.packer.addDeflated(oid, 'blob', size, deflated);
    this.known.add(oid);
    return true;
  }

  /**
   * Writes a large file's blob by streaming it once: each chunk feeds both the hash and the deflater, so
   * the object always matches its id. The header needs the size up front; returns null when the file
   * changed size while it was read (the caller treats it as not covered). `source` is a path or a file
   * descriptor the caller opened (and closes): the scanner opens a folder's files beneath it, never by path.
   */
  async writeBlobFromFile(source: string | number, size: number): Promise<{ oid: string; created: boolean } | null> {
    const hash = createHash('sha1').update(`blob ${size}\0`);
    const temp = this.tempPath('00'); // named once the hash is known
    const deflater = createDeflate({ level: 1 });
    const sink = fs.createWriteStream(temp, { mode: 0o444 });
    const written = pipeline(deflater, sink);
    deflater.write(Buffer.from(`blob ${size}\0`));
    let seen = 0;
    try {
      const stream =
        typeof source === 'number' ? fs.createReadStream('', { fd: source, autoClose: false, start: 0, highWaterMark: 1 << 20 }) : fs.createReadStream(source, { highWaterMark: 1 << 20 });
      for await (const chunk of stream) {
        const buffer = chunk as Buffer;
        hash.update(buffer);
        seen += buffer.length;
        if (!deflater.write(buffer)) await new Promise((resolve) => deflater.once('drain', resolve));
      }
      deflater.end();
      await written;
    } catch (error) {
      deflater.destroy();
      fs.rmSync(temp, { force: true });
      throw error;
    }
    const oid = hash.digest('hex');
    if (seen !== size || this.has(oid)) {
      fs.rmSync(temp, { force: true });
      return seen === size ? { oid, created: false } : null;
    }
    this.tempPath(oid); // makes the object's folder
    fs.renameSync(temp, this.objectPath(oid));
    this.known.add(oid);
    return { oid, created: true };
  }

  has(oid: string): boolean {
    if (this.known.has(oid)) return true;
    if (this.fresh) return false;
    // The packs already read first (no system call), then a loose file, then packs written since.
    if (this.packs.find(oid, false) || this.looseExists(oid) || this.packs.find(oid)) {
      this.known.add(oid);
      return true;
    }
    return false;
  }

  readTree(oid: string): TreeEntry[] {
    const cached = this.trees.get(oid);
    if (cached) return cached;
    if (oid === EMPTY_TREE) return [];
    const { type, content } = this.readObjectOrThrow(oid);
    if (type !== 'tree') throw new Error(`Checkpoint object ${oid} is a ${type}, not a tree.`);
    const entries = parseTree(content);
    this.cacheTree(oid, entries);
    return entries;
  }

  /** Reads a blob; packed objects go through isomorphic-git. */
  async readBlob(oid: string): Promise<Buffer> {
    const loose = this.readObject(oid);
    if (loose) {
      if (loose.type !== 'blob') throw new Error(`Checkpoint object ${oid} is a ${loose.type}, not a blob.`);
      return loose.content;
    }
    const { blob } = await (await isoGit()).readBlob({ fs, gitdir: this.gitdir, oid });
    return Buffer.from(blob);
  }

  /**
   * Hands a blob's content to `visit` in order, at most `maxBytes` of it, and returns its size (from the
   * object's header) and how much `visit` got. A loose object is inflated only as far as the reader needs,
   * so memory stays one chunk whatever the blob's size; a damaged one fails with DamagedObject; so is one
   * in a pack, unless stored as a delta (a `git gc` run on the shadow repository by hand): isomorphic-git
   * reads that one whole.
   */
  async streamBlob(oid: string, maxBytes: number, visit: BlobVisitor): Promise<{ size: number; read: number }> {
    const loose = await streamLoose(this.objectPath(oid), oid, 'blob', maxBytes, visit);
    if (loose) return loose;
    const at = this.packs.find(oid);
    if (at) {
      const path = this.packs.packPath(at.pack);
      const fd = fs.openSync(path, 'r');
      let entry;
      try {
        entry = readEntryHeader(fd, at.offset);
      } finally {
        fs.closeSync(fd);
      }
      if (entry) return streamPacked(path, entry.dataStart, entry, oid, 'blob', maxBytes, visit);
    }
    const { blob } = await (await isoGit()).readBlob({ fs, gitdir: this.gitdir, oid });
    const part = Buffer.from(blob.buffer, blob.byteOffset, Math.min(blob.length, Math.max(0, maxBytes)));
    if (part.length > 0) visit(part);
    return { size: blob.length, read: part.length };
  }

  /** A blob's size and at most its first `maxBytes` bytes (see streamBlob). */
  async readBlobHead(oid: string, maxBytes: number): Promise<{ size: number; content: Buffer }> {
    const parts: Buffer[] = [];
    const { size } = await this.streamBlob(oid, maxBytes, (chunk) => void parts.push(chunk));
    return { size, content: Buffer.concat(parts) };
  }

  /** A blob's size, from its object's header (no content is read). */
  async blobSize(oid: string): Promise<number> {
    return (await this.streamBlob(oid, 0, () => false)).size;
  }

  /** Flushes the given objects to disk, so a power cut cannot lose content an undo is about to overwrite. */
  makeDurable(oids: Iterable<string>): void {
    const packs = new Set<string>();
    for (const oid of oids) {
      let path = this.objectPath(oid);
      if (!fs.existsSync(path)) {
        const pack = this.packs.find(oid)?.pack;
        if (pack === undefined || packs.has(pack)) continue;
        packs.add(pack);
        path = this.packs.packPath(pack);
      }
      let fd: number | undefined;
      try {
        fd = fs.openSync(path, 'r');
        fs.fsyncSync(fd);
      } catch {
        // Gone, or not ours to open: nothing to flush.
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    }
  }

  /** Writes a commit (the bytes isomorphic-git's writeCommit writes for the same input) and returns its id. */
  async writeCommit(input: { tree: string; parents: string[]; message: string; at: Date }): Promise<string> {
    const who = `${AUTHOR.name} <${AUTHOR.email}> ${Math.floor(input.at.getTime() / 1000)} +0000`;
    const parents = input.parents.map((p) => `parent ${p}\n`).join('');
    const content = Buffer.from(`tree ${input.tree}\n${parents}author ${who}\ncommitter ${who}\n\n${normalizeNewlines(input.message)}`, 'utf8');
    const oid = createHash('sha1').update(`commit ${content.length}\0`).update(content).digest('hex');
    this.writeLoose(oid, 'commit', content);
    return oid;
  }

  async readCommit(oid: string): Promise<{ tree: string; parents: string[]; message: string }> {
    const loose = this.readObject(oid);
    if (!loose) {
      const { commit } = await (await isoGit()).readCommit({ fs, gitdir: this.gitdir, oid });
      return { tree: commit.tree, parents: commit.parent, message: commit.message };
    }
    if (loose.type !== 'commit') throw new Error(`Checkpoint object ${oid} is a ${loose.type}, not a commit.`);
    const text = loose.content.toString('utf8');
    const split = text.indexOf('\n\n');
    const headers = (split < 0 ? text : text.slice(0, split)).split('\n');
    const tree = headers.find((h) => h.startsWith('tree '))?.slice(5);
    if (tree === undefined) throw new Error(`Checkpoint object ${oid} is a commit without a tree.`);
    const parents = headers.filter((h) => h.startsWith('parent ')).map((h) => h.slice(7));
    return { tree, parents, message: normalizeNewlines(split < 0 ? '' : text.slice(split + 2)) };
  }

  /**
   * Points refs/posthoc/NAME at a commit: a loose ref, replaced atomically (its temporary file outside
   * refs/, so one a crash leaves behind is never listed as a ref).
   */
  async setRef(name: string, oid: string): Promise<void> {
    const file = join(this.gitdir, REFS, name);
    fs.mkdirSync(dirname(file), { recursive: true });
    const temp = join(this.gitdir, `posthoc-ref-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
    fs.writeFileSync(temp, `${oid}\n`);
    fs.renameSync(temp, file);
  }

  async getRef(name: string): Promise<string | null> {
    try {
      const value = fs.readFileSync(join(this.gitdir, REFS, name), 'utf8').trim();
      if (/^[0-9a-f]{40}$/.test(value)) return value;
    } catch {
      // Not a loose ref: packed (`git gc`), or none.
    }
    try {
      return await (await isoGit()).resolveRef({ fs, gitdir: this.gitdir, ref: `${REFS}/${name}` });
    } catch {
      return null;
    }
  }

  async deleteRef(name: string): Promise<void> {
    await (await isoGit()).deleteRef({ fs, gitdir: this.gitdir, ref: `${REFS}/${name}` }).catch(() => undefined);
  }

  /** Every ref under refs/posthoc/ with the commit it names. */
  async listRefs(): Promise<Array<{ name: string; oid: string }>> {
    const names = await (await isoGit()).listRefs({ fs, gitdir: this.gitdir, filepath: REFS });
    const out: Array<{ name: string; oid: string }> = [];
    for (const name of names) {
      const oid = await this.getRef(name);
      if (oid) out.push({ name, oid });
    }
    return out;
  }

  /** Ids of every loose object (for garbage collection). */
  listLoose(): string[] {
    const root = join(this.gitdir, 'objects');
    const out: string[] = [];
    for (const dir of fs.readdirSync(root)) {
      if (!/^[0-9a-f]{2}$/.test(dir)) continue;
      for (const name of fs.readdirSync(join(root, dir))) if (/^[0-9a-f]{38}$/.test(name)) out.push(dir + name);
    }
    return out;
  }

  deleteLoose(oid: string): void {
    fs.rmSync(this.objectPath(oid), { force: true });
    this.known.delete(oid);
    this.looseNames?.get(oid.slice(0, 2))?.delete(oid.slice(2));
    this.trees.delete(oid);
  }

  private writeLoose(oid: string, type: ObjectType, content: Buffer): void {
    if (this.has(oid)) return;
    if (this.packer && type !== 'commit') {
      this.packer.add(oid, type, content);
      this.known.add(oid);
      return;
    }
    const data = deflateSync(Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]), { level: 1 });
    const temp = this.tempPath(oid);
    try {
      fs.writeFileSync(temp, data, { mode: 0o444 });
    } catch (error) {
      // A full disk must not stay full of our own half-written object: the next start needs the room.
      fs.rmSync(temp, { force: true });
      throw error;
    }
    fs.renameSync(temp, this.objectPath(oid));
    this.known.add(oid);
  }

  /** A loose object, or a packed one not stored as a delta; null when neither. */
  private readObject(oid: string): { type: string; content: Buffer } | null {
    let raw: Buffer;
    try {
      raw = fs.readFileSync(this.objectPath(oid));
    } catch {
      const at = this.packs.find(oid);
      return at ? readPacked(this.packs.packPath(at.pack), at.offset, oid) : null;
    }
    const data = inflateSync(raw);
    const nul = data.indexOf(0);
    const [type] = data.subarray(0, nul).toString('latin1').split(' ');
    return { type: type!, content: data.subarray(nul + 1) };
  }

  private readObjectOrThrow(oid: string): { type: string; content: Buffer } {
    const found = this.readObject(oid);
    if (found) return found;
    throw new Error(
      `Checkpoint object ${oid} is missing from ${this.gitdir}. The shadow repository was changed outside Posthoc (repacked or pruned).`,
    );
  }

  private objectPath(oid: string): string {
    return join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
  }

  private tempPath(oid: string): string {
    const dir = join(this.gitdir, 'objects', oid.slice(0, 2));
    if (!this.madeDirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      this.madeDirs.add(dir);
    }
    return join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  }

  private cacheTree(oid: string, entries: TreeEntry[]): void {
    if (this.trees.size >= TREE_CACHE_LIMIT) {
      // Drop the oldest half: trees are immutable, so this only costs re-reads.
      let n = 0;
      for (const key of this.trees.keys()) {
        this.trees.delete(key);
        if (++n >= TREE_CACHE_LIMIT / 2) break;
      }
    }
    this.trees.set(oid, entries);
  }
}

/** As isomorphic-git stores a commit message: no CR, no newline first, exactly one at the end. */
function normalizeNewlines(text: string): string {
  return `${text.replace(/\r/g, '').replace(/^\n+/, '').replace(/\n+$/, '')}\n`;
}

/** Git's tree format: "mode name\0" + 20 raw bytes per entry; folders are written "40000". */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(Buffer.from(`${e.mode === '040000' ? '40000' : e.mode} ${e.name}\0`, 'utf8'), Buffer.from(e.oid, 'hex'));
  }
  return Buffer.concat(parts);
}

export function parseTree(content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let i = 0;
  while (i < content.length) {
    const space = content.indexOf(0x20, i);
    const nul = content.indexOf(0, space);
    const rawMode = content.subarray(i, space).toString('latin1');
    const name = content.subarray(space + 1, nul).toString('utf8');
    const oid = content.subarray(nul + 1, nul + 21).toString('hex');
    entries.push({ name, mode: normalizeMode(rawMode), oid });
    i = nul + 21;
  }
  return entries;
}

function normalizeMode(raw: string): GitMode {
  switch (raw) {
    case '40000':
    case '040000':
      return '040000';
    case '100644':
    case '100755':
    case '120000':
    case '160000':
      return raw;
    case '100664':
      return '100644';
    default:
      throw new Error(`Unknown tree entry mode ${raw} in a checkpoint.`);
  }
}

/** Git orders tree entries by name bytes, comparing a folder's name as if it ended with '/'. */
export function compareEntries(a: TreeEntry, b: TreeEntry): number {
  const ka = a.mode === '040000' ? `${a.name}/` : a.name;
  const kb = b.mode === '040000' ? `${b.name}/` : b.name;
  if (ka === kb) return 0;
  // Byte order of UTF-8 equals code point order; JS strings compare UTF-16 units, which differ only
  // above U+FFFF against U+E000–U+FFFF, so compare buffers when either name leaves the BMP's low range.
  if (/[\uD800-\uFFFF]/.test(ka) || /[\uD800-\uFFFF]/.test(kb)) return Buffer.compare(Buffer.from(ka), Buffer.from(kb));
  return ka < kb ? -1 : 1;
}

/** An objects folder with no object in it: no loose object folder, no pack. */
function isEmptyStore(objects: string): boolean {
  let names: string[];
  try {
    names = fs.readdirSync(objects);
  } catch {
    return true;
  }
  for (const name of names) {
    if (/^[0-9a-f]{2}$/.test(name)) return false;
    if (name === 'pack' && fs.readdirSync(join(objects, name)).some((f) => f.endsWith('.pack'))) return false;
  }
  return true;
}
