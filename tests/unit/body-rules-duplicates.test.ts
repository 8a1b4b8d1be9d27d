// Body rules see every value a call carries for a field: each copy of a repeated JSON or form key, and the
// query string's parameters — so a second "channel" cannot slip past a rule on "channel".
import { describe, expect, it } from 'vitest';
import { parseBody, valueAt } from '../../main/gateway/body-view';
import { bodyBreach, defaultRules, judgeCall, parseBodyRule } from '../../main/gateway/call-rules';

const rule = parseBodyRule('POST /chat.postMessage channel=C0TEAM');
const json = (text: string) => parseBody(Buffer.from(text), 'application/json');
const form = (text: string) => parseBody(Buffer.from(text), 'application/x-www-form-urlencoded');

describe('duplicate keys', () => {
  it('checks every copy of a repeated JSON key, whichever the service reads', () => {
    expect(bodyBreach(rule, json('{"channel":"C0TEAM","channel":"C0EVIL"}'))).toMatch(/it was "C0EVIL"/);
    expect(bodyBreach(rule, json('{"channel":"C0EVIL","channel":"C0TEAM"}'))).toMatch(/it was "C0EVIL"/);
    expect(bodyBreach(rule, json('{"channel":"C0TEAM","text":"hi","channel":"C0TEAM"}'))).toBeNull();
  });

  it('sees a key repeated under an escape JSON decodes to the same name', () => {
    expect(bodyBreach(rule, json('{"channel":"C0TEAM","chann\\u0065l":"C0EVIL"}'))).toMatch(/C0EVIL/);
  });

  it('checks repeated keys inside nested objects and arrays', () => {
    const nested = parseBodyRule('POST /send to.email@=example.com');
    expect(bodyBreach(nested, json('{"to":[{"email":"a@example.com","email":"spy@evil.org"}]}'))).toMatch(/spy@evil.org/);
    expect(bodyBreach(nested, json('{"to":{"email":"a@example.com"},"to":{"email":"b@evil.org"}}'))).toMatch(/b@evil.org/);
    expect(bodyBreach(nested, json('{"to":[{"email":"a@example.com"},{"email":"b@example.com"}]}'))).toBeNull();
  });

  it('checks every copy of a repeated form key', () => {
    expect(bodyBreach(rule, form('channel=C0TEAM&text=hi&channel=C0EVIL'))).toMatch(/C0EVIL/);
    expect(bodyBreach(rule, form('channel=C0EVIL&channel=C0TEAM'))).toMatch(/C0EVIL/);
    expect(bodyBreach(rule, form('channel=C0TEAM&channel=C0TEAM'))).toBeNull();
  });

  it('leaves what JSON.parse and inverse templates see unchanged (the last copy), and adds nothing to JSON', () => {
    const value = json('{"channel":"C0TEAM","channel":"C0EVIL","__proto__":{"x":1}}');
    expect(valueAt(value, 'channel')).toBe('C0EVIL');
    expect(JSON.stringify(value)).toBe('{"channel":"C0EVIL","__proto__":{"x":1}}');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    const f = form('a=1&a=2');
    expect(JSON.stringify(f)).toBe('{"a":"2"}');
  });

  it('reads no inherited property as a field', () => {
    expect(bodyBreach(parseBodyRule('POST /x constructor=a'), json('{"text":"hi"}'))).toMatch(/has no "constructor"/);
  });
});

describe('query string parameters', () => {
  const facts = (body: unknown, search: string) => ({ service: 'slack', method: 'POST', path: '/chat.postMessage', body, search });
  const rules = { ...defaultRules(), body: [rule] };

  it('are checked like body fields: a value in either place must be allowed', () => {
    expect(judgeCall(rules, undefined, facts(json('{"channel":"C0TEAM"}'), '?channel=C0EVIL'))).toMatchObject({ kind: 'refuse', message: expect.stringMatching(/C0EVIL/) });
    expect(judgeCall(rules, undefined, facts(null, '?channel=C0EVIL'))).toMatchObject({ kind: 'refuse' });
    expect(judgeCall(rules, undefined, facts(null, '?channel=C0TEAM&channel=C0EVIL'))).toMatchObject({ kind: 'refuse' });
  });

  it('satisfy a rule when the body lacks the field and the query has an allowed value', () => {
    expect(judgeCall(rules, undefined, facts(null, '?channel=C0TEAM'))).toMatchObject({ kind: 'send' });
    expect(judgeCall(rules, undefined, facts(json('{"channel":"C0TEAM"}'), '?other=1'))).toMatchObject({ kind: 'send' });
    expect(judgeCall(rules, undefined, facts(null, ''))).toMatchObject({ kind: 'refuse', message: expect.stringMatching(/has no "channel" \(nor has the query string\)/) });
  });

  it('decode percent-escapes as the service would', () => {
    expect(judgeCall(rules, undefined, facts(null, '?chan%6Eel=C0EVIL&channel=C0TEAM'))).toMatchObject({ kind: 'refuse' });
  });
});
