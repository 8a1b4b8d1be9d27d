// The renderer's copy of provider settings, vault status and sandbox status, loaded on request.
import type { ProviderSettings, SandboxStatus, VaultStatus } from '../../../shared/domain';

/** Something loaded from main: not yet asked, its value, or why it could not be loaded. */
export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'ready'; value: T }
  | { state: 'error'; message: string };

export type SystemState = {
  settings: Loaded<ProviderSettings>;
  vault: Loaded<VaultStatus>;
  sandbox: Loaded<SandboxStatus>;
};

export function getEmptyState(): SystemState {
  return { settings: { state: 'loading' }, vault: { state: 'loading' }, sandbox: { state: 'loading' } };
}

export type SystemPart = keyof SystemState;
type ValueOf<K extends SystemPart> = SystemState[K] extends Loaded<infer T> ? T : never;

export function applyLoaded<K extends SystemPart>(state: SystemState, part: K, value: ValueOf<K>): SystemState {
  return { ...state, [part]: { state: 'ready', value } };
}

export function applyLoadError(state: SystemState, part: SystemPart, message: string): SystemState {
  // A failed refresh keeps the value already shown; only a first load turns into an error.
  if (state[part].state === 'ready') return state;
  return { ...state, [part]: { state: 'error', message } };
}

// ---- selectors ----

export const selectSettings = (state: SystemState): ProviderSettings | null =>
  state.settings.state === 'ready' ? state.settings.value : null;

/** The first-run screen replaces everything until a provider is configured. */
export const selectNeedsFirstRun = (state: SystemState): boolean =>
  state.settings.state === 'ready' && !state.settings.value.configured;

export const selectSandboxProblem = (state: SystemState): string | null => {
  if (state.sandbox.state === 'error') return state.sandbox.message;
  if (state.sandbox.state !== 'ready') return null;
  const { dockerAvailable, imagePresent, message } = state.sandbox.value;
  if (dockerAvailable && imagePresent) return null;
  return message ?? (dockerAvailable ? 'The sandbox image is missing.' : 'Docker is not available.');
};

export const selectVaultProblem = (state: SystemState): string | null => {
  if (state.vault.state === 'error') return state.vault.message;
  if (state.vault.state !== 'ready' || state.vault.value.available) return null;
  return state.vault.value.message ?? 'The OS keychain is not available.';
};
