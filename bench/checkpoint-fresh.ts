// One no-change checkpoint in a process of its own, as a CLI command takes it: open the data folder's
// database and the folder's checkpoint store (its stat cache read from disk), checkpoint, save the cache,
// exit. bench/checkpoint.ts bundles this file (as the CLI is bundled) and times each run whole, from
// before the spawn to the exit, against `git status` in a process of its own.
//
// Usage: node out/bench/checkpoint-fresh.mjs DATA_DIR FOLDER
import { join } from 'node:path';
import { FsChannel } from '../main/effects/fs/fs-channel';
import { openDatabase } from '../main/store/database';
import { UndoStore } from '../main/store/undo-store';

const [dataDir, folder] = process.argv.slice(2);
if (!dataDir || !folder) {
  process.stderr.write('usage: checkpoint-fresh DATA_DIR FOLDER\n');
  process.exit(2);
}
const db = openDatabase(dataDir);
const fs = new FsChannel(join(dataDir, 'checkpoints'), new UndoStore(db));
const cp = await fs.withFolders([folder], ([store]) => fs.observe(store!, null, 'bench, fresh process'));
await fs.close();
db.close();
// The parent checks that nothing was read again: a no-change checkpoint from the stat cache.
process.stdout.write(`${JSON.stringify({ commit: cp.commit, hashed: cp.hashed ?? null })}\n`);
