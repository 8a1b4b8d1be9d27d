// The container policy: one place to read everything a sandbox is allowed. Pure, so tests can read it too.
import type Docker from 'dockerode';
import type { WorkspaceGrant } from '../../shared/domain';
import { sandboxSeccompProfile } from './seccomp-profile';

export const SANDBOX_LABEL = 'dev.posthoc.sandbox';
export const TASK_LABEL = 'dev.posthoc.task';
/** The process that started the container; when it is gone, the container is an orphan. */
export const OWNER_LABEL = 'dev.posthoc.owner-pid';

export type SandboxLimits = { memoryBytes: number; nanoCpus: number; pids: number };
export const DEFAULT_LIMITS: SandboxLimits = { memoryBytes: 1024 * 1024 * 1024, nanoCpus: 1_000_000_000, pids: 256 };

/** PID 1 of the image: reaps orphans, survives `kill -9 -1`, relays 127.0.0.1:RELAY_PORT to the gateway. */
export const INIT_PATH = '/usr/local/bin/posthoc-init';
export const RELAY_PORT = 8080;
export const GATEWAY_MOUNT = '/run/posthoc';
/** Where the action runner finds the host's control socket (see action-channel.ts). */
export const CONTROL_MOUNT = '/run/posthoc-control';
export const SANDBOX_HOME = '/home/sandbox';
export const CLAIMS_MOUNT = '/run/posthoc-claims';
/** Where matplotlib's backend in the image writes an action's figures (image/posthoc_figures.py); not a granted folder. */
export const FIGURES_MOUNT = '/run/posthoc-figures';
/**
 * The task's own environment: a host folder per task (in the data folder, never a granted one) mounted
 * read-write, where pip's user installs, npm's global prefix and both caches go. It lives as long as the
 * task and goes with it, so installing a package needs no undo.
 */
export const TASK_ENV_MOUNT = '/posthoc-env';
/** Debian's default PATH, which the image (docker import) does not set itself. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * pip and npm pointed at the gateway's package routes (gateway/packages), installing into the task's
 * environment. pip installs with --user into PYTHONUSERBASE; Debian marks its Python EXTERNALLY-MANAGED
 * (PEP 668), which refuses even user installs unless PIP_BREAK_SYSTEM_PACKAGES is set: a user install
 * into the task's own folder breaks nothing of the image (read-only anyway), so it is set.
 */
export function packageEnv(withTaskEnv: boolean): string[] {
  const gateway = `http://127.0.0.1:${RELAY_PORT}`;
  const index = [
    `PIP_INDEX_URL=${gateway}/pip/simple/`,
    'PIP_DISABLE_PIP_VERSION_CHECK=1',
    'PIP_NO_INPUT=1',
    `NPM_CONFIG_REGISTRY=${gateway}/npm/`,
    'NPM_CONFIG_AUDIT=false',
    'NPM_CONFIG_FUND=false',
    'NPM_CONFIG_UPDATE_NOTIFIER=false',
    // The gateway bounds its own waits on the upstream (gateway/packages/upstream.ts DEADLINES: an index page
    // within 45 s, a file within 30 min, never a 30 s stall) and answers every failure in words: pip and npm
    // wait for it a little longer than that, and npm retries a failed answer once after a second, not for minutes.
    'PIP_TIMEOUT=1860',
    'NPM_CONFIG_FETCH_TIMEOUT=1860000',
    'NPM_CONFIG_FETCH_RETRIES=1',
    'NPM_CONFIG_FETCH_RETRY_MINTIMEOUT=1000',
    'NPM_CONFIG_FETCH_RETRY_MAXTIMEOUT=1000',
  ];
  if (!withTaskEnv) return [...index, `PATH=${SYSTEM_PATH}`];
  const env = TASK_ENV_MOUNT;
  return [
    ...index,
    'PIP_USER=1',
    'PIP_BREAK_SYSTEM_PACKAGES=1',
    `PYTHONUSERBASE=${env}/python`,
    `PIP_CACHE_DIR=${env}/cache/pip`,
    `NPM_CONFIG_PREFIX=${env}/npm`,
    `NPM_CONFIG_CACHE=${env}/cache/npm`,
    `NODE_PATH=${env}/npm/lib/node_modules`,
    // Debian packages apt-get unpacked into the task's environment (image/posthoc_apt.py), after the image's own.
    `PATH=${env}/python/bin:${env}/npm/bin:${SYSTEM_PATH}:${env}/debian/usr/local/bin:${env}/debian/usr/bin:${env}/debian/bin`,
    // Toolchains' own caches and work folders in the task's environment, not the 64 MiB home.
    `GOPATH=${env}/go`,
    `GOCACHE=${env}/cache/go-build`,
    `CARGO_HOME=${env}/cargo`,
  ];
}

