// The one door from Posthoc to a service: adds the service's credentials on the way out (from the vault
// or an OAuth connection, by name), refreshes an OAuth token once on 401, and redacts every secret it
// used from what comes back. The forward calls of the sandbox and the inverse calls of undo both use it.
// Bodies may be streams both ways, so a large upload or download never sits in memory whole.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadable } from 'node:stream/web';
import type { ServiceAuth } from '../../shared/domain/connections';
import type { Redactor } from './redaction';
import type { ResolvedService } from './service-registry';
import { DEFAULT_LIMITS, responseCapMessage } from './gateway-limits';
import { sendStreamed } from './stream-send';

/** Where credentials come from; implemented over the vault and the OAuth connections by the services layer. */
export type CredentialSource = {
  /** A named secret's value, or null when the vault has no such entry. */
  secret(name: string): Promise<string | null>;
  /** A current access token for the provider (refreshed first when it expires soon, or when `refresh`). */
  oauthToken(provider: string, options?: { refresh?: boolean }): Promise<string>;
};

export class CredentialMissing extends Error {}

/** A streamed body is sent once: with one, a 401 of an OAuth service is answered as it is, not retried. */
export type OutgoingCall = { method: string; path: string; search: string; headers: Headers; body: Uint8Array<ArrayBuffer> | Readable | undefined };
export type ServiceAnswer = { status: number; headers: Headers; body: Buffer };
/** An answer whose body is still coming, NOT yet redacted: whoever reads it redacts it (whole or in windows). */
export type OpenAnswer = { status: number; headers: Headers; body: Readable | null };

/** The service's answer is larger than the caller may hold. */
export class ResponseTooLarge extends Error {}

const NO_BODY = new Set(['GET', 'HEAD']);

export class ServiceCaller {
  constructor(
    private readonly credentials: CredentialSource,
    private readonly send: typeof fetch = fetch,
  ) {}

  /**
   * Sends the call with credentials and reads the whole answer, redacted (at most `maxBytes`, else
   * ResponseTooLarge); secrets used are added to `redactor` before anything is returned.
   */
  async call(service: ResolvedService, call: OutgoingCall, redactor: Redactor, signal?: AbortSignal, maxBytes = DEFAULT_LIMITS.responseBytes): Promise<ServiceAnswer> {
    const answer = await this.open(service, call, redactor, signal);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of answer.body ?? []) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        answer.body?.destroy();
        throw new ResponseTooLarge(responseCapMessage(`${call.method} ${redactor.text(call.path)} on ${service.name}`, null, maxBytes));
      }
      chunks.push(chunk as Buffer);
    }
    return { status: answer.status, headers: answer.headers, body: redactor.buffer(Buffer.concat(chunks)) };
  }

  /** Sends the call with credentials; the answer's headers are redacted, its body is left to the caller to redact. */
  async open(service: ResolvedService, call: OutgoingCall, redactor: Redactor, signal?: AbortSignal): Promise<OpenAnswer> {
    const timeout = signal ? AbortSignal.any([signal, AbortSignal.timeout(60_000)]) : AbortSignal.timeout(60_000);
    const prepare = async (refresh: boolean) => {
      const url = new URL(`${service.baseUrl}${call.path}${call.search}`);
      const headers = new Headers(call.headers);
      await this.authorize(service.auth, headers, url, redactor, refresh);
      return { url, headers };
    };
    let answer: OpenAnswer;
    if (call.body instanceof Readable && !NO_BODY.has(call.method)) {
      // Sent once, as it arrives: a 401 of an OAuth service is answered as it is (the body is gone).
      const { url, headers } = await prepare(false);
      answer = await sendStreamed(url, { method: call.method, headers, body: call.body, signal: timeout });
    } else {
      const body = call.body instanceof Readable ? undefined : call.body;
      const attempt = async (refresh: boolean): Promise<Response> => {
        const { url, headers } = await prepare(refresh);
        return this.send(url, { method: call.method, headers, body: NO_BODY.has(call.method) ? undefined : body, redirect: 'manual', signal: timeout });
      };
      let res = await attempt(false);
      if (res.status === 401 && service.auth.kind === 'oauth') {
        // The token may have been revoked or expired early: refresh once and try again (nothing was done).
        await res.arrayBuffer().catch(() => undefined);
        res = await attempt(true);
      }
      answer = { status: res.status, headers: res.headers, body: res.body ? Readable.fromWeb(res.body as WebReadable<Uint8Array>) : null };
    }
    const headers = new Headers();
    answer.headers.forEach((value, key) => headers.set(key, redactor.text(value)));
    return { ...answer, headers };
  }

  private async authorize(auth: ServiceAuth, headers: Headers, url: URL, redactor: Redactor, refresh: boolean): Promise<void> {
    switch (auth.kind) {
      case 'none':
        return;
      case 'bearer': {
        const value = await this.requireSecret(auth.secret, redactor);
        headers.set('authorization', `Bearer ${value}`);
        return;
      }
      case 'header': {
        const value = await this.requireSecret(auth.secret, redactor);
        headers.set(auth.header, value);
        return;
      }
      case 'query': {
        const value = await this.requireSecret(auth.secret, redactor);
        url.searchParams.set(auth.param, value);
        return;
      }
      case 'oauth': {
        const token = await this.credentials.oauthToken(auth.provider, { refresh });
        redactor.add(token);
        headers.set('authorization', `Bearer ${token}`);
        return;
      }
    }
  }

  private async requireSecret(name: string, redactor: Redactor): Promise<string> {
    const value = await this.credentials.secret(name);
    if (value === null) {
      throw new CredentialMissing(`The vault has no secret "${name}", which this service's calls need. Ask the person to store it: posthoc secret set ${name} (or the Connections page).`);
    }
    redactor.add(value);
    return value;
  }
}
