// Loaded with `node --import` (NODE_OPTIONS) by tests/integration/cli-lazy.test.ts: writes the URL of every
// module the process loaded, ES modules and CommonJS alike (Node's module hooks see both), one a line, to
// the file named by POSTHOC_MODULE_LOG when the process exits.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const log = process.env.POSTHOC_MODULE_LOG;
const loaded = [];
registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => {
  if (log) writeFileSync(log, `${loaded.join('\n')}\n`);
});
