// Run by store-migration-race.test.ts in a child process: one more Posthoc process opening the store on a
// data folder. It loads everything first, says "ready", and opens the store only when its standard input
// says "go", so the parent can start the eight openings at once (no sleeps). Exits 0 when the store opened
// and read its tasks; an error goes to stderr with exit code 1.
// Usage: node --import tsx tests/support/open-store-child.ts DATA_DIR
import { createInterface } from 'node:readline';
import { openDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';

const [dataDir] = process.argv.slice(2) as [string];
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
lines.once('line', () => {
  lines.close();
  try {
    const db = openDatabase(dataDir);
    new TaskStore(db).listTasks();
    db.close();
    process.exit(0);
  } catch (error) {
    process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
    process.exit(1);
  }
});
