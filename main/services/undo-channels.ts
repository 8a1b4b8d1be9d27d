// The undo saga's channels, built once by the composition root (app-services.ts) and handed to
// UndoService, which names none of them: a new channel is one entry here, which the compiler asks for. The saga applies the exact
// (local) channels first, in this list's order, and the ones that leave the machine last (`leavesMachine`).
import type { Action, ChannelId } from '../../shared/domain';
import type { UndoChannel, UndoJob } from '../../shared/undo/channel';
import { DatabasesUndoChannel, type DatabaseUndo } from '../effects/db/databases-undo-channel';
import { FilesUndoChannel } from '../effects/fs/files-undo-channel';
import type { FsChannel } from '../effects/fs/fs-channel';
import { FsReverter } from '../effects/fs/fs-revert';
import { McpUndoChannel, type McpUndoPort } from '../effects/mcp/mcp-undo-channel';
import type { MemoryFile } from '../effects/memory/memory-file';
import { MemoryUndoChannel } from '../effects/memory/memory-undo-channel';
import { ServicesUndoChannel, type RestUndoPort } from '../gateway/rest-undo';
import type { TaskStore } from '../store/task-store';
import { actionStateOf, describeBlockers, foldersOf, labelOf, setStatusAfter, writeJobStatuses } from './undo-facts';

/** The files' journaled reverter; a restore it finishes (crash recovery included) sets its actions' statuses. */
export function filesReverter(store: TaskStore, fs: FsChannel): FsReverter {
  return new FsReverter(fs, (journal) => {
    for (const id of journal.actionIds) setStatusAfter(store, id, journal.plan.direction);
  });
}

export type UndoChannelsDeps = {
  store: TaskStore;
  fs: FsChannel;
  /** The one reverter UndoService also recovers interrupted restores with. */
  reverter: FsReverter;
  /** The databases channel. */
  db?: DatabaseUndo;
  /** The agent's memory file (effects/memory): its notes are taken off by undo. */
  memory?: MemoryFile;
  /** The services channel's door (gateway): each call's recorded inverse (none: its calls refuse). */
  rest?: RestUndoPort;
  /** The tools channel's door (the McpHub): each MCP call's recorded inverse (none: its calls refuse). */
  tools?: McpUndoPort;
};

/**
 * One entry per channel of the registry (shared/channels/registry.ts), checked complete by the compiler: a
 * new channel that has no entry here does not build. null: undo has nothing to do for it here.
 */
export type UndoChannelsById = { [K in ChannelId]: UndoChannel | null };

export function undoChannelsById(deps: UndoChannelsDeps): UndoChannelsById {
  const { store, fs } = deps;
  // What a call taken back marks on its effect; the action's status is the saga's to write (once).
  const save = (action: Action) => store.saveEffects(action);
  // The task as the saga read it (once per undo), or read by id.
  const taskOf = (job: UndoJob) => job.task ?? store.getTask(job.taskId);
  return {
    db: new DatabasesUndoChannel(deps.db),
    fs: new FilesUndoChannel(fs, deps.reverter, {
      foldersOf: (job) => foldersOf(taskOf(job), null),
      stateOf: () => actionStateOf(store),
      commitStatuses: (ids, direction, job) => writeJobStatuses(store, job, ids, direction),
      describe: (job, blockers) => describeBlockers(store, taskOf(job)!, blockers),
      label: (job, folder, path) => labelOf(taskOf(job)!, folder, path),
    }),
    memory: deps.memory ? new MemoryUndoChannel(deps.memory) : null,
    rest: new ServicesUndoChannel(deps.rest, save),
    mcp: new McpUndoChannel(deps.tools, save),
    // Package files land in the task's own environment, removed with the task: nothing to undo.
    packages: null,
  };
}

/** The saga's list: the entries in this order (the exact ones are applied in it; those that leave the machine go last whatever their place). */
export function undoChannels(deps: UndoChannelsDeps): UndoChannel[] {
  return Object.values(undoChannelsById(deps)).filter((c): c is UndoChannel => c !== null);
}
