#!/usr/bin/env node
// The Python that runs in the sandbox (PID 1's init, apt, the figures backend, the tools module) read by
// pyflakes: an undefined name or a broken import there fails only inside a container, at run time, so the lint
// finds it first. Part of `npm run lint`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '..', 'main', 'sandbox', 'image');
const files = readdirSync(dir).filter((f) => f.endsWith('.py')).map((f) => join(dir, f));
const r = spawnSync('pyflakes3', files, { stdio: 'inherit' });
if (r.error) {
  process.stderr.write('pyflakes3 is missing: the lint reads the sandbox\'s Python with it. Install it: sudo apt-get install -y pyflakes3 (or sudo bash scripts/setup-test-env.sh apt).\n');
  process.exit(1);
}
process.exit(r.status ?? 1);
