// Run by undo-crash.test.ts in a child process: undo an action and kill this process with SIGKILL after
// the restore's Nth step, as a power cut or a crash would stop it.
// Usage: node --import tsx tests/support/crash-undo-child.ts DATA_DIR WORKSPACE ACTION_ID STEP
import { startUndoHarness } from './undo-harness';

const [dataDir, workspace, actionId, step] = process.argv.slice(2) as [string, string, string, string];
const harness = await startUndoHarness({
  dataDir,
  workspaces: [workspace],
  checkpoints: {
    restoreHooks: {
      afterStep: (n) => {
        if (n === Number(step)) process.kill(process.pid, 'SIGKILL');
      },
    },
  },
});
await harness.undo.undo(actionId);
process.stderr.write('the undo finished before the planned crash\n');
process.exit(1);
