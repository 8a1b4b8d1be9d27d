// The gateway's pure parts for connected services: call patterns, the person's rules (methods, paths,
// body rules on parsed JSON, holds, sends, calls without inverse), and redaction of secrets.
import { describe, expect, it } from 'vitest';
import { bodyBreach, defaultRules, judgeCall, parseBodyRule } from '../../main/gateway/call-rules';
import { matchPath, methodMatches, parsePattern } from '../../main/gateway/path-glob';
import { REDACTED, Redactor } from '../../main/gateway/redaction';
import { parseAuth } from '../../main/gateway/service-registry';
import { apiSpec } from '../../main/oauth/providers';

const mime = (headers: string) => Buffer.from(`${headers}\r\nSubject: hi\r\n\r\nBody To: evil@else.org`).toString('base64url');

describe('call patterns', () => {
  it('match methods and path globs, and capture :names', () => {
    expect(methodMatches('GET,POST', 'post')).toBe(true);
    expect(methodMatches('*', 'DELETE')).toBe(true);
    expect(methodMatches('GET', 'POST')).toBe(false);
    expect(matchPath('/repos/:owner/:repo/issues', '/repos/ada/app/issues')).toEqual({ params: { owner: 'ada', repo: 'app' } });
    expect(matchPath('/repos/*/issues', '/repos/ada/app/issues')).toBeNull();
    expect(matchPath('/repos/**', '/repos/ada/app/issues')).not.toBeNull();
    expect(matchPath('/**', '/')).not.toBeNull();
    expect(matchPath('/*.list', '/conversations.list')).not.toBeNull();
    expect(matchPath('/*.list', '/conversations.history')).toBeNull();
    expect(matchPath('/gmail/v1/users/*/messages/send', '/gmail/v1/users/me/messages/send')).not.toBeNull();
    expect(parsePattern('post /chat.postMessage')).toEqual({ method: 'POST', path: '/chat.postMessage' });
    expect(() => parsePattern('POST chat.postMessage')).toThrow(/METHOD \/path\/glob/);
  });

  it('keep the glob language small on top of picomatch: ** may be no segment, only * and :name are special', () => {
    expect(matchPath('/repos/**', '/repos')).not.toBeNull();
    expect(matchPath('/*/**', '/repos')).not.toBeNull();
    expect(matchPath('/**/:id', '/a/b/c')).toEqual({ params: { id: 'c' } });
    expect(matchPath('/repos//:owner/', 'repos/ada')).toEqual({ params: { owner: 'ada' } });
    expect(matchPath('/Repos/*', '/repos/ada')).toBeNull();
    expect(matchPath('/*', '/.well-known')).not.toBeNull();
    expect(matchPath('/channels/:c/reactions/:e/@me', '/channels/C1/reactions/%F0%9F%91%8D/@me')).toEqual({ params: { c: 'C1', e: '👍' } });
    for (const literal of ['/a?', '/{a,b}', '/[ab]', '/!(a)', '/+(a)', '/a|b', '/a\\b']) {
      expect(matchPath(literal, literal)).not.toBeNull();
    }
    expect(matchPath('/a?', '/ab')).toBeNull();
    expect(matchPath('/{a,b}', '/a')).toBeNull();
    expect(matchPath('/[ab]', '/a')).toBeNull();
  });

  it('compare paths decoded, so an escaped letter cannot slip past a rule, and an escaped slash stays in its segment', () => {
    expect(matchPath('/chat.postMessage', '/chat%2EpostMessage')).not.toBeNull();
    expect(matchPath('/*.list', '/conversations%2elist')).not.toBeNull();
    expect(matchPath('/files/My%20Doc', '/files/My%20Doc')).not.toBeNull();
    expect(matchPath('/files/*', '/files/a%2Fb')).not.toBeNull();
    expect(matchPath('/files/*/x', '/files/a%2Fb')).toBeNull();
    expect(matchPath('/files/:name', '/files/a%2Fb%20c')).toEqual({ params: { name: 'a/b c' } });
    expect(matchPath('/files/*', '/files/%2E')).not.toBeNull();
    expect(matchPath('/files/100%', '/files/100%')).not.toBeNull();
  });

  it('parse --auth as the CLI writes it, and say what is missing', () => {
    expect(parseAuth('bearer', 'gh-token')).toEqual({ kind: 'bearer', secret: 'gh-token' });
    expect(parseAuth('header:X-Api-Key', 'k')).toEqual({ kind: 'header', header: 'X-Api-Key', secret: 'k' });
    expect(parseAuth('query:api_key', 'k')).toEqual({ kind: 'query', param: 'api_key', secret: 'k' });
    expect(parseAuth('oauth:slack', undefined)).toEqual({ kind: 'oauth', provider: 'slack' });
    expect(() => parseAuth('bearer', undefined)).toThrow(/needs --secret NAME/);
    expect(() => parseAuth('header:Host', 'k')).toThrow(/cannot carry a credential/);
    expect(() => parseAuth('basic', 'k')).toThrow(/bearer, header:NAME, query:NAME or oauth:PROVIDER/);
  });
});

