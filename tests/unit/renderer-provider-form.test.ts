// Settings' provider form shows the agent's limits from their declarations (shared/settings, ui.section
// 'limits'): each field with its label, hint, bounds from its schema and the value settings:get gave; the
// first-run screen shows none of them.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ProviderForm } from '../../renderer/src/components/provider-form';
import type { ProviderSettings } from '../../shared/domain';
import { defaultsView, SETTINGS } from '../../shared/settings';

const settings: ProviderSettings = {
  model: 'm',
  baseUrl: 'http://localhost:11434/v1',
  apiKeySet: false,
  sources: { model: 'settings', baseUrl: 'settings', apiKey: 'none' },
  configured: true,
  values: { ...defaultsView(SETTINGS), maxSteps: { value: 9, source: 'settings' } },
};

const render = (showLimits: boolean) => renderToStaticMarkup(createElement(ProviderForm, { settings, showLimits }));
const input = (html: string, testId: string) => new RegExp(`<input[^>]*data-testid="${testId}"[^>]*>`).exec(html)?.[0] ?? '';

describe('the provider form', () => {
  it('shows every declared limit with its words, bounds and value', () => {
    const html = render(true);
    expect(input(html, 'settings-max-steps')).toMatch(/type="number" min="1" max="200"[^>]*value="9"/);
    expect(input(html, 'settings-action-timeout')).toMatch(/type="number" min="1" max="3600"[^>]*value="120"/);
    for (const text of ['Max steps', 'Model replies per task turn before the agent stops.', 'Action timeout (seconds)', 'Each code block is stopped after this long.']) {
      expect(html).toContain(text);
    }
  });

  it('shows none of them on the first-run screen', () => {
    const html = render(false);
    expect(input(html, 'settings-max-steps')).toBe('');
    expect(html).not.toContain('Action timeout');
  });
});
