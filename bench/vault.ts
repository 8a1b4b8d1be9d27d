// What running keytar in its helper process costs (issue 12): the same vault calls through the helper
// (main/vault/keytar-process.ts, as Posthoc runs them) and through keytar loaded into this process (as
// before), against the same keychain in the same run. Medians over rounds; the machines are shared and
// noisy, compare ratios.
//
// It measures: the first call (helper start + keytar load, against keytar's load alone), then a read
// (getPassword), a miss (getPassword of an absent name: on Linux the helper also lists the service to
// tell a locked keyring from an absent secret), a write (setPassword) and a list (findCredentials).
//
// Usage (needs a Secret Service; headless, a throwaway one):
//   dbus-run-session -- sh -c 'echo pw | XDG_DATA_HOME=$(mktemp -d) gnome-keyring-daemon --unlock --components=secrets >/dev/null; npx tsx bench/vault.ts [--rounds 200]'
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { KeytarProcess, type Keytar } from '../main/vault/keytar-process';
import { loadKeytarDirect } from '../main/vault/vault';

const args = process.argv.slice(2);
const i = args.indexOf('--rounds');
const ROUNDS = i >= 0 ? Number(args[i + 1]) : 200;
const SERVICE = `dev.posthoc.bench-${randomUUID()}`;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** keytar's load in a fresh process, so the direct first call is not cached by this one. */
function directFirstCall(): number {
  const script = `const t=performance.now();require('keytar').findCredentials(${JSON.stringify(SERVICE)}).then(()=>console.log(performance.now()-t))`;
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim());
}

async function main(): Promise<void> {
  const firstHelper: number[] = [];
  const firstDirect: number[] = [];
  for (let r = 0; r < 5; r++) {
    const helper = new KeytarProcess();
    firstHelper.push(await time(() => helper.findCredentials(SERVICE)));
    helper.close();
    firstDirect.push(directFirstCall());
  }

  const helper = new KeytarProcess();
  const direct = await loadKeytarDirect();
  await helper.setPassword(SERVICE, 'present', 'value');
  const ops: Array<[string, (k: Keytar) => Promise<unknown>]> = [
    ['read (getPassword)', (k) => k.getPassword(SERVICE, 'present')],
    ['miss (getPassword, absent)', (k) => k.getPassword(SERVICE, 'absent')],
    ['write (setPassword)', (k) => k.setPassword(SERVICE, 'written', randomUUID())],
    ['list (findCredentials)', (k) => k.findCredentials(SERVICE)],
  ];
  const rows: Array<[string, number, number]> = [['first call (start + load)', median(firstHelper), median(firstDirect)]];
  for (const [what, op] of ops) {
    const viaHelper: number[] = [];
    const inProcess: number[] = [];
    // Interleaved, so drift on a shared machine hits both alike.
    for (let r = 0; r < ROUNDS; r++) {
      viaHelper.push(await time(() => op(helper)));
      inProcess.push(await time(() => op(direct)));
    }
    rows.push([what, median(viaHelper), median(inProcess)]);
  }
  for (const account of ['present', 'written']) await direct.deletePassword(SERVICE, account);
  helper.close();

  console.log(`rounds: ${ROUNDS} (first call: 5)`);
  console.log('| call | helper process | keytar in process | difference |');
  console.log('| --- | --- | --- | --- |');
  for (const [what, h, d] of rows) console.log(`| ${what} | ${h.toFixed(2)} ms | ${d.toFixed(2)} ms | ${(h - d).toFixed(2)} ms |`);
}

await main();