describe('body rules, by plain matching on the parsed body', () => {
  it('limit Slack messages to some channels', () => {
    const rule = parseBodyRule('POST /chat.postMessage channel=C0TEAM,#team');
    expect(bodyBreach(rule, { channel: '#team', text: 'x' })).toBeNull();
    expect(bodyBreach(rule, { channel: 'C0OTHER', text: 'mention #team' })).toMatch(/may only be C0TEAM, #team; it was "C0OTHER"/);
    expect(bodyBreach(rule, { text: 'no channel' })).toMatch(/has no "channel"/);
  });

  it('limit mail to some domains, reading the recipients of a Gmail raw MIME message', () => {
    const rule = parseBodyRule('POST /gmail/v1/users/*/messages/send raw.@recipients@=example.com');
    expect(rule).toMatchObject({ field: 'raw.@recipients', domains: ['example.com'] });
    expect(bodyBreach(rule, { raw: mime('To: Ann <ann@example.com>, bob@EXAMPLE.com\r\nCc: "Doe, Jo" <jo@example.com>') })).toBeNull();
    expect(bodyBreach(rule, { raw: mime('To: ann@example.com\r\nBcc: spy@elsewhere.net') })).toMatch(/may only address example.com; it addressed spy@elsewhere.net/);
    // A folded header line still counts; the body is not read.
    expect(bodyBreach(rule, { raw: mime('To: ann@example.com,\r\n  eve@evil.org') })).toMatch(/eve@evil.org/);
  });

  it('walk arrays: every recipient of a JSON list is checked', () => {
    const rule = parseBodyRule('POST /send to.email@=example.com');
    expect(bodyBreach(rule, { to: [{ email: 'a@example.com' }, { email: 'b@example.com' }] })).toBeNull();
    expect(bodyBreach(rule, { to: [{ email: 'a@example.com' }, { email: 'b@other.com' }] })).toMatch(/b@other.com/);
  });
});

describe('the verdict on a call', () => {
  const slack = apiSpec('slack');
  const gmail = apiSpec('gmail');
  const facts = (method: string, path: string, body: unknown = null) => ({ service: 's', method, path, body });

  it('sends reads and calls with a known inverse; POST reads of Slack are not mutating', () => {
    expect(judgeCall(defaultRules(), slack, facts('POST', '/chat.postMessage', { channel: 'C1' }))).toEqual({ kind: 'send', mutating: true, inverseKnown: true });
    expect(judgeCall(defaultRules(), slack, facts('POST', '/conversations.list'))).toEqual({ kind: 'send', mutating: false, inverseKnown: false });
    expect(judgeCall(defaultRules(), undefined, facts('GET', '/x'))).toMatchObject({ kind: 'send', mutating: false });
  });

  it('hold every rule that adds a check to a case variant of its path, and grant nothing by one', () => {
    // A service that routes paths without regard to case would read POST /CHAT.POSTMESSAGE as chat.postMessage.
    const rules = { ...defaultRules(), allow: [parsePattern('POST /chat.*')], body: [parseBodyRule('POST /chat.postMessage channel=C1')], hold: [parsePattern('POST /reactions.add')] };
    expect(judgeCall(rules, undefined, facts('POST', '/chat.postMessage', { channel: 'C2' }))).toMatchObject({ kind: 'refuse' });
    expect(judgeCall({ ...rules, allow: [parsePattern('POST /**')] }, undefined, facts('POST', '/CHAT.POSTMESSAGE', { channel: 'C2' }))).toMatchObject({
      kind: 'refuse',
      message: expect.stringContaining('C2'),
    });
    expect(judgeCall({ ...rules, allow: [parsePattern('POST /**')] }, undefined, facts('POST', '/Reactions.Add', {}))).toMatchObject({ kind: 'approval' });
    // Allowing stays exact: the case variant of an allowed path is outside the allowed calls.
    expect(judgeCall(rules, undefined, facts('POST', '/CHAT.postMessage', { channel: 'C1' }))).toMatchObject({ kind: 'refuse', message: expect.stringContaining('outside the calls') });
    expect(matchPath('/chat.postMessage', '/CHAT.POSTMESSAGE')).toBeNull();
    expect(matchPath('/chat.postMessage', '/CHAT.POSTMESSAGE', true)).not.toBeNull();
  });

  it('refuses or holds what is outside the rules, as the person chose', () => {
    const rules = { ...defaultRules(), allow: [parsePattern('GET /**')] };
    expect(judgeCall(rules, undefined, facts('DELETE', '/x'))).toMatchObject({ kind: 'refuse', message: expect.stringMatching(/outside the calls the person allows on s \(GET \/\*\*\).*not sent/) });
    expect(judgeCall({ ...rules, outside: 'hold' }, undefined, facts('DELETE', '/x'))).toMatchObject({ kind: 'approval' });
  });

  it('decides calls with no known inverse by the policy: allow, hold or refuse', () => {
    const call = facts('POST', '/chat.update', { channel: 'C1' });
    expect(judgeCall(defaultRules(), slack, call)).toMatchObject({ kind: 'send', inverseKnown: false, mutating: true });
    expect(judgeCall({ ...defaultRules(), noInverse: 'hold' }, slack, call)).toMatchObject({ kind: 'approval' });
    expect(judgeCall({ ...defaultRules(), noInverse: 'refuse' }, slack, call)).toMatchObject({ kind: 'refuse', message: expect.stringMatching(/no known inverse/) });
  });

  it('gives sends that can never be taken back a hold window (Gmail send), and holds what the person holds', () => {
    expect(judgeCall(defaultRules(), gmail, facts('POST', '/gmail/v1/users/me/messages/send', { raw: 'x' }))).toMatchObject({ kind: 'window', seconds: 30 });
    expect(judgeCall({ ...defaultRules(), holdSeconds: 5 }, gmail, facts('POST', '/gmail/v1/users/me/drafts/send'))).toMatchObject({ kind: 'window', seconds: 5 });
    expect(judgeCall({ ...defaultRules(), hold: [parsePattern('POST /reactions.add')] }, slack, facts('POST', '/reactions.add'))).toMatchObject({ kind: 'approval' });
  });
});

describe('redaction', () => {
  const secret = 'sk-live/Abc+123=xyz:98765';
  const r = new Redactor([secret]);

  it('removes a secret raw, URL-encoded (both ways), JSON-escaped and in base64 / base64url at any alignment', () => {
    const forms = [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ k: secret }).toString().slice(2),
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('base64url'),
    ];
    for (const form of forms) expect(r.text(`a ${form} b`)).toBe(`a ${REDACTED} b`);
    for (const prefix of ['u:', 'us:', 'use:']) {
      const basic = Buffer.from(`${prefix}${secret}`).toString('base64');
      const out = r.text(`Authorization: Basic ${basic}`);
      expect(out).toContain(REDACTED);
      // What is left can no longer be decoded back to the secret.
      expect(Buffer.from(out.replace('Authorization: Basic ', '').replace(REDACTED, ''), 'base64').toString('latin1')).not.toContain(secret.slice(4, 16));
    }
  });

  it('redacts the token part of "Bot TOKEN" and works on bytes', () => {
    const bot = new Redactor(['Bot MTExMjIyMzMzNDQ0NTU1.abc']);
    expect(bot.text('token MTExMjIyMzMzNDQ0NTU1.abc seen')).toBe(`token ${REDACTED} seen`);
    expect(r.buffer(Buffer.from(`{"h":"Bearer ${secret}"}`)).toString()).toBe(`{"h":"Bearer ${REDACTED}"}`);
    const binary = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(secret)]);
    expect(r.buffer(binary).includes(Buffer.from(secret))).toBe(false);
  });

  it('leaves text without secrets alone, and ignores values too short to be secrets', () => {
    expect(r.text('nothing to see')).toBe('nothing to see');
    const short = new Redactor(['abc']);
    expect(short.size).toBe(0);
    expect(short.text('abc abc')).toBe('abc abc');
  });
});
