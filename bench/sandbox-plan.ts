// What bench/sandbox.ts builds before it measures, decided from what Docker has. The bench knows how to
// build two images: the full one (posthoc-sandbox:VERSION, or BENCH_FULL_IMAGE) and the minimal one
// (posthoc-sandbox:minimal, the four packages of Posthoc 0.1). One of them that is missing, or was built by
// another version of Posthoc (its recipe label is not today's), is built first — an old image may not even
// speak to today's executor. One that cannot be built is left out, saying why, and the bench measures the
// rest (the full image alone when the minimal one fails); with nothing left to measure it stops. Images
// the bench does not know (BENCH_IMAGES) are measured when present and left out, saying so, when not.
import type { BuildOptions } from '../main/sandbox/sandbox-image';

/** An image the bench can build: how, the recipe label a current build carries, and what it is, in words. */
export type KnownImage = { options: BuildOptions; recipe: string; what: string };
/** What Docker has under a name: nothing, or an image with its recipe label (undefined when it has none). */
export type Found = { present: false } | { present: true; recipe: string | undefined };

export type Step = { image: string; do: 'measure' } | { image: string; do: 'build'; options: BuildOptions; why: string } | { image: string; do: 'skip'; why: string };

export function planBench(wanted: readonly string[], known: ReadonlyMap<string, KnownImage>, found: ReadonlyMap<string, Found>, forceBuild: boolean): Step[] {
  return wanted.map((image): Step => {
    const k = known.get(image);
    const f = found.get(image) ?? { present: false };
    if (!k) {
      if (f.present) return { image, do: 'measure' };
      const buildable = [...known.keys()].join(' and ');
      return { image, do: 'skip', why: `it is not in Docker, and the bench builds only ${buildable}` };
    }
    if (forceBuild) return { image, do: 'build', options: k.options, why: 'BENCH_BUILD=1 builds it' };
    if (!f.present) return { image, do: 'build', options: k.options, why: 'it is not in Docker' };
    if (f.recipe !== k.recipe) {
      const label = f.recipe === undefined ? 'no recipe label' : `recipe ${f.recipe}`;
      return { image, do: 'build', options: k.options, why: `it was built by another version of Posthoc (${label}, today's is ${k.recipe})` };
    }
    return { image, do: 'measure' };
  });
}

/**
 * Runs the plan's builds, in order, and returns the images to measure. `build` resolves once the image is
 * there; a build that throws leaves its image out. `say` gets every line for stderr: why a build starts,
 * how long it took, why an image is left out and what is measured instead.
 */
export async function buildFirst(
  steps: readonly Step[],
  known: ReadonlyMap<string, KnownImage>,
  build: (image: string, options: BuildOptions) => Promise<void>,
  say: (line: string) => void,
  now: () => number = () => performance.now(),
): Promise<string[]> {
  const ready: string[] = [];
  const left: Array<{ image: string; why: string }> = [];
  for (const step of steps) {
    if (step.do === 'skip') {
      left.push({ image: step.image, why: step.why });
      continue;
    }
    if (step.do === 'build') {
      say(`${step.image}: ${step.why}; building it (${known.get(step.image)?.what ?? 'as the bench knows it'}), which takes minutes.`);
      const started = now();
      try {
        await build(step.image, step.options);
      } catch (error) {
        left.push({ image: step.image, why: `it could not be built after ${seconds(now() - started)}: ${error instanceof Error ? error.message : String(error)}` });
        continue;
      }
      say(`built ${step.image} in ${seconds(now() - started)}`);
    }
    ready.push(step.image);
  }
  for (const { image, why } of left) {
    say(`${image} is not measured: ${why}. ${ready.length ? `The bench measures ${ready.join(' and ')} without it.` : ''}`.trim());
  }
  if (ready.length === 0) throw new Error('No sandbox image to measure. Build one with "npx posthoc sandbox build" (it needs Docker and Debian\'s archive), then run the bench again.');
  return ready;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(0)} s`;
