// Which folders may be granted to a task. A granted folder is bind-mounted writable into the sandbox,
// so granting a system folder hands the agent the host: /etc holds accounts, /proc/1/root is the whole
// file system, /run holds the Docker socket. One pure rule, called where a task's grants are made, so
// the CLI, the app and the web host refuse the same folders with the same words. The caller resolves
// the path (realpath) and the protected paths; this module does no I/O, so every case can be tested.
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/** What the rule needs to know about the machine Posthoc runs on. */
export type GrantHost = {
  platform: NodeJS.Platform;
  /** The home folder of the person Posthoc runs as. */
  home: string;
  /** Posthoc runs as root (uid 0): root's own projects under /root may then be granted. */
  isRoot: boolean;
};

export type GrantCandidate = {
  /** The folder as the person named it (shown in the message). */
  requested: string;
  /** The same folder with every symbolic link resolved: what would really be mounted. */
  real: string;
};

/**
 * 'itself': the folder may not be granted, but a folder inside it may (a project in /var/www).
 * 'tree': neither the folder nor anything inside it may be granted.
 */
type Scope = 'itself' | 'tree';

type Rule = { path: string; scope: Scope; why: string; asRoot?: Scope };

const PROGRAMS = 'installed programs and libraries that every user and service runs';
const SOCKETS = "running services' sockets and state, the Docker socket among them";

/** Unix-like hosts (Linux, macOS). macOS's own folders are listed too: on Linux they simply do not exist. */
const POSIX_RULES: readonly Rule[] = [
  { path: '/proc', scope: 'tree', why: "the kernel's view of every running process (/proc/1/root is the whole file system)" },
  { path: '/sys', scope: 'tree', why: "the kernel's and the hardware's settings" },
  { path: '/dev', scope: 'tree', why: 'the devices: disks, memory, terminals' },
  { path: '/run', scope: 'tree', why: SOCKETS },
  { path: '/var/run', scope: 'tree', why: SOCKETS },
  { path: '/boot', scope: 'tree', why: 'the kernel and the boot loader' },
  { path: '/etc', scope: 'tree', why: "the system's configuration: accounts, password hashes, services" },
  { path: '/root', scope: 'tree', asRoot: 'itself', why: "the administrator's home folder, with its keys and shell start-up files" },
  { path: '/bin', scope: 'tree', why: PROGRAMS },
  { path: '/sbin', scope: 'tree', why: PROGRAMS },
  { path: '/lib', scope: 'tree', why: PROGRAMS },
  { path: '/lib32', scope: 'tree', why: PROGRAMS },
  { path: '/lib64', scope: 'tree', why: PROGRAMS },
  { path: '/libx32', scope: 'tree', why: PROGRAMS },
  { path: '/usr', scope: 'tree', why: PROGRAMS },
  { path: '/snap', scope: 'tree', why: PROGRAMS },
  { path: '/var', scope: 'itself', why: "the system's changing data: logs, caches, services' databases" },
  { path: '/var/lib', scope: 'tree', why: "system services' data: package databases, Docker's images and containers" },
  { path: '/var/log', scope: 'tree', why: "the system's logs, the record of what happened on this machine" },
  { path: '/tmp', scope: 'itself', why: "every program's temporary files and sockets" },
  { path: '/home', scope: 'itself', why: "every person's home folder" },
  // macOS
  { path: '/System', scope: 'tree', why: 'the operating system' },
  { path: '/Library', scope: 'tree', why: "the system's and every app's settings and data" },
  { path: '/Applications', scope: 'tree', why: PROGRAMS },
  { path: '/private', scope: 'itself', why: "the system's configuration and changing data" },
  { path: '/private/etc', scope: 'tree', why: "the system's configuration: accounts, password hashes, services" },
  { path: '/private/var', scope: 'itself', why: "the system's changing data: logs, caches, services' databases" },
  { path: '/private/var/run', scope: 'tree', why: SOCKETS },
  { path: '/private/var/db', scope: 'tree', why: "system services' databases" },
  { path: '/private/tmp', scope: 'itself', why: "every program's temporary files and sockets" },
  { path: '/Users', scope: 'itself', why: "every person's home folder" },
  { path: '/Volumes', scope: 'itself', why: 'every mounted disk' },
];

