// A sandbox image build as the app shows it: folded from main's sandbox:progress events, pure so it
// can be tested without a window.
import type { SandboxBuildProgress } from '../../../shared/contract';

export type SandboxBuildView =
  | { state: 'idle' }
  /** Asked main to start; no progress yet. */
  | { state: 'starting' }
  | { state: 'running'; progress: SandboxBuildProgress }
  | { state: 'done'; progress: SandboxBuildProgress }
  | { state: 'failed'; message: string };

export const idleBuild: SandboxBuildView = { state: 'idle' };

/** The view after one progress event. */
export function applyBuildProgress(_view: SandboxBuildView, progress: SandboxBuildProgress): SandboxBuildView {
  if (progress.phase === 'done') return { state: 'done', progress };
  if (progress.phase === 'failed') return { state: 'failed', message: progress.line ?? 'The image build failed.' };
  return { state: 'running', progress };
}

/** The view after main refused or failed to start a build. */
export function applyBuildRefused(_view: SandboxBuildView, message: string): SandboxBuildView {
  return { state: 'failed', message };
}

const PHASE_WORDS: Record<SandboxBuildProgress['phase'], string> = {
  starting: 'Starting',
  resolving: 'Resolving packages',
  downloading: 'Downloading packages',
  unpacking: 'Unpacking packages',
  configuring: 'Configuring packages',
  installing: 'Installing',
  finishing: 'Finishing the image',
  importing: 'Importing the image into Docker',
  done: 'Built',
  failed: 'Failed',
};

/** "Unpacking packages — 120 of 573 · 2:05" */
export function describeBuildProgress(progress: SandboxBuildProgress): string {
  const seconds = Math.floor(progress.elapsedMs / 1000);
  const clock = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  const count =
    progress.done === undefined ? '' : progress.total === undefined ? ` — ${progress.done}` : ` — ${progress.done} of ${progress.total}`;
  return `${PHASE_WORDS[progress.phase]}${count} · ${clock}`;
}

/** The fraction the progress bar shows, or null when the phase has no known total (an indeterminate bar). */
export function buildFraction(progress: SandboxBuildProgress): number | null {
  if (progress.done === undefined || !progress.total) return null;
  return Math.min(1, progress.done / progress.total);
}
