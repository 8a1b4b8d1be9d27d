// The built-in providers. Every API they list is also what a service's --api names.
import type { ApiSpec } from '../../../shared/domain/connections';
import type { ProviderSpec } from '../provider-spec';
import { discord } from './discord';
import { dropbox } from './dropbox';
import { github } from './github';
import { google } from './google';
import { slack } from './slack';
import { spotify } from './spotify';

export const BUILT_IN_PROVIDERS: readonly ProviderSpec[] = [slack, github, google, spotify, dropbox, discord];

export function builtInProvider(id: string): ProviderSpec | undefined {
  return BUILT_IN_PROVIDERS.find((p) => p.id === id);
}

/** Every API with inverse rules, by id (slack, github, gmail, spotify, dropbox, dropbox-content, discord). */
export function apiSpec(id: string): ApiSpec | undefined {
  for (const p of BUILT_IN_PROVIDERS) {
    const api = p.apis.find((a) => a.id === id);
    if (api) return api;
  }
  return undefined;
}

export function apiIds(): string[] {
  return BUILT_IN_PROVIDERS.flatMap((p) => p.apis.map((a) => a.id));
}
