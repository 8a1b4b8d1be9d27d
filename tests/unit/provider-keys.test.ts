// A saved model provider's key (vault entry llm-api-key:ID) is Posthoc's own, like the default one's: listed
// as an LLM key, and never a service's credential.
import { describe, expect, it } from 'vitest';
import { ownEntryProblem } from '../../main/gateway/service-registry';
import { kindOf } from '../../main/vault/vault';

describe('provider keys in the vault', () => {
  it('are listed as LLM API keys', () => {
    expect(kindOf('llm-api-key')).toBe('llm-api-key');
    expect(kindOf('llm-api-key:local-vllm')).toBe('llm-api-key');
    expect(kindOf('llm-api-keyring')).toBe('secret');
  });

  it('are never a service credential', () => {
    expect(ownEntryProblem('llm-api-key:local-vllm')).toMatch(/"llm-api-key:local-vllm" is Posthoc's own key for the language model; it is never sent to a service/);
    expect(ownEntryProblem('llm-api-key')).toMatch(/never sent to a service/);
    expect(ownEntryProblem('my-token')).toBeNull();
  });
});
