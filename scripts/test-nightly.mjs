#!/usr/bin/env node
// `npm run test:nightly`: the property tier with many more random runs than CI's (POSTHOC_PROPERTY_RUNS,
// default 3000 here; CI runs 200), and SQLite undo of a million rows (POSTHOC_SQLITE_ROWS; CI: 30,000). A failure prints fast-check's seed and path; replay it with
// POSTHOC_PROPERTY_SEED=<seed> npx vitest run --project property. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';

const env = { ...process.env, POSTHOC_PROPERTY_RUNS: process.env.POSTHOC_PROPERTY_RUNS ?? '3000', POSTHOC_SQLITE_ROWS: process.env.POSTHOC_SQLITE_ROWS ?? '1000000' };
const r = spawnSync('npx', ['vitest', 'run', '--project', 'property', ...process.argv.slice(2)], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
