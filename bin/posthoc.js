#!/usr/bin/env node
// The posthoc command. It runs the CLI bundle built by `npm run build`.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`posthoc: Node ${process.versions.node} is too old; Posthoc needs Node 22.12 or later.\n`);
  process.exit(2);
}
let cli;
try {
  cli = await import('../out/main/cli.js');
} catch (error) {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('out/main/cli.js')) {
    process.stderr.write('posthoc: the CLI is not built yet. Run "npm run build" in the Posthoc folder first.\n');
    process.exit(2);
  }
  throw error;
}
process.exit(await cli.main(process.argv.slice(2)));