/** The uid actions run as when Posthoc runs as root and no granted folder says whose the work is. */
export const FALLBACK_SANDBOX_UID = 10001;

/**
 * The capabilities PID 1 and the action runner keep (as uid 0 of the container, with no user namespace):
 * enough to start each action as the action user and end every process it leaves, and the two a root-owned
 * folder's action keeps (CHOWN, FOWNER: root as on a machine inside its container, so tar -x and cp -a
 * work; posthoc_init.py ROOT_ACTION_CAPS). Any other action gets none: the runner empties the bounding set
 * before it changes uid.
 */
export const RUNNER_CAPABILITIES = ['SETUID', 'SETGID', 'SETPCAP', 'KILL', 'CHOWN', 'FOWNER'] as const;

/**
 * Held by PID 1 only while it sets up the kernel's watch of the granted folders (fanotify with file-system
 * marks, image/posthoc-watch.c; marking reads the folder, which may be the person's own, mode 0700), then
 * dropped from every set before anything else starts: the runner, the relay and every action start without
 * them.
 */
export const WATCH_CAPABILITIES = ['SYS_ADMIN', 'DAC_READ_SEARCH'] as const;

/**
 * Who actions run as: the person's own uid (files it writes are theirs). When Posthoc itself runs as
 * root (a server, a container, CI), the owner of the granted folder — root too when the folder is
 * root's, since the work is root's, but then with every capability gone, so the kernel's ordinary
 * permission checks apply as to anyone; with no folder, an unprivileged uid. Actions never share a uid
 * with PID 1 and the runner unless the folder is root's, and those two are not dumpable either way.
 */
export function sandboxUser(hostUid: number, hostGid: number, folderOwner?: { uid: number; gid: number }): string {
  if (hostUid !== 0) return `${hostUid}:${hostGid}`;
  if (folderOwner) return `${folderOwner.uid}:${folderOwner.gid}`;
  return `${FALLBACK_SANDBOX_UID}:${FALLBACK_SANDBOX_UID}`;
}

/** A granted folder's owner and mode bits, as stat gives them. */
export type FolderOwnership = { path: string; uid: number; gid: number; mode: number };

/**
 * Why the action user could not write the granted folders, or null when it can: checked before the first
 * action, so a task never runs into a PermissionError on every write and then reports "done". The action user
 * has no capability (not even a root-owned folder's), so only the folder's own permission bits count: owner,
 * group or other write and search permission.
 */
export function writeRefusal(hostUid: number, hostGid: number, folders: readonly FolderOwnership[]): string | null {
  const [uid, gid] = actionIds(hostUid, hostGid, folders);
  const unwritable = folders.filter((f) => !canWrite(f, uid, gid));
  if (unwritable.length === 0) return null;
  const names = unwritable.map((f) => `${f.path} (owner uid ${f.uid})`).join(', ');
  if (hostUid === 0) {
    return (
      `Posthoc runs as root, so actions run as the owner of the first granted folder (uid ${uid}), with no capabilities; ` +
      `they could not write ${names}. Grant folders of one owner in a task, or give them one owner: sudo chown -R ${uid}:${gid} FOLDER.`
    );
  }
  return `Actions run as you (uid ${uid}) and could not write ${names}. Grant a folder you can write, or make it yours: sudo chown -R ${uid}:${gid} FOLDER.`;
}

function actionIds(hostUid: number, hostGid: number, folders: readonly FolderOwnership[]): [number, number] {
  const [uid, gid] = sandboxUser(hostUid, hostGid, folders[0]).split(':').map(Number) as [number, number];
  return [uid, gid];
}

function canWrite(f: FolderOwnership, uid: number, gid: number): boolean {
  const bits = f.uid === uid ? (f.mode >> 6) & 7 : f.gid === gid ? (f.mode >> 3) & 7 : f.mode & 7;
  return (bits & 3) === 3;
}

/**
 * Where granted folders appear: each at /workspace/NAME, a lone one too, so a project that takes its name from
 * its folder (a CMakeLists naming its target after it, a Cargo workspace, a Go module path) sees its own name.
 * Tasks recorded before kept their lone folder at /workspace; their grants carry that path and keep it.
 */
export function mountPaths(names: string[]): string[] {
  return names.map((n) => `/workspace/${n}`);
}

/** Where actions start: inside a lone folder, or above several. */
export function workingDir(workspaces: readonly { mountPath: string }[]): string {
  return workspaces.length === 1 ? workspaces[0]!.mountPath : '/workspace';
}

