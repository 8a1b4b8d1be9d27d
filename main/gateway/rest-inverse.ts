// How a REST call is taken back, worked out after it ran from the real request and response and the
// provider's data (its inverse rules): Slack's chat.postMessage → chat.delete with the channel and ts the
// answer gave, GitHub's new issue → closing that issue number. No rule, or a value missing → null.
import type { ApiSpec, InverseRule, RestInverse } from '../../shared/domain/connections';
import { valueAt } from './body-view';
import { BODY_WINDOW } from './gateway-limits';
import { callMatches } from './path-glob';

/**
 * The most of a response an inverse is derived from: services answer a call that changes something
 * with a small JSON document. A larger answer is streamed to the sandbox, never held, and gets no inverse.
 */
export const INVERSE_BODY_LIMIT = BODY_WINDOW;

export type RanCall = {
  service: string;
  method: string;
  /** Without the query string. */
  path: string;
  query: URLSearchParams;
  status: number;
  request: unknown;
  response: unknown;
};

/** Finds the service that serves another API of the same provider (see InverseRule.inverse.api). */
export type ApiServiceLookup = (api: string) => string | null;

export function deriveInverse(api: ApiSpec | undefined, call: RanCall, serviceOfApi: ApiServiceLookup = () => null): RestInverse | null {
  if (!api || call.status < 200 || call.status >= 300) return null;
  for (const rule of api.inverses) {
    const match = callMatches(rule.match, call.method, call.path);
    if (!match) continue;
    if (!conditionsHold(rule, call.response)) return null;
    const scope: Scope = { request: call.request, response: call.response, path: match.params, query: Object.fromEntries(call.query) };
    try {
      const service = rule.inverse.api ? serviceOfApi(rule.inverse.api) : call.service;
      if (!service) return null;
      const path = renderPath(rule.inverse.path, scope);
      const body = rule.inverse.body === undefined ? null : JSON.stringify(render(rule.inverse.body, scope));
      return { service, method: rule.inverse.method.toUpperCase(), path, body, summary: renderString(rule.summary, scope, false) };
    } catch (error) {
      if (error instanceof MissingValue) return null;
      throw error;
    }
  }
  return null;
}

type Scope = { request: unknown; response: unknown; path: Record<string, string>; query: Record<string, string> };

class MissingValue extends Error {}

function conditionsHold(rule: InverseRule, response: unknown): boolean {
  for (const [field, expected] of Object.entries(rule.when ?? {})) {
    if (valueAt(response, field) !== expected) return false;
  }
  return true;
}

const REF = /\{([a-z]+(?:\.[A-Za-z0-9_@$-]+)*)(\?)?\}/g;
const WHOLE_REF = /^\{([a-z]+(?:\.[A-Za-z0-9_@$-]+)*)(\?)?\}$/;

function lookup(scope: Scope & { item?: unknown }, ref: string): unknown {
  const [root, ...rest] = ref.split('.');
  const base = (scope as Record<string, unknown>)[root!];
  return rest.length === 0 ? base : valueAt(base, rest.join('.'));
}

function scalar(value: unknown, ref: string): string {
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new MissingValue(ref);
}

function renderString(template: string, scope: Scope, forPath: boolean): string {
  return template.replace(REF, (_all, ref: string) => {
    const value = scalar(lookup(scope, ref), ref);
    if (!forPath) return value;
    // Values keep their slashes (a git ref "refs/heads/x") but never climb or open a query.
    const segments = value.split('/');
    if (segments.some((s) => s === '..' || s === '.')) throw new MissingValue(ref);
    return segments.map(encodeURIComponent).join('/');
  });
}

function renderPath(template: string, scope: Scope): string {
  const [path, query] = template.split('?') as [string, string | undefined];
  const rendered = renderString(path, scope, true);
  if (query === undefined) return rendered;
  const params = new URLSearchParams();
  for (const [k, v] of new URLSearchParams(query)) params.set(k, renderString(v, scope, false));
  return `${rendered}?${params.toString()}`;
}

const OMIT = Symbol('omit');

function render(template: unknown, scope: Scope & { item?: unknown }): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE_REF.exec(template);
    if (whole) {
      const value = lookup(scope, whole[1]!);
      if (value === undefined || value === null) {
        if (whole[2] === '?') return OMIT;
        throw new MissingValue(whole[1]!);
      }
      return value;
    }
    return renderString(template, scope, false);
  }
  if (Array.isArray(template)) return template.map((t) => render(t, scope)).filter((v) => v !== OMIT);
  if (template !== null && typeof template === 'object') {
    const obj = template as Record<string, unknown>;
    if (typeof obj.$each === 'string') {
      const list = lookup(scope, obj.$each.replace(/^\{|\}$/g, ''));
      if (!Array.isArray(list) || list.length === 0) throw new MissingValue(obj.$each);
      return list.map((item) => render(obj.as, { ...scope, item } as Scope & { item: unknown }));
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      const r = render(v, scope);
      if (r !== OMIT) out[k] = r;
    }
    return out;
  }
  return template;
}
