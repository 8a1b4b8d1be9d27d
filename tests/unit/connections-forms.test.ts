// The Connections page's forms: lines of call patterns and body rules, and the auth choice, turned into
// the contract's service:add input, with a message that says what to fix.
import { describe, expect, it } from 'vitest';
import { calls } from '../../shared/contract';
import { parseBodyRuleLines, parsePatternLines, serviceInput, type ServiceFormFields } from '../../renderer/src/model/connection-forms';

const base: ServiceFormFields = {
  name: 'slack', baseUrl: 'https://slack.com/api', auth: 'bearer', secret: 'slack-token', authName: '', provider: '', api: '',
  allow: '', bodyRules: '', hold: '', sends: '', outside: 'refuse', irreversible: 'allow',
};

describe('connection forms', () => {
  it('read one pattern or rule per line, skipping blanks and comments', () => {
    expect(parsePatternLines('post /chat.postMessage\n\n# reads\nGET /**', 'Allowed')).toEqual({
      ok: true,
      value: [{ method: 'POST', path: '/chat.postMessage' }, { method: 'GET', path: '/**' }],
    });
    expect(parsePatternLines('POST chat.postMessage', 'Allowed calls')).toEqual({ ok: false, error: expect.stringMatching(/^Allowed calls: "POST chat.postMessage" is not a call pattern: write "METHOD \/path\/glob"/) });
    expect(parseBodyRuleLines('POST /chat.postMessage channel=C1,#team\nPOST /send to@=example.com')).toEqual({
      ok: true,
      value: [
        { method: 'POST', path: '/chat.postMessage', field: 'channel', oneOf: ['C1', '#team'] },
        { method: 'POST', path: '/send', field: 'to', domains: ['example.com'] },
      ],
    });
    expect(parseBodyRuleLines('POST /x channel')).toMatchObject({ ok: false });
  });

  it('build a service:add input the contract accepts, or say what is missing', () => {
    const input = serviceInput({ ...base, allow: 'POST /chat.*', api: 'slack' });
    expect(input.ok).toBe(true);
    if (input.ok) {
      expect(calls['service:add'].input.parse(input.value)).toMatchObject({ auth: { kind: 'bearer', secret: 'slack-token' }, api: 'slack', rules: { allow: [{ method: 'POST', path: '/chat.*' }] } });
    }
    expect(serviceInput({ ...base, secret: '' })).toEqual({ ok: false, error: expect.stringMatching(/Name the secret/) });
    expect(serviceInput({ ...base, auth: 'header' })).toEqual({ ok: false, error: expect.stringMatching(/Name the header/) });
    expect(serviceInput({ ...base, auth: 'oauth' })).toEqual({ ok: false, error: expect.stringMatching(/Pick the connection/) });
    expect(serviceInput({ ...base, api: 'none' })).toMatchObject({ ok: true, value: { api: null } });
  });
});
