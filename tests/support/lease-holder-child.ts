// Run by folder-lease.test.ts in a child process: another Posthoc process whose action holds the lease of
// a folder (as `posthoc run` would while its action runs). Prints "leased" and holds it until killed.
// Usage: node --import tsx tests/support/lease-holder-child.ts DATA_DIR WORKSPACE
import { randomUUID } from 'node:crypto';
import { startUndoHarness } from './undo-harness';

const [dataDir, workspace] = process.argv.slice(2) as [string, string];
const harness = await startUndoHarness({ dataDir, workspaces: [workspace] });
const task = harness.newTask('Other task');
await harness.fs.lease(randomUUID(), task.id, task.workspaces, { taskTitle: task.title, actionSeq: 7 });
process.stdout.write('leased\n');
setInterval(() => undefined, 60_000);
