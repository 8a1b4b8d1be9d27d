// The person's rules for one service's calls, checked before anything leaves the machine: allowed
// methods and paths, rules on the parsed body, holds for approval, send windows, and what happens to a
// mutating call nobody knows how to take back. Pure, so every rule can be read and tested here.
import type { ApiSpec, BodyRule, ServiceRules } from '../../shared/domain/connections';
import { describeBodyRule, readBodyRule } from '../../shared/connections/rule-lines';
import { addressesOf, domainOf, parseForm, valuesAt } from './body-view';
import { callMatches, describePattern } from './path-glob';

export const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `search` is the query string ("?a=1&b=2" or ""): body rules read it as well as the body. */
export type CallFacts = { service: string; method: string; path: string; body: unknown; search?: string };

export type Verdict =
  | { kind: 'send'; mutating: boolean; inverseKnown: boolean }
  | { kind: 'refuse'; message: string }
  | { kind: 'approval'; reason: string; mutating: boolean; inverseKnown: boolean }
  | { kind: 'window'; reason: string; seconds: number; mutating: boolean; inverseKnown: boolean };

export function defaultRules(): ServiceRules {
  return { allow: [], body: [], hold: [], sends: [], outside: 'refuse', noInverse: 'allow', holdSeconds: 30 };
}

/** Whether a call may change the remote side: any non-read method, unless the provider data says it reads. */
export function isMutating(api: ApiSpec | undefined, method: string, path: string): boolean {
  if (READ_METHODS.has(method.toUpperCase())) return false;
  return !(api?.reads ?? []).some((p) => callMatches(p, method, path));
}

export function hasInverseRule(api: ApiSpec | undefined, method: string, path: string): boolean {
  return (api?.inverses ?? []).some((r) => callMatches(r.match, method, path));
}

export function judgeCall(rules: ServiceRules, api: ApiSpec | undefined, call: CallFacts): Verdict {
  const mutating = isMutating(api, call.method, call.path);
  const inverseKnown = mutating && hasInverseRule(api, call.method, call.path);
  const what = `${call.method} ${call.path}`;

  const breach = outsideRules(rules, call);
  if (breach) {
    if (rules.outside === 'hold') return { kind: 'approval', reason: `${breach} The person must approve it.`, mutating, inverseKnown };
    return {
      kind: 'refuse',
      message: `${breach} The call was not sent. Only the person can change the rules (posthoc service add ${call.service} … or the Connections page); if the task needs this call, say so in your answer.`,
    };
  }
  const held = rules.hold.find((p) => callMatches(p, call.method, call.path, true));
  if (held) return { kind: 'approval', reason: `The person holds ${describePattern(held)} on ${call.service} for approval.`, mutating, inverseKnown };

  const send = [...rules.sends, ...(api?.sends ?? [])].find((p) => callMatches(p, call.method, call.path, true));
  if (send && mutating) {
    return {
      kind: 'window',
      reason: `${what} can never be taken back, so it waits ${rules.holdSeconds} s before it leaves; the person can cancel it until then.`,
      seconds: rules.holdSeconds,
      mutating,
      inverseKnown,
    };
  }
  if (mutating && !inverseKnown) {
    switch (rules.noInverse) {
      case 'refuse':
        return {
          kind: 'refuse',
          message: `${what} on ${call.service} may change the service and has no known inverse, and the person's rules refuse such calls. The call was not sent.`,
        };
      case 'hold':
        return { kind: 'approval', reason: `${what} has no known inverse; the person's rules hold such calls for approval.`, mutating, inverseKnown };
      case 'allow':
        break;
    }
  }
  return { kind: 'send', mutating, inverseKnown };
}

/** Why the call is outside the person's rules, or null when it is inside them. */
function outsideRules(rules: ServiceRules, call: CallFacts): string | null {
  if (rules.allow.length > 0 && !rules.allow.some((p) => callMatches(p, call.method, call.path))) {
    return `${call.method} ${call.path} is outside the calls the person allows on ${call.service} (${rules.allow.map(describePattern).join('; ')}).`;
  }
  for (const rule of rules.body) {
    if (!callMatches(rule, call.method, call.path, true)) continue;
    const problem = bodyBreach(rule, call.body, call.search);
    if (problem) return `${call.method} ${call.path} on ${call.service}: ${problem}`;
  }
  return null;
}

/**
 * Why the call breaks the rule, or null. The rule's field is read from the body and from the query
 * string alike, every value of every repeated key included: a service may read the field from either
 * place and any of its copies, so none takes precedence — every value found must be allowed, and the rule
 * is broken only by none at all when the field is in neither.
 */
export function bodyBreach(rule: BodyRule, body: unknown, search = ''): string | null {
  const query = search.replace(/^\?/, '');
  const values = [...valuesAt(body, rule.field), ...(query ? valuesAt(parseForm(query), rule.field) : [])];
  if (values.length === 0) return `the body has no "${rule.field}" (nor has the query string), which the person's rules check.`;
  if (rule.oneOf) {
    const allowed = new Set(rule.oneOf);
    const bad = values.filter((v) => typeof v !== 'string' && typeof v !== 'number' ? true : !allowed.has(String(v)));
    if (bad.length > 0) return `"${rule.field}" may only be ${rule.oneOf.join(', ')}; it was ${bad.map((v) => JSON.stringify(v)).join(', ')}.`;
  }
  if (rule.domains) {
    const allowed = new Set(rule.domains.map((d) => d.toLowerCase()));
    const addresses = values.flatMap((v) => (typeof v === 'string' ? addressesOf(v) : []));
    if (addresses.length === 0) return `"${rule.field}" holds no e-mail address, and the person's rules check its domains.`;
    const bad = addresses.filter((a) => !allowed.has(domainOf(a)));
    if (bad.length > 0) return `"${rule.field}" may only address ${rule.domains.join(', ')}; it addressed ${bad.join(', ')}.`;
  }
  return null;
}

/** Parses a body rule as the CLI writes it (shared/connections/rule-lines.ts reads it for every side). */
export function parseBodyRule(text: string): BodyRule {
  const rule = readBodyRule(text);
  if (!rule.ok) throw new Error(rule.error);
  return rule.value;
}

export { describeBodyRule };
