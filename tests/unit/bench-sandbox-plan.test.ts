// The sandbox bench on a machine that lacks its images: what it builds first, what it measures, and what it
// says when a build fails (bench/sandbox-plan.ts), decided without Docker: builds are stand-ins.
import { describe, expect, it } from 'vitest';
import { buildFirst, planBench, type Found, type KnownImage } from '../../bench/sandbox-plan';

const FULL = 'posthoc-sandbox:0.1.0';
const MINIMAL = 'posthoc-sandbox:minimal';
const known = new Map<string, KnownImage>([
  [FULL, { options: {}, recipe: 'full-recipe', what: 'the full image' }],
  [MINIMAL, { options: { packages: ['python3-minimal'] }, recipe: 'minimal-recipe', what: 'the minimal image' }],
]);
const current: Found = { present: true, recipe: 'full-recipe' };
const currentMinimal: Found = { present: true, recipe: 'minimal-recipe' };
const absent: Found = { present: false };

describe('what the sandbox bench builds before it measures', () => {
  it('on a fresh machine builds both images, the full one first, each with its own options', () => {
    expect(planBench([FULL, MINIMAL], known, new Map(), false)).toEqual([
      { image: FULL, do: 'build', options: {}, why: 'it is not in Docker' },
      { image: MINIMAL, do: 'build', options: { packages: ['python3-minimal'] }, why: 'it is not in Docker' },
    ]);
  });

  it('builds only the missing minimal image when the full one is current', () => {
    const plan = planBench([FULL, MINIMAL], known, new Map<string, Found>([[FULL, current], [MINIMAL, absent]]), false);
    expect(plan).toEqual([
      { image: FULL, do: 'measure' },
      { image: MINIMAL, do: 'build', options: { packages: ['python3-minimal'] }, why: 'it is not in Docker' },
    ]);
  });

  it('rebuilds an image another version of Posthoc built (another recipe, or none), and measures current ones as they are', () => {
    const plan = planBench([FULL, MINIMAL], known, new Map<string, Found>([[FULL, { present: true, recipe: undefined }], [MINIMAL, { present: true, recipe: 'old' }]]), false);
    expect(plan.map((s) => [s.do, 'why' in s ? s.why : ''])).toEqual([
      ['build', "it was built by another version of Posthoc (no recipe label, today's is full-recipe)"],
      ['build', "it was built by another version of Posthoc (recipe old, today's is minimal-recipe)"],
    ]);
    expect(planBench([FULL, MINIMAL], known, new Map([[FULL, current], [MINIMAL, currentMinimal]]), false)).toEqual([
      { image: FULL, do: 'measure' },
      { image: MINIMAL, do: 'measure' },
    ]);
  });

  it('with BENCH_BUILD=1 builds both whatever Docker has', () => {
    const plan = planBench([FULL, MINIMAL], known, new Map([[FULL, current], [MINIMAL, currentMinimal]]), true);
    expect(plan.map((s) => s.do)).toEqual(['build', 'build']);
  });

  it('measures an image it does not know when Docker has it, and leaves it out, saying so, when not', () => {
    const plan = planBench(['mine:1', 'gone:2'], known, new Map([['mine:1', { present: true, recipe: 'anything' }]]), true);
    expect(plan).toEqual([
      { image: 'mine:1', do: 'measure' },
      { image: 'gone:2', do: 'skip', why: `it is not in Docker, and the bench builds only ${FULL} and ${MINIMAL}` },
    ]);
  });
});

describe('running the builds', () => {
  const clock = () => {
    let t = 0;
    return () => (t += 73_000);
  };

  it('builds in order, says why and how long each took, and measures everything built or current, and says what it leaves out', async () => {
    const built: string[] = [];
    const lines: string[] = [];
    const plan = planBench([FULL, MINIMAL, 'gone:2'], known, new Map([[FULL, current]]), false);
    const images = await buildFirst(plan, known, async (image) => void built.push(image), (l) => lines.push(l), clock());
    expect(built).toEqual([MINIMAL]);
    expect(images).toEqual([FULL, MINIMAL]);
    expect(lines).toEqual([
      `${MINIMAL}: it is not in Docker; building it (the minimal image), which takes minutes.`,
      `built ${MINIMAL} in 73 s`,
      `gone:2 is not measured: it is not in Docker, and the bench builds only ${FULL} and ${MINIMAL}. The bench measures ${FULL} and ${MINIMAL} without it.`,
    ]);
  });

  it('measures the full image alone when the minimal one cannot be built, saying why', async () => {
    const lines: string[] = [];
    const plan = planBench([FULL, MINIMAL], known, new Map([[FULL, current]]), false);
    const fail = async () => {
      throw new Error('debootstrap: cannot reach deb.debian.org');
    };
    const images = await buildFirst(plan, known, fail, (l) => lines.push(l), clock());
    expect(images).toEqual([FULL]);
    expect(lines.at(-1)).toBe(`${MINIMAL} is not measured: it could not be built after 73 s: debootstrap: cannot reach deb.debian.org. The bench measures ${FULL} without it.`);
  });

  it('stops, saying how to get an image, when nothing can be measured', async () => {
    const lines: string[] = [];
    const plan = planBench([FULL, MINIMAL], known, new Map(), false);
    const fail = async () => {
      throw new Error('Docker cannot pull debian:bookworm-slim');
    };
    await expect(buildFirst(plan, known, fail, (l) => lines.push(l), clock())).rejects.toThrow(/^No sandbox image to measure\. Build one with "npx posthoc sandbox build"/);
    expect(lines.filter((l) => l.includes('is not measured: it could not be built'))).toHaveLength(2);
  });
});
