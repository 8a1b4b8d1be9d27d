// The web host's WebSocket frames. Same contract as Electron IPC, carried as JSON messages.
import { z } from 'zod';

export const ClientFrame = z.object({
  id: z.number().int(),
  call: z.string(),
  input: z.unknown(),
});
export type ClientFrame = z.infer<typeof ClientFrame>;

export type ServerFrame =
  | { kind: 'result'; id: number; result: unknown }
  | { kind: 'event'; event: string; payload: unknown };

/** The per-launch token travels in the page URL's query (?token=…) and in the WebSocket URL. */
export const WEB_TOKEN_PARAM = 'token';
export const WEB_SOCKET_PATH = '/ws';
