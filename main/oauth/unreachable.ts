// A provider this machine cannot reach (offline, no DNS, refused, timed out, a proxy or certificate in the way) is
// named as such, with the cause in words: "GitHub cannot be reached from this machine: …". Anything else (the
// provider answered, and said no) is the provider's answer and stays its own error.

/** The provider could not be reached at all: nothing was asked of it. */
export class ProviderUnreachable extends Error {}

const CAUSES: Record<string, (host: string) => string> = {
  ENOTFOUND: (host) => `the name ${host} does not resolve (no network, or no DNS)`,
  EAI_AGAIN: (host) => `the name ${host} could not be looked up (no network, or no DNS)`,
  ECONNREFUSED: (host) => `${host} refused the connection`,
  ECONNRESET: (host) => `the connection to ${host} was reset`,
  ETIMEDOUT: (host) => `the connection to ${host} timed out`,
  UND_ERR_CONNECT_TIMEOUT: (host) => `the connection to ${host} timed out`,
  UND_ERR_SOCKET: (host) => `the connection to ${host} broke`,
  ENETUNREACH: () => 'there is no route to the network (offline?)',
  EHOSTUNREACH: (host) => `there is no route to ${host} (offline?)`,
  ENETDOWN: () => 'the network is down',
  EPROTO: (host) => `the TLS handshake with ${host} failed (a proxy in the way?)`,
  CERT_HAS_EXPIRED: (host) => `${host}'s certificate has expired (is the clock right, or a proxy in the way?)`,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: (host) => `${host}'s certificate could not be verified (a proxy in the way?)`,
  SELF_SIGNED_CERT_IN_CHAIN: (host) => `${host}'s certificate chain is self-signed (a proxy in the way?)`,
  DEPTH_ZERO_SELF_SIGNED_CERT: (host) => `${host}'s certificate is self-signed (a proxy in the way?)`,
};

/** The reason in words when `error` is a failure to reach `url` (fetch's TypeError and its cause), else null. */
export function unreachableCause(error: unknown, url: string): string | null {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // Keep the text as given.
  }
  const seen = new Set<unknown>();
  let current: unknown = error;
  let fetchFailed = false;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && CAUSES[e.code]) return CAUSES[e.code]!(host);
    if (e.name === 'TimeoutError') return `${host} did not answer in time`;
    if (current instanceof TypeError && e.message === 'fetch failed') fetchFailed = true;
    current = e.cause;
  }
  if (fetchFailed) {
    const cause = (error as { cause?: { message?: unknown } }).cause?.message;
    return typeof cause === 'string' && cause ? `the connection to ${host} failed (${cause})` : `the connection to ${host} failed`;
  }
  return null;
}

/** The error to throw for a provider that could not be reached, or null when `error` is something else. */
export function unreachable(providerName: string, error: unknown, url: string): ProviderUnreachable | null {
  const cause = unreachableCause(error, url);
  if (!cause) return null;
  return new ProviderUnreachable(`${providerName} cannot be reached from this machine: ${cause} (${url}). Check the network connection (or the proxy), then connect again.`);
}
