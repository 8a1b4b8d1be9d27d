#!/usr/bin/env node
// The posthoc command. It runs the CLI bundle built by `npm run build`.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`posthoc: Node ${process.versions.node} is too old; Posthoc needs Node 22.12 or later.\n`);
  process.exit(2);
}
// V8's compile cache (Node 22.1+, in the system's temporary folder unless NODE_COMPILE_CACHE says where): a
// command compiles the CLI's chunks, commander and zod once, and later runs read the compiled code back
// (`posthoc tasks` about 10 ms less CPU on a loaded machine; docs/BENCHMARKS.md "CLI start"). It only
// caches: Node checks each entry against the source and compiles again when they differ.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
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
