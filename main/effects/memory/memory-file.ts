// The agent's memory: notes that outlive a task (facts about the person's folders, services and
// preferences it learned), one plain Markdown file in the data folder (DATA/memory.md) the person reads
// and edits as they like. The agent writes it only through the gateway's /memory route (memory-route.ts),
// each write an effect on the running action that undo takes back (memory-undo-channel.ts). The prompt
// gets it bounded (main/agent/memory-prompt.ts).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const MEMORY_FILE = 'memory.md';
/** A write that would make the file larger than this is refused: the person trims it first. */
export const MEMORY_MAX_BYTES = 32 * 1024;
/** One note: a line or a short paragraph. */
export const NOTE_MAX_CHARS = 1000;

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export class MemoryFile {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, MEMORY_FILE);
  }

  read(): string {
    return existsSync(this.path) ? readFileSync(this.path, 'utf8') : '';
  }

  /** Replaces the whole file (atomically); an empty text removes it. */
  write(text: string): void {
    if (text === '') {
      rmSync(this.path, { force: true });
      return;
    }
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, this.path);
  }

  /** Appends a note as a list item: what it appended and the file's hash before and after, or why it refused. */
  append(note: string): { appended: string; beforeSha256: string; afterSha256: string } | { refused: string } {
    const clean = note.replace(/\s+/g, ' ').trim();
    if (clean === '') return { refused: 'the note is empty' };
    if (clean.length > NOTE_MAX_CHARS) return { refused: `a note holds at most ${NOTE_MAX_CHARS} characters; write a shorter one` };
    const before = this.read();
    const appended = `${before === '' || before.endsWith('\n') ? '' : '\n'}- ${clean}\n`;
    const after = before + appended;
    if (Buffer.byteLength(after, 'utf8') > MEMORY_MAX_BYTES) {
      return { refused: `the memory is full (${MEMORY_MAX_BYTES / 1024} KiB); the person can trim it in Settings or with "posthoc memory edit"` };
    }
    this.write(after);
    return { appended, beforeSha256: sha256(before), afterSha256: sha256(after) };
  }
}
