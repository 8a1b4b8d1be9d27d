// One call dispatched: its input parsed by its schema, the service called, its answer parsed too (only what
// the contract declares crosses to a front end), as {ok, value} or {ok: false, error}. register-contract's
// dispatch gives it the contract's schemas; the record's client (record-client.ts) the few it needs, so a
// command that only lists the record builds no other schema (issue 28). zod's types only: no schema here.
import type { ZodError, ZodType } from 'zod';
import type { ContractError, Result } from '../../shared/contract';

export async function dispatchCall(
  name: string,
  schemas: { input: ZodType; output: ZodType },
  handler: (input: unknown) => Promise<unknown>,
  raw: unknown,
  toError: (error: unknown) => ContractError,
): Promise<Result<unknown>> {
  const parsed = schemas.input.safeParse(raw ?? {});
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid-input', message: describeZod(parsed.error) } };
  }
  let value: unknown;
  try {
    value = await handler(parsed.data);
  } catch (error) {
    return { ok: false, error: toError(error) };
  }
  // Answers are parsed too: only what the contract declares crosses to a front end.
  const answer = schemas.output.safeParse(value);
  if (!answer.success) {
    return { ok: false, error: { code: 'internal', message: `Posthoc's answer to ${name} broke its contract: ${describeZod(answer.error)}` } };
  }
  return { ok: true, value: answer.data };
}

export function describeZod(error: ZodError): string {
  return error.issues.map(describeIssue).join('; ');
}

/** One refused field in words a person can act on; the contract's own messages stay as written. */
function describeIssue(issue: ZodError['issues'][number]): string {
  if (issue.code === 'invalid_format' && issue.format === 'url') {
    const field = issue.path.filter((p): p is string => typeof p === 'string').at(-1);
    return `The ${field ? fieldWords(field) : 'address'} must be a web address starting with http:// or https://.`;
  }
  return issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/** baseUrl → "base URL", authorizationUrl → "authorization URL". */
function fieldWords(field: string): string {
  return field
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\burl\b/g, 'URL')
    .replace(/\bid\b/g, 'ID');
}
