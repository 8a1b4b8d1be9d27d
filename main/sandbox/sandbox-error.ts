// The sandbox's error, apart from the Docker client so that a caller can recognise it without loading
// dockerode (the CLI's error report, the contract's error mapping).
export type SandboxErrorCode = 'docker-unreachable' | 'docker-permission' | 'image-missing' | 'disk-full' | 'docker-failed' | 'grant-moved';

export class SandboxError extends Error {
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
