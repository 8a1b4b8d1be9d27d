// One line per service for `posthoc service add | list`: its base URL, credential (a name, never a value)
// and rules. Loaded only when a service command runs.
import { describeBodyRule, describePattern } from '../../shared/connections/rule-lines';
import type { ServiceDefinition } from '../../shared/domain';
import { describeAuth } from '../gateway/service-registry';

export function describeService(d: ServiceDefinition): string {
  const parts = [`${d.name}  ${d.baseUrl}`];
  const auth = d.auth ? describeAuth(d.auth) : null;
  if (auth) parts.push(`auth ${auth}`);
  if (d.api) parts.push(`api ${d.api}`);
  const r = d.rules;
  if (r) {
    if (r.allow.length) parts.push(`allow ${r.allow.map(describePattern).join(', ')}`);
    for (const b of r.body) parts.push(`rule ${describeBodyRule(b)}`);
    if (r.hold.length) parts.push(`hold ${r.hold.map(describePattern).join(', ')}`);
    if (r.sends.length) parts.push(`sends ${r.sends.map(describePattern).join(', ')} (${r.holdSeconds} s)`);
    if (r.outside !== 'refuse') parts.push(`outside: ${r.outside}`);
    if (r.noInverse !== 'allow') parts.push(`no inverse: ${r.noInverse}`);
  }
  return parts.join('  ·  ');
}
