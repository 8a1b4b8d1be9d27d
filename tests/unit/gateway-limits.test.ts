// The gateway's caps: where they come from (environment over saved settings over defaults) and the
// per-task count that says no instead of growing.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits, TaskBudget } from '../../main/gateway/gateway-limits';
import { SettingsService } from '../../main/services/settings-service';
import type { TaskStore } from '../../main/store/task-store';
import type { Vault } from '../../main/vault/vault';
import type { ProviderSettings } from '../../shared/domain';

const MIB = 1024 * 1024;
/** The caps as settings:get shows them (its declared settings' values). */
const caps = (s: ProviderSettings) => ({ maxResponseMiB: s.values.gatewayMaxResponseMiB.value, taskMiB: s.values.gatewayTaskMiB.value });

describe('gateway limits', () => {
  it('defaults to 64 MiB per response and 128 MiB per task', () => {
    expect(resolveLimits({})).toEqual({ responseBytes: 64 * MIB, taskBytes: 128 * MIB });
    expect(DEFAULT_LIMITS).toEqual(resolveLimits({}));
  });

  it('takes the environment over saved settings, and ignores values that are not positive numbers', () => {
    const saved = (key: string) => ({ 'gateway.maxResponseMiB': 8, 'gateway.taskMiB': 16 })[key];
    expect(resolveLimits({}, saved)).toEqual({ responseBytes: 8 * MIB, taskBytes: 16 * MIB });
    expect(resolveLimits({ POSTHOC_GATEWAY_MAX_RESPONSE_MIB: '0.5', POSTHOC_GATEWAY_TASK_MIB: 'lots' }, saved)).toEqual({
      responseBytes: MIB / 2,
      taskBytes: 16 * MIB,
    });
    expect(resolveLimits({ POSTHOC_GATEWAY_MAX_RESPONSE_MIB: '-3' })).toEqual(DEFAULT_LIMITS);
  });

  it('reads saved settings through the settings service', () => {
    const store = { getSetting: (key: string) => (key === 'gateway.taskMiB' ? 32 : undefined) } as unknown as TaskStore;
    const settings = new SettingsService(store, {} as Vault, { POSTHOC_GATEWAY_MAX_RESPONSE_MIB: '2' });
    expect(settings.gatewayLimits()).toEqual({ responseBytes: 2 * MIB, taskBytes: 32 * MIB });
  });

  it('saves the caps through settings:update, and shows them (the environment still wins)', async () => {
    const saved = new Map<string, unknown>();
    const store = { getSetting: (key: string) => saved.get(key), setSetting: (key: string, value: unknown) => saved.set(key, value) } as unknown as TaskStore;
    const vault = { has: async () => false } as unknown as Vault;
    const settings = new SettingsService(store, vault, {});
    expect(caps(await settings.get())).toEqual({ maxResponseMiB: 64, taskMiB: 128 });
    expect(caps(await settings.update({ gatewayMaxResponseMiB: 256, gatewayTaskMiB: 512 }))).toEqual({ maxResponseMiB: 256, taskMiB: 512 });
    expect(settings.gatewayLimits()).toEqual({ responseBytes: 256 * MIB, taskBytes: 512 * MIB });
    const pinned = new SettingsService(store, vault, { POSTHOC_GATEWAY_TASK_MIB: '8' });
    expect(caps(await pinned.get())).toEqual({ maxResponseMiB: 256, taskMiB: 8 });
  });

  it('counts what a task holds and refuses past its cap, taking nothing then', () => {
    let cap = 10;
    const budget = new TaskBudget(() => cap);
    expect(budget.take(6)).toBe(true);
    expect(budget.take(5)).toBe(false);
    expect(budget.inUse).toBe(6);
    budget.give(6);
    expect(budget.take(10)).toBe(true);
    cap = 20;
    expect(budget.take(10)).toBe(true);
    expect(budget.limit).toBe(20);
  });
});
