// The host's end of a container's control socket, shared by the action runner's channel (action-channel.ts)
// and an MCP container's claims (mcp-container.ts): a unix socket in a folder mounted read-only into the
// container, of which only the first connection is ever accepted (the one PID 1 makes before anything else
// runs), and frames both ways: one byte of kind, four bytes of big-endian length, the payload.
import { chmod, mkdir, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

export const CONTROL_SOCKET = 'control.sock';

/**
 * Listens on DIR/control.sock (DIR created empty and world-readable, the socket world-writable, so the
 * container's user can connect) and hands `onFirst` the first connection; every later one is destroyed.
 */
export async function listenControlSocket(dir: string, onFirst: (socket: Socket) => void): Promise<Server> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await chmod(dir, 0o755);
  const server = createServer();
  let taken = false;
  server.on('connection', (socket) => {
    // Only the first connection counts; anything later is code in the container.
    if (taken) {
      socket.destroy();
      return;
    }
    taken = true;
    onFirst(socket);
  });
  const path = join(dir, CONTROL_SOCKET);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o666);
  return server;
}

/** Closes the server and removes its folder. */
export async function closeControlSocket(server: Server, dir: string): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
}

export function frame(kind: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(kind, 0, 'latin1');
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/**
 * Frames out of a stream of chunks. A large frame (a claim log of many megabytes) arrives in many chunks:
 * they are kept and joined once the whole frame is there, instead of copying a growing buffer at every chunk.
 * A payload is a view of the reader's buffer: copy what is kept.
 */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** Bytes still missing for the frame at the head of `buffer`. */
  private needed = 0;

  push(chunk: Buffer): Array<{ kind: string; payload: Buffer }> {
    this.parts.push(chunk);
    this.partBytes += chunk.length;
    if (this.partBytes < this.needed) return [];
    this.buffer = this.parts.length === 1 && this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, ...this.parts]);
    this.parts = [];
    this.partBytes = 0;
    this.needed = 0;
    const frames: Array<{ kind: string; payload: Buffer }> = [];
    while (this.buffer.length >= 5) {
      const length = this.buffer.readUInt32BE(1);
      if (this.buffer.length < 5 + length) {
        this.needed = 5 + length - this.buffer.length;
        break;
      }
      frames.push({ kind: String.fromCharCode(this.buffer[0]!), payload: this.buffer.subarray(5, 5 + length) });
      this.buffer = this.buffer.subarray(5 + length);
    }
    return frames;
  }
}
