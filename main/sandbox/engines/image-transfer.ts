// The sandbox image sent from this machine's engine to a remote one: `docker save` of the local image streamed
// straight into the remote engine's `docker load`, both through dockerode (no file on disk, no registry, nothing
// opened on the remote machine). Afterwards the remote image must have the local one's id, or the transfer failed.
import type Docker from 'dockerode';
import { Transform } from 'node:stream';
import { SandboxError } from '../sandbox-error';
import { describeEngineError } from './engine-check';

export type TransferProgress = { bytes: number; totalBytes: number | null; done: boolean };

export async function sendImage(local: Docker, remote: Docker, image: string, onProgress: (p: TransferProgress) => void = () => undefined): Promise<{ imageId: string; bytes: number }> {
  let localId: string;
  let totalBytes: number | null;
  try {
    const inspected = await local.getImage(image).inspect();
    localId = inspected.Id;
    totalBytes = inspected.Size ?? null;
  } catch (error) {
    throw new SandboxError('image-missing', `The sandbox image ${image} is not on this machine's Docker either: build it first with "posthoc sandbox build". (${describeEngineError(error)})`, error);
  }
  let bytes = 0;
  let last = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, callback) {
      bytes += chunk.length;
      if (bytes - last >= 64 * 1024 * 1024) {
        last = bytes;
        onProgress({ bytes, totalBytes, done: false });
      }
      callback(null, chunk);
    },
  });
  const saved = await local.getImage(image).get();
  saved.on('error', (error: Error) => counter.destroy(error));
  saved.pipe(counter);
  let loadOutput: NodeJS.ReadableStream;
  try {
    loadOutput = await remote.loadImage(counter, { quiet: true });
  } catch (error) {
    (saved as unknown as { destroy?: () => void }).destroy?.();
    throw new SandboxError('docker-failed', `The remote engine did not take the image: ${describeEngineError(error)}`, error);
  }
  // docker load answers a JSON stream; an error there is a line with "error" (the HTTP status is 200 by then).
  await new Promise<void>((resolve, reject) => {
    remote.modem.followProgress(loadOutput, (error: Error | null, output: Array<{ error?: string }>) => {
      const failed = error?.message ?? output.find((o) => o.error)?.error;
      if (failed) reject(new SandboxError('docker-failed', `The remote engine could not load the image: ${failed}`));
      else resolve();
    });
  });
  const there = await remote
    .getImage(image)
    .inspect()
    .catch((error: unknown) => {
      throw new SandboxError('docker-failed', `The image was sent but the remote engine does not show ${image}: ${describeEngineError(error)}`, error);
    });
  if (there.Id !== localId) throw new SandboxError('docker-failed', `The remote engine's ${image} is ${there.Id}, not this machine's ${localId}; send it again.`);
  onProgress({ bytes, totalBytes, done: true });
  return { imageId: there.Id, bytes };
}
