// What the Connections page's forms turn into contract inputs: call patterns and body rules written one
// per line ("POST /chat.postMessage", "POST /chat.postMessage channel=C1,C2", "POST /send to@=example.com"),
// and the auth choice. Pure; main checks everything again.
import { readBodyRule, readCallPattern, readRuleLines } from '../../../shared/connections/rule-lines';
import type { CallInput } from '../../../shared/contract';
import type { BodyRule, CallPattern, ConnectionStatus, ServiceAuth } from '../../../shared/domain/connections';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parsePatternLines(text: string, label: string): Parsed<CallPattern[]> {
  return readRuleLines(text, readCallPattern, label);
}

export function parseBodyRuleLines(text: string): Parsed<BodyRule[]> {
  return readRuleLines(text, readBodyRule, 'Body rules');
}

export type AuthKind = ServiceAuth['kind'];

export function authOf(kind: AuthKind, fields: { secret: string; name: string; provider: string }): Parsed<ServiceAuth> {
  const secret = fields.secret.trim();
  const needSecret = (): Parsed<never> | null => (secret ? null : { ok: false, error: 'Name the secret that holds the key (store its value under Secrets below).' });
  switch (kind) {
    case 'none':
      return { ok: true, value: { kind: 'none' } };
    case 'bearer':
      return needSecret() ?? { ok: true, value: { kind: 'bearer', secret } };
    case 'header':
      if (!fields.name.trim()) return { ok: false, error: 'Name the header that carries the key, for example X-Api-Key.' };
      return needSecret() ?? { ok: true, value: { kind: 'header', header: fields.name.trim(), secret } };
    case 'query':
      if (!fields.name.trim()) return { ok: false, error: 'Name the query parameter that carries the key, for example api_key.' };
      return needSecret() ?? { ok: true, value: { kind: 'query', param: fields.name.trim(), secret } };
    case 'oauth':
      if (!fields.provider) return { ok: false, error: 'Pick the connection whose token the calls carry.' };
      return { ok: true, value: { kind: 'oauth', provider: fields.provider } };
  }
}

export type ServiceFormFields = {
  name: string; baseUrl: string; auth: AuthKind; secret: string; authName: string; provider: string; api: string;
  allow: string; bodyRules: string; hold: string; sends: string; outside: 'refuse' | 'hold'; irreversible: 'allow' | 'hold' | 'refuse';
};

export function serviceInput(f: ServiceFormFields): Parsed<CallInput<'service:add'>> {
  const auth = authOf(f.auth, { secret: f.secret, name: f.authName, provider: f.provider });
  if (!auth.ok) return auth;
  const allow = parsePatternLines(f.allow, 'Allowed calls');
  if (!allow.ok) return allow;
  const body = parseBodyRuleLines(f.bodyRules);
  if (!body.ok) return body;
  const hold = parsePatternLines(f.hold, 'Held for approval');
  if (!hold.ok) return hold;
  const sends = parsePatternLines(f.sends, 'Sends');
  if (!sends.ok) return sends;
  return {
    ok: true,
    value: {
      name: f.name.trim(),
      baseUrl: f.baseUrl.trim(),
      auth: auth.value,
      api: f.api === '' ? undefined : f.api === 'none' ? null : f.api,
      rules: { allow: allow.value, body: body.value, hold: hold.value, sends: sends.value, outside: f.outside, noInverse: f.irreversible },
    },
  };
}

export const statusWords: Record<ConnectionStatus, string> = {
  'not-connected': 'not connected',
  connecting: 'waiting for the browser…',
  connected: 'connected',
  expired: 'expired: connect again',
  error: 'not connected',
};
