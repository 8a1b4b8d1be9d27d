// A number of bytes in words ("1.5 MiB"), for messages. Its own module, so the CLI can say sizes without
// loading the gateway's limits (and the settings declarations, and zod, behind them: posthoc --help loads
// commander alone, tests/integration/cli-lazy.test.ts).
const MIB = 1024 * 1024;

export function formatBytes(n: number): string {
  if (n >= MIB) return `${+(n / MIB).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}
