// The keychain helper: the only process that loads keytar. keytar's native code can crash the whole
// process (a locked GNOME login keyring makes findCredentials segfault), so it runs here and the parent
// (main/vault/keytar-process.ts) survives, says why and starts a new helper for the next call.
// Plain JavaScript so it runs as it is from source (tests) and is built to out/main/keytar-child.js.
//
// Protocol: one JSON request per line on stdin, {id, op, args}; one JSON answer per line on stdout,
// {id, ok: true, value} or {id, ok: false, error}; `ping` answers without asking the keychain. Under
// Electron's utilityProcess the same objects travel through process.parentPort instead of stdio.
import { createRequire } from 'node:module';

// Not named `require`: the bundler adds a shim of that name to every ESM output.
const loadModule = createRequire(import.meta.url);
const OPS = new Set(['getPassword', 'setPassword', 'deletePassword', 'findCredentials']);

let keytar;
let loadError = null;
try {
  keytar = loadModule('keytar');
} catch (error) {
  loadError = `keytar could not load: ${error instanceof Error ? error.message : String(error)}`;
}

async function answer(request) {
  const { id, op, args } = request ?? {};
  // Up and listening (keytar loaded or not): the parent times the keychain's answers from here.
  if (op === 'ping') return { id, ok: true, value: true };
  if (loadError) return { id, ok: false, error: loadError };
  if (!OPS.has(op) || !Array.isArray(args)) return { id, ok: false, error: `unknown keychain request ${JSON.stringify(op)}` };
  try {
    const value = await keytar[op](...args);
    // On Linux a locked collection answers "no such secret" (null / false) instead of failing. Listing the
    // service tells the two apart: it fails (or crashes this helper, which the parent reports as locked)
    // when the service has entries the keyring cannot open, and answers [] when there are truly none.
    if (process.platform === 'linux' && (op === 'getPassword' || op === 'deletePassword') && !value) {
      await keytar.findCredentials(args[0]);
    }
    return { id, ok: true, value };
  } catch (error) {
    return { id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

if (process.parentPort) {
  process.parentPort.on('message', async (event) => process.parentPort.postMessage(await answer(event.data)));
} else {
  let buffered = '';
  const inFlight = new Set();
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let request;
      try {
        request = JSON.parse(line);
      } catch {
        process.stdout.write(`${JSON.stringify({ id: null, ok: false, error: 'a request that is not JSON' })}\n`);
        continue;
      }
      const reply = answer(request).then((r) => new Promise((done) => process.stdout.write(`${JSON.stringify(r)}\n`, done)));
      inFlight.add(reply);
      void reply.finally(() => inFlight.delete(reply));
    }
  });
  // The parent went away (or a one-shot caller closed stdin): answer what was asked, then stop.
  process.stdin.on('end', () => void Promise.allSettled([...inFlight]).then(() => process.exit(0)));
}
