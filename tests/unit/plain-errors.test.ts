// A refused input reaches the person in words they can act on: a bad URL says what a URL must look like,
// never the validator's "baseUrl: Invalid URL"; the contract's own messages keep their field.
import { describe, expect, it } from 'vitest';
import { dispatch } from '../../main/ipc/register-contract';
import type { Handlers } from '../../main/services/app-services';

const never = new Proxy({}, { get: () => () => Promise.reject(new Error('the handler must not run')) }) as Handlers;

describe('refused input in plain words', () => {
  it('names the field and what a web address must start with', async () => {
    const result = await dispatch('settings:update', { baseUrl: 'not a url' }, never);
    expect(result).toEqual({ ok: false, error: { code: 'invalid-input', message: 'The base URL must be a web address starting with http:// or https://.' } });
    const saved = await dispatch('provider:save', { name: 'Local', baseUrl: 'nope' }, never);
    expect(!saved.ok && saved.error.message).toBe('The base URL must be a web address starting with http:// or https://.');
  });

  it('keeps a message the contract wrote itself', async () => {
    const result = await dispatch('task:start', { prompt: '   ', workspaces: [] }, never);
    expect(!result.ok && result.error.message).toContain('prompt: Say what the agent should do.');
  });
});
