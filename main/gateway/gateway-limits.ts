// What the gateway may hold in memory: a cap on one response's size and a cap on the bytes a task's
// calls keep in Posthoc at once (the windows of bodies it reads whole: for rules, inverses, summaries).
// Everything above a window is streamed through, so neither grows with the size of a body.
import { SETTINGS } from '../../shared/settings';
import { formatBytes } from './byte-size';

export type GatewayLimits = {
  /** The largest response the gateway passes to the sandbox. */
  responseBytes: number;
  /** The most body bytes one task's calls may keep in Posthoc's memory at once. */
  taskBytes: number;
};

const MIB = 1024 * 1024;
export const DEFAULT_LIMITS: GatewayLimits = { responseBytes: SETTINGS.gatewayMaxResponseMiB.default * MIB, taskBytes: SETTINGS.gatewayTaskMiB.default * MIB };

/**
 * How much of a body the gateway reads before it decides: a body that ends within it is handled whole
 * (rules, inverse, credentials retried on 401), a longer one is streamed. Services' JSON answers fit.
 */
export const BODY_WINDOW = MIB;

/** The environment variables and settings keys of the caps: as declared in shared/settings (gatewayMaxResponseMiB, gatewayTaskMiB). */
export const LIMIT_ENV = { responseBytes: SETTINGS.gatewayMaxResponseMiB.env!, taskBytes: SETTINGS.gatewayTaskMiB.env! } as const;
export const LIMIT_SETTINGS = { responseBytes: SETTINGS.gatewayMaxResponseMiB.key, taskBytes: SETTINGS.gatewayTaskMiB.key } as const;

/** The limits from the environment (MiB), else from saved settings (MiB), else the defaults. */
export function resolveLimits(env: NodeJS.ProcessEnv, saved: (key: string) => number | undefined = () => undefined): GatewayLimits {
  const pick = (which: keyof GatewayLimits): number => {
    const fromEnv = mib(env[LIMIT_ENV[which]]);
    const fromSettings = saved(LIMIT_SETTINGS[which]);
    if (fromEnv !== null) return fromEnv;
    if (typeof fromSettings === 'number' && fromSettings > 0) return Math.round(fromSettings * MIB);
    return DEFAULT_LIMITS[which];
  };
  return { responseBytes: pick('responseBytes'), taskBytes: pick('taskBytes') };
}

function mib(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) return null;
  return Math.round(n * MIB);
}


/** Bytes a task's calls hold now; `take` says no instead of letting a task grow without bound. */
export class TaskBudget {
  private used = 0;
  constructor(private readonly cap: () => number) {}

  take(n: number): boolean {
    if (this.used + n > this.cap()) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }

  get inUse(): number {
    return this.used;
  }

  get limit(): number {
    return this.cap();
  }
}

export function overBudgetMessage(budget: TaskBudget): string {
  return (
    `This task's calls already hold ${formatBytes(budget.inUse)} of bodies in Posthoc, and the cap per task is ${formatBytes(budget.limit)}; ` +
    `the call was not sent. Send fewer large bodies at once (wait for earlier calls to finish), or ask the person to raise the cap ` +
    `(${LIMIT_ENV.taskBytes}=MiB when starting Posthoc, or gatewayTaskMiB in the settings).`
  );
}

export function responseCapMessage(what: string, size: number | null, cap: number): string {
  const seen = size === null ? `grew over ${formatBytes(cap)}` : `is ${formatBytes(size)}`;
  return (
    `The response to ${what} ${seen}, over the gateway's cap of ${formatBytes(cap)} per response. Ask for less (a page, a range, a filter), ` +
    `or ask the person to raise the cap (${LIMIT_ENV.responseBytes}=MiB when starting Posthoc, or gatewayMaxResponseMiB in the settings).`
  );
}
