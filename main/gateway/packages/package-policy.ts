// What the person allows the sandbox's pip and npm to fetch, and from where. Read at each request
// (settings-service.ts makes it), so a changed setting applies to the next download. The settings, their
// defaults (PyPI, npm's registry) and environment variables are declared in shared/settings.

export type PackageManager = 'pip' | 'npm' | 'apt';

export type PackagePolicy = {
  /** on: any package; off: none; allowed: only the names in `allowed`. */
  fetching: 'on' | 'off' | 'allowed';
  /** Names, as "requests" (either manager) or "pip:requests" / "npm:left-pad". */
  allowed: string[];
  /** PEP 503 simple index root, e.g. https://pypi.org/simple */
  pipIndexUrl: string;
  /** npm registry root, e.g. https://registry.npmjs.org */
  npmRegistryUrl: string;
  /** How long a fetched index page or packument is reused without asking the upstream again. */
  indexMaxAgeMs: number;
};

export const DEFAULT_INDEX_MAX_AGE_MS = 10 * 60 * 1000;

/** PEP 503's normalized name: runs of -, _ and . become one -, lower case. */
export function normalizePipName(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}

/** Null when the person's settings let the sandbox fetch this package; else what to tell the code and the person. */
export function refusal(policy: PackagePolicy, manager: PackageManager, name: string): string | null {
  if (policy.fetching === 'off') {
    return `Package fetching is turned off in Posthoc's settings, so ${manager} cannot download ${name}. Ask the person to turn it on (Settings, "Packages"), or do the task without ${name}.`;
  }
  if (policy.fetching === 'on') return null;
  const same = (a: string) => (manager === 'pip' ? normalizePipName(a) === normalizePipName(name) : a === name);
  for (const entry of policy.allowed) {
    const m = /^(pip|npm|apt):(.*)$/.exec(entry.trim());
    if (m ? m[1] === manager && same(m[2]!) : same(entry.trim())) return null;
  }
  return `${name} is not among the packages the person allows ${manager} to fetch (${policy.allowed.length ? policy.allowed.join(', ') : 'none'}). Ask the person to add "${manager}:${name}" in Settings ("Packages"), or do the task without it.`;
}

/** An upstream root without a trailing slash; refuses anything but http(s) with a host. */
export function upstreamRoot(url: string): string {
  const u = new URL(url);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`A package upstream must be http(s): ${url}`);
  u.hash = '';
  u.search = '';
  return u.toString().replace(/\/+$/, '');
}
