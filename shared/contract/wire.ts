// The web host's WebSocket frames. Same contract as Electron IPC, carried as JSON messages.
import { z } from 'zod';
import { calls, type CallName, type ContractError } from './index';

export const ClientFrame = z.object({
  id: z.number().int(),
  call: z.string(),
  input: z.unknown(),
});
export type ClientFrame = z.infer<typeof ClientFrame>;

export type ServerFrame =
  | { kind: 'result'; id: number; result: unknown }
  | { kind: 'event'; event: string; payload: unknown }
  /** A frame the host could not read: `id` is the frame's own when it had a readable one, so its call ends. */
  | { kind: 'error'; id: number | null; error: ContractError };

/** The per-launch token travels in the page URL's query (?token=…) and in the WebSocket URL. */
export const WEB_TOKEN_PARAM = 'token';
export const WEB_SOCKET_PATH = '/ws';

/** The largest frame the host reads; a larger one closes the socket with 1009 and FRAME_TOO_LARGE_REASON. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Close reasons are at most 123 bytes. */
export const FRAME_TOO_LARGE_REASON = 'Frame larger than 4 MiB: Posthoc closed the socket. Send smaller inputs; reload the page.';

const SHAPE = 'send one JSON object {"id": number, "call": "name:verb", "input": {…}}';

export type ReadFrame = { ok: true; frame: ClientFrame & { call: CallName } } | { ok: false; id: number | null; message: string };

/**
 * Reads one client frame and names what is wrong with it, so every frame gets an answer: not JSON, not an
 * object, no whole-number id, no call, an unknown call, or no input for a call that needs one.
 */
export function readClientFrame(text: string): ReadFrame {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, id: null, message: `The frame is not JSON (${(error as Error).message}); ${SHAPE}.` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, id: null, message: `The frame is not a JSON object; ${SHAPE}.` };
  }
  const record = raw as Record<string, unknown>;
  const id = typeof record.id === 'number' && Number.isInteger(record.id) ? record.id : null;
  if (id === null) return { ok: false, id: null, message: `The frame has no whole-number "id"; ${SHAPE}.` };
  if (typeof record.call !== 'string' || record.call === '') {
    return { ok: false, id, message: `Frame ${id} has no "call"; ${SHAPE}.` };
  }
  if (!Object.hasOwn(calls, record.call)) {
    return { ok: false, id, message: `Frame ${id}: unknown call "${record.call.slice(0, 80)}".` };
  }
  const call = record.call as CallName;
  // A call whose input is all optional may leave "input" out; one that needs fields must send them.
  if (!('input' in record) && !calls[call].input.safeParse({}).success) {
    return { ok: false, id, message: `Frame ${id} (${call}) has no "input", and ${call} needs one.` };
  }
  return { ok: true, frame: { id, call, input: record.input } };
}
