// The container policy: one place to read everything a sandbox is allowed. Pure, so tests can read it too.
import type Docker from 'dockerode';
import type { WorkspaceGrant } from '../../shared/domain';

export const SANDBOX_LABEL = 'dev.posthoc.sandbox';
export const TASK_LABEL = 'dev.posthoc.task';
/** The process that started the container; when it is gone, the container is an orphan. */
export const OWNER_LABEL = 'dev.posthoc.owner-pid';

export type SandboxLimits = { memoryBytes: number; nanoCpus: number; pids: number };
export const DEFAULT_LIMITS: SandboxLimits = { memoryBytes: 1024 * 1024 * 1024, nanoCpus: 1_000_000_000, pids: 256 };

/** Where granted folders appear: one folder at /workspace, several at /workspace/NAME. */
export function mountPaths(hostPaths: string[], names: string[]): string[] {
  return hostPaths.length === 1 ? ['/workspace'] : names.map((n) => `/workspace/${n}`);
}

export function containerSpec(input: {
  image: string;
  taskId: string;
  workspaces: WorkspaceGrant[];
  user: string;
  ownerPid: number;
  limits?: SandboxLimits;
}): Docker.ContainerCreateOptions {
  const limits = input.limits ?? DEFAULT_LIMITS;
  return {
    Image: input.image,
    Cmd: ['sleep', 'infinity'],
    User: input.user,
    WorkingDir: '/workspace',
    Env: ['HOME=/tmp', 'PYTHONDONTWRITEBYTECODE=1', 'PYTHONUNBUFFERED=1', 'LANG=C.UTF-8'],
    Labels: { [SANDBOX_LABEL]: '1', [TASK_LABEL]: input.taskId, [OWNER_LABEL]: String(input.ownerPid) },
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: 'none',
      // Mounts, not Binds: a folder whose path holds ':' must not be split by Docker's string syntax.
      Mounts: input.workspaces.map((w) => ({ Type: 'bind' as const, Source: w.hostPath, Target: w.mountPath, ReadOnly: w.readOnly })),
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=256m' },
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes,
      NanoCpus: limits.nanoCpus,
      PidsLimit: limits.pids,
      Init: true,
      AutoRemove: false,
    },
  };
}

/** The command an action runs: the code arrives on stdin and is saved, then run with an empty stdin under a timeout. */
export function actionCommand(language: 'python' | 'bash' | 'sh', seq: number, timeoutSeconds: number): string[] {
  const ext = language === 'python' ? 'py' : 'sh';
  const file = `/tmp/.posthoc/action-${seq}.${ext}`;
  const interpreter = language === 'python' ? 'python3' : language === 'bash' ? 'bash' : 'sh';
  const script = `mkdir -p /tmp/.posthoc && cat > ${file} && exec timeout --kill-after=2 ${timeoutSeconds} ${interpreter} ${file} </dev/null`;
  return ['sh', '-c', script];
}