const WINDOWS_RULES: readonly Rule[] = [
  { path: 'C:\\Windows', scope: 'tree', why: 'the operating system' },
  { path: 'C:\\Program Files', scope: 'tree', why: PROGRAMS },
  { path: 'C:\\Program Files (x86)', scope: 'tree', why: PROGRAMS },
  { path: 'C:\\ProgramData', scope: 'tree', why: "every app's shared settings and data" },
  { path: 'C:\\Users', scope: 'itself', why: "every person's home folder" },
];

/** Folders inside the person's home that hold keys and credentials: never a project. */
const HOME_SECRETS = ['.ssh', '.gnupg', '.aws', '.kube', '.docker'];

/**
 * Why this folder may not be granted, as a sentence that also says what to do; null when it may.
 * `protectedPaths` (already resolved) are Posthoc's own data folder and the Docker socket: a grant may
 * neither contain them nor lie inside them.
 */
export function grantRefusal(candidate: GrantCandidate, host: GrantHost, protectedPaths: readonly string[] = []): string | null {
  const path = host.platform === 'win32' ? win32 : posix;
  const fold = host.platform === 'win32' || host.platform === 'darwin' ? (p: string) => p.toLowerCase() : (p: string) => p;
  const norm = (p: string) => fold(path.resolve(p));
  const inside = (root: string, p: string) => {
    const r = norm(root);
    const c = norm(p);
    return c === r || c.startsWith(r.endsWith(path.sep) ? r : r + path.sep);
  };
  const leadsTo = norm(candidate.real) === norm(candidate.requested) ? '' : ` (it leads to ${candidate.real})`;
  const refuse = (reason: string, advice = 'Grant a project folder instead, for example one in your home folder.') =>
    `Posthoc will not grant ${candidate.requested}${leadsTo}: ${reason}. ${advice}`;

  // Both the path as named and as resolved: a link must not smuggle a system folder in, and a system
  // path must not be let through because it happens to resolve somewhere harmless (/proc/self/cwd).
  const seen = [...new Set([path.resolve(candidate.requested), candidate.real])];

  for (const p of seen) {
    if (norm(p) === norm(path.parse(path.resolve(p)).root)) return refuse('it is the whole file system', 'Grant a project folder instead.');
  }
  for (const guarded of protectedPaths) {
    if (seen.some((p) => inside(p, guarded) || inside(guarded, p))) {
      return refuse(
        `it contains or lies inside ${guarded}, which the sandbox must never reach (Posthoc's own data or the Docker socket)`,
        'Grant a folder that does not include it.',
      );
    }
  }

  const rules: Rule[] = [
    ...(host.platform === 'win32' ? WINDOWS_RULES : POSIX_RULES),
    ...HOME_SECRETS.map((name): Rule => ({ path: path.join(host.home, name), scope: 'tree', why: 'keys and credentials' })),
  ];
  const scopeOf = (rule: Rule) => (host.isRoot && rule.asRoot ? rule.asRoot : rule.scope);
  // Most precise reason first: the folder itself, then what it lies inside, then what it contains.
  for (const p of seen) {
    if (norm(p) === norm(host.home)) {
      return refuse('it is your whole home folder, with your keys, settings and shell start-up files', 'Grant one project folder inside it instead.');
    }
    const exact = rules.find((rule) => norm(p) === norm(rule.path));
    if (exact) return refuse(`it is ${exact.why}`, scopeOf(exact) === 'itself' ? 'Grant one project folder inside it instead.' : undefined);
  }
  for (const p of seen) {
    const within = rules.find((rule) => scopeOf(rule) === 'tree' && inside(rule.path, p));
    if (within) return refuse(`it is inside ${within.path}, ${within.why}`);
  }
  // A folder above a system folder or the home folder exposes it just the same (/data/users holds a home).
  for (const p of seen) {
    if (inside(p, host.home)) return refuse(`it contains your home folder ${host.home}`);
    const held = rules.find((rule) => inside(p, rule.path));
    if (held) return refuse(`it contains ${held.path}, ${held.why}`);
  }
  return null;
}

/** The facts of the machine this process runs on. */
export function currentGrantHost(home = homedir()): GrantHost {
  return { platform: process.platform, home, isRoot: process.getuid?.() === 0 };
}