export function containerSpec(input: {
  image: string;
  taskId: string;
  workspaces: WorkspaceGrant[];
  /** The action user, "UID:GID" (sandboxUser). PID 1 and the runner are uid 0 of the container. */
  user: string;
  ownerPid: number;
  /** Host folder holding the task's gateway socket; mounted read-only at GATEWAY_MOUNT. */
  gatewayDir?: string;
  /** Host folder holding the action runner's control socket; mounted read-only at CONTROL_MOUNT. */
  controlDir?: string;
  /** Host folder of the task's own environment (packages); mounted read-write at TASK_ENV_MOUNT. */
  envDir?: string;
  limits?: SandboxLimits;
  /** Whether the kernel watches the writable granted folders (attribution); the host can read its account. */
  watch?: boolean;
}): Docker.ContainerCreateOptions {
  const limits = input.limits ?? DEFAULT_LIMITS;
  const [actionUid, actionGid] = input.user.split(':');
  const mounts = input.workspaces.map((w) => ({ Type: 'bind' as const, Source: w.hostPath, Target: w.mountPath, ReadOnly: w.readOnly }));
  const writable = input.workspaces.filter((w) => !w.readOnly).map((w) => w.mountPath);
  const watch = input.watch === true && writable.length > 0;
  if (input.gatewayDir) mounts.push({ Type: 'bind', Source: input.gatewayDir, Target: GATEWAY_MOUNT, ReadOnly: true });
  if (input.controlDir) mounts.push({ Type: 'bind', Source: input.controlDir, Target: CONTROL_MOUNT, ReadOnly: true });
  if (input.envDir) mounts.push({ Type: 'bind', Source: input.envDir, Target: TASK_ENV_MOUNT, ReadOnly: false });
  return {
    Image: input.image,
    Cmd: [INIT_PATH],
    User: '0:0',
    WorkingDir: workingDir(input.workspaces),
    Env: [
      `HOME=${SANDBOX_HOME}`,
      `POSTHOC_GATEWAY=http://127.0.0.1:${RELAY_PORT}`,
      `POSTHOC_RELAY_PORT=${RELAY_PORT}`,
      `POSTHOC_ACTION_UID=${actionUid}`,
      `POSTHOC_ACTION_GID=${actionGid}`,
      'PYTHONDONTWRITEBYTECODE=1',
      'MPLBACKEND=module://posthoc_figures',
      'PYTHONUNBUFFERED=1',
      'LANG=C.UTF-8',
      // Each granted folder as mounted, for the runner to report (the host checks each is the folder it granted).
      `POSTHOC_ROOTS=${JSON.stringify(input.workspaces.map((w) => w.mountPath))}`,
      ...(watch ? [`POSTHOC_WATCH=${JSON.stringify(writable)}`] : []),
      ...packageEnv(Boolean(input.envDir)),
    ],
    Labels: { [SANDBOX_LABEL]: '1', [TASK_LABEL]: input.taskId, [OWNER_LABEL]: String(input.ownerPid) },
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: 'none',
      // Mounts, not Binds: a folder whose path holds ':' must not be split by Docker's string syntax.
      Mounts: mounts,
      ReadonlyRootfs: true,
      // HOME belongs to the action user (a 1777 tmpfs is writable, but tools refuse a home they do not own).
      // /tmp and HOME say exec: Docker makes a tmpfs noexec unless told, and a developer's tools run what
      // they build there (go test's test binary in /tmp/go-build…, a configure check, a downloaded CLI).
      Tmpfs: {
        '/tmp': 'rw,exec,nosuid,nodev,size=256m,mode=1777',
        // The claim log (claims.ts) on a file system of its own: filling /tmp cannot cost it lines.
        [CLAIMS_MOUNT]: 'rw,nosuid,nodev,noexec,size=80m,mode=0755',
        // The action's figures (image/posthoc_figures.py), emptied by the runner before and after each action.
        [FIGURES_MOUNT]: 'rw,nosuid,nodev,noexec,size=72m,mode=1777',
        [SANDBOX_HOME]: `rw,exec,nosuid,nodev,size=64m,mode=0700,uid=${actionUid},gid=${actionGid}`,
      },
      CapDrop: ['ALL'],
      CapAdd: [...RUNNER_CAPABILITIES, ...(watch ? WATCH_CAPABILITIES : [])],
      SecurityOpt: ['no-new-privileges', `seccomp=${JSON.stringify(sandboxSeccompProfile())}`],
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes,
      NanoCpus: limits.nanoCpus,
      PidsLimit: limits.pids,
      // No docker-init: our own PID 1 (INIT_PATH) reaps and survives the per-action `kill -9 -1`.
      Init: false,
      AutoRemove: false,
    },
  };
}
