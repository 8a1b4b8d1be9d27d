// Reads the claim log the sandbox's preload library (image/claims-preload.c) wrote during one action and
// maps it to the granted folders (claims.ts). One line per call that changed a path:
//   OP \t INO \t SIZE \t MTIME_NS \t ISDIR \t PATH \n
// OP is W (opened for writing: what it finally held is unknown until a later record), C (closed after
// writing: the stamp is what it held), N (a name now holds what the call made: the stamp), G (gone).
// PATH is absolute with '%', TAB, LF and CR percent-encoded; one cut at the library's length limit ends
// in "%!" and names no path we can know, so it is dropped: a change nobody claimed is kept as the
// person's, the side that never destroys an edit. Any other line that does not parse is ignored too
// (the last line of a log cut at its size limit, or lines forged by action code).
import type { FileStamp, FolderClaims, LibraryClaims, PathClaim } from './claims';

export type ClaimMount = { mountPath: string; workspace: string };

const DECIMAL = /^\d{1,20}$/;
const SIGNED_DECIMAL = /^-?\d{1,19}$/;

export function parseClaimsLog(log: Buffer, mounts: ClaimMount[], truncated: boolean): LibraryClaims {
  const folders: FolderClaims[] = mounts.map((m) => ({ workspace: m.workspace, paths: new Map<string, PathClaim>() }));
  // Longest mount path first, so a folder granted inside another takes its own paths.
  const bases = mounts
    .map((m, index) => ({ base: m.mountPath.replace(/\/+$/, ''), folder: folders[index]! }))
    .sort((a, b) => b.base.length - a.base.length);

  // latin1 keeps every byte as one char, so splitting never cuts a UTF-8 sequence we decode later.
  const lines = log.toString('latin1').split('\n');
  lines.pop(); // text after the last newline is an unfinished line (or the empty tail)
  for (const line of lines) {
    const record = parseLine(line);
    if (!record) continue;
    const target = locate(record.path, bases);
    if (!target) continue;
    target.folder.paths.set(target.relative, record.claim);
  }
  return { complete: !truncated, folders };
}

type ParsedLine = { path: string; claim: PathClaim };

function parseLine(line: string): ParsedLine | null {
  const fields = line.split('\t');
  if (fields.length !== 6) return null;
  const [op, ino, size, mtimeNs, isDir, rawPath] = fields as [string, string, string, string, string, string];
  if (!DECIMAL.test(ino) || !DECIMAL.test(size) || !SIGNED_DECIMAL.test(mtimeNs)) return null;
  if (isDir !== '0' && isDir !== '1') return null;
  if (!rawPath.startsWith('/') || rawPath.endsWith('%!')) return null;
  const path = decodePath(rawPath);
  if (path === null) return null;
  const dir = isDir === '1';
  const stamp: FileStamp = { ino: Number(ino), size: Number(size), mtimeNs: BigInt(mtimeNs).toString() };
  switch (op) {
    case 'W':
      return { path, claim: { final: null, dir } };
    case 'C':
    case 'N':
      return { path, claim: { final: stamp, dir } };
    case 'G':
      return { path, claim: { final: 'absent', dir } };
    default:
      return null;
  }
}

/** '%XX' to its byte, then the bytes read as UTF-8; null for a stray '%' or a NUL. */
function decodePath(raw: string): string | null {
  if (raw.includes('\0')) return null;
  if (!raw.includes('%')) return Buffer.from(raw, 'latin1').toString('utf8');
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const hex = raw.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null;
    const byte = parseInt(hex, 16);
    if (byte === 0) return null;
    out += String.fromCharCode(byte);
    i += 2;
  }
  return Buffer.from(out, 'latin1').toString('utf8');
}

/** The folder a path lies in and the path inside it; null outside every folder and for a folder's root. */
function locate(
  path: string,
  bases: Array<{ base: string; folder: FolderClaims }>,
): { folder: FolderClaims; relative: string } | null {
  for (const { base, folder } of bases) {
    if (path === base) return null;
    if (!path.startsWith(`${base}/`)) continue;
    const relative = path.slice(base.length + 1);
    if (relative === '' || relative.split('/').some((part) => part === '' || part === '.' || part === '..')) return null;
    return { folder, relative };
  }
  return null;
}
