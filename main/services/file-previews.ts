// What an action's card shows beyond text: its figures (effects/figures/figures.ts) and previews of the
// image, CSV and XLSX files it added or changed, read from the checkpoint after it (never from the folder,
// which may have changed since, and never through a path the sandbox chose: only paths its effect records).
import type { ActionFigure, FsEffect } from '../../shared/domain';
import type { FilePreview } from '../../shared/contract';
import { FigureUnavailable, type Figures } from '../effects/figures/figures';
import { preview, previewKind } from '../effects/figures/previews';
import { DamagedObject } from '../effects/fs/blob-stream';
import { CheckpointMissing, type CheckpointStore } from '../effects/fs/checkpoint-store';
import type { FsChannel } from '../effects/fs/fs-channel';
import type { TaskStore } from '../store/task-store';
import { ServiceError } from './service-error';

export class FilePreviews {
  constructor(
    private readonly store: TaskStore,
    private readonly fs: FsChannel,
    readonly figures: Figures,
  ) {}

  async figure(input: { actionId: string; n: number }): Promise<{ figure: ActionFigure; bytes: Buffer }> {
    if (!this.store.getAction(input.actionId)) throw new ServiceError('not-found', `No action ${input.actionId}. List actions with "posthoc actions".`);
    try {
      return await this.figures.read(input.actionId, input.n);
    } catch (error) {
      if (error instanceof FigureUnavailable) throw new ServiceError(error.reason === 'not-found' ? 'not-found' : 'conflict', error.message);
      throw error;
    }
  }

  async preview(input: { actionId: string; path: string; workspace?: string }): Promise<FilePreview> {
    const action = this.store.getAction(input.actionId);
    if (!action) throw new ServiceError('not-found', `No action ${input.actionId}.`);
    const path = input.path.replace(/\/$/, '');
    const effect = action.effects.find(
      (e): e is FsEffect =>
        e.channel === 'fs' &&
        (input.workspace === undefined || e.workspace === input.workspace) &&
        (e.added.includes(path) || e.modified.includes(path) || (e.renamed ?? []).some((r) => r.to === path)),
    );
    if (!effect) throw new ServiceError('not-found', `Action ${action.seq} added or changed no file ${input.path}.`);
    if (previewKind(path) === null) return { kind: 'none', reason: 'no preview for this kind of file' };
    const grant = this.store.getTask(action.taskId)?.workspaces.find((w) => w.name === effect.workspace);
    if (!grant) throw new ServiceError('not-found', `The folder "${effect.workspace}" is not granted to this task.`);
    const checkpoints = await this.fs.storeFor(grant.hostPath);
    try {
      const after = await checkpoints.checkpoint(effect.checkpointAfter);
      return await previewInCheckpoint(checkpoints, after.tree, path);
    } catch (error) {
      if (error instanceof CheckpointMissing) return { kind: 'none', reason: 'the action was kept, so its checkpoints were released' };
      throw error;
    }
  }
}

/**
 * The preview of `path` as the checkpoint tree `tree` holds it. The blob is read through its object's
 * header first (its size), then only as far as the preview needs: never whole, whatever its size.
 */
export async function previewInCheckpoint(checkpoints: CheckpointStore, tree: string, path: string): Promise<FilePreview> {
  const entry = checkpoints.lookup(tree, path);
  if (entry === null || (entry.kind !== 'file' && entry.kind !== 'exec')) {
    return { kind: 'none', reason: entry?.kind === 'uncovered' ? 'not stored in the checkpoint (too large)' : 'not a file' };
  }
  const oid = entry.oid;
  try {
    const size = await checkpoints.blobSize(oid);
    return await preview(path, { size, read: (maxBytes, visit) => checkpoints.streamBlob(oid, maxBytes, visit) });
  } catch (error) {
    if (error instanceof DamagedObject) return { kind: 'none', reason: `the checkpoint's copy cannot be read: ${error.detail}` };
    throw error;
  }
}
