// The gateway's /memory route: how code in the sandbox writes the agent's memory. POST /notes with
// {"note": "..."} appends it (recorded as a MemoryEffect on the running action, which undo takes back);
// GET / answers the memory's text. Tasks run with --no-memory (or from before it was on) answer 403.
import type { Effect, MemoryEffect } from '../../../shared/domain';
import type { MemoryFile } from './memory-file';

/** The part of the gateway's route context and request this route reads (main/gateway/gateway.ts). */
type MemoryRouteContext = { task: { id: string }; actionId: string; recordEffect(effect: Effect): void };
type MemoryRequest = { method: string; path: string; body: Buffer };

export class MemoryRoute {
  /** Tasks that run without memory. */
  private readonly off = new Set<string>();

  constructor(private readonly memory: MemoryFile) {}

  /** While a task runs without memory; returns the undo. */
  disable(taskId: string): () => void {
    this.off.add(taskId);
    return () => this.off.delete(taskId);
  }

  readonly route = async (ctx: MemoryRouteContext, req: MemoryRequest): Promise<{ status: number; body: object }> => {
    if (this.off.has(ctx.task.id)) return { status: 403, body: { error: 'This task runs without memory (--no-memory): nothing is read from it or written to it.' } };
    if (req.method === 'GET' && (req.path === '/' || req.path === '')) return { status: 200, body: { text: this.memory.read() } };
    if (!/^\/notes\/?$/.test(req.path)) return { status: 404, body: { error: `No memory route ${req.path}; use POST $POSTHOC_GATEWAY/memory/notes with {"note": "..."}.` } };
    if (req.method !== 'POST') return { status: 405, body: { error: 'Use POST, with {"note": "..."} as the JSON body.' } };
    let note: unknown;
    try {
      note = (JSON.parse(req.body.toString('utf8')) as { note?: unknown }).note;
    } catch {
      return { status: 400, body: { error: 'The body is not JSON; send {"note": "..."}.' } };
    }
    if (typeof note !== 'string') return { status: 400, body: { error: 'Send {"note": "..."} with the note as a string.' } };
    const result = this.memory.append(note);
    if ('refused' in result) {
      ctx.recordEffect({ channel: 'memory', note, appended: '', beforeSha256: '', afterSha256: '', refused: result.refused } satisfies MemoryEffect);
      return { status: 422, body: { error: `Not remembered: ${result.refused}.` } };
    }
    ctx.recordEffect({ channel: 'memory', note: note.replace(/\s+/g, ' ').trim(), ...result, refused: null } satisfies MemoryEffect);
    return { status: 200, body: { remembered: true } };
  };
}
