// The memory behind the undo saga's interface (shared/undo/channel.ts). Undo takes a note off the end
// of the memory file, redo puts it back, each only while the file is exactly as that write (or its undo)
// left it, checked by the text's sha256: an edit the person made since makes undo refuse, naming the
// memory, rather than overwrite it. Several notes of one job are taken off in the job's order (newest
// first), each check against the state the one before leaves, all before anything is written.
import type { Action, MemoryEffect, UndoBlocker } from '../../../shared/domain';
import { previewByCheck, StepRefused, type ApplyResult, type ChannelStep, type UndoChannel, type UndoJob } from '../../../shared/undo/channel';
import { sha256, type MemoryFile } from './memory-file';

export function memoryEffectsOf(action: Action): MemoryEffect[] {
  return action.effects.filter((e): e is MemoryEffect => e.channel === 'memory' && e.refused === null);
}

export class MemoryUndoChannel implements UndoChannel {
  readonly name = 'memory' as const;
  readonly leavesMachine = false;

  constructor(private readonly memory: MemoryFile) {}

  async session<T>(job: UndoJob, body: (step: ChannelStep | null) => Promise<T>): Promise<T> {
    const effects = job.actions.flatMap((a) => (job.direction === 'undo' ? memoryEffectsOf(a).reverse() : memoryEffectsOf(a)));
    return body(effects.length === 0 ? null : new MemoryStep(this.memory, job, effects));
  }
  /** Its check reads the memory file and writes nothing: the preview is the check. */
  preview(job: UndoJob): Promise<UndoBlocker[]> {
    return previewByCheck(this, job);
  }

}

class MemoryStep implements ChannelStep {
  private original: string | null = null;

  constructor(
    private readonly memory: MemoryFile,
    private readonly job: UndoJob,
    private readonly effects: MemoryEffect[],
  ) {}

  /** The file after every step, or the first conflict. */
  private plan(): { text: string } | { blocker: UndoBlocker } {
    let text = this.memory.read();
    for (const e of this.effects) {
      const undo = this.job.direction === 'undo';
      if (sha256(text) !== (undo ? e.afterSha256 : e.beforeSha256)) {
        return {
          blocker: {
            path: `memory (${this.memory.path})`,
            by: 'content',
            actionId: null,
            actionSeq: null,
            taskTitle: null,
            channel: 'memory',
            reason: `the memory was edited since the note "${e.note}" was ${undo ? 'written' : 'taken off'}; ${undo ? 'take it off' : 'add it'} by hand in Settings or with "posthoc memory edit"`,
          },
        };
      }
      text = undo ? text.slice(0, text.length - e.appended.length) : text + e.appended;
    }
    return { text };
  }

  async check(): Promise<UndoBlocker[]> {
    const p = this.plan();
    return 'blocker' in p ? [p.blocker] : [];
  }

  async apply(): Promise<ApplyResult> {
    const p = this.plan();
    if ('blocker' in p) throw new StepRefused([p.blocker]);
    this.original = this.memory.read();
    this.memory.write(p.text);
    const verb = this.job.direction === 'undo' ? 'taken off the memory' : 'put back in the memory';
    return { ok: true, report: { items: this.effects.map((e) => `"${e.note}" ${verb}`), restored: [], removed: [], notRestored: [], refs: [] } };
  }

  async compensate(): Promise<void> {
    if (this.original !== null) this.memory.write(this.original);
    this.original = null;
  }
}
