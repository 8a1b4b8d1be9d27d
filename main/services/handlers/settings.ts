// settings:* and provider:* — the declared settings (shared/settings), the default model provider and the
// saved ones, and Test connection.
import { LlmClient } from '../../agent/llm-client';
import type { SettingsService } from '../settings-service';
import type { HandlersOf } from './handlers';

export function settingsHandlers(settings: SettingsService): HandlersOf<'settings:get' | 'settings:update' | 'provider:save' | 'provider:remove' | 'provider:test'> {
  return {
    'settings:get': () => settings.get(),
    'settings:update': (input) => settings.update(input),
    'provider:save': (input) => settings.saveProvider(input),
    'provider:remove': ({ id }) => settings.removeProvider(id),
    'provider:test': async ({ provider, model, reach }) =>
      new LlmClient(await settings.llmConfig({ provider, model, requireModel: false })).check(undefined, { reachOnly: reach === true }),
  };
}
