// Loaded with `node --import` (NODE_OPTIONS) by tests/integration/cli-lazy.test.ts: writes the URL of every
// module the process loaded, ES modules and CommonJS alike (Node's module hooks see both), one a line, to
// the file named by POSTHOC_MODULE_LOG when the process exits — appended, so the processes a command starts
// (the keychain's helper) add theirs to its own instead of writing over them.
import { appendFileSync } from 'node:fs';
import * as nodeModule from 'node:module';

if (typeof nodeModule.registerHooks !== 'function') throw new Error(`module.registerHooks is not in Node ${process.versions.node}: the module log needs Node 22.15 or later.`);
const log = process.env.POSTHOC_MODULE_LOG;
const loaded = [];
nodeModule.registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => {
  if (log) appendFileSync(log, `${loaded.join('\n')}\n`);
});
