// The measurement behind docs/BENCHMARKS.md's "Replies": every reply of the replay set against what its own
// harness ran — exact, ran by mistake, missed, wrong language, wrong final decision — by source and by model
// family, for the in-sample set and, in a second table, for the held-out set. Run:
// npx vitest run tests/unit/agent-replies-measure.test.ts (prints both tables).
import { describe, expect, it } from 'vitest';
import { familyOf, loadReplay, score } from './agent-replies-score';

const all = loadReplay();
/**
 * The held-out set's floor. It measured 51 of 67 exact (76%) before the four rules it drove and 57 (85%)
 * after; the six replies that drove them pass now, so 85% is partly in-sample (the other 61: 51 exact, before
 * and after). Its ten misses are formats Posthoc leaves alone on purpose (aider's whole-file listings, AutoGen's
 * "you can execute the following code" read as an example for the reader, OpenDevin's retired JSON actions).
 * 80% leaves those out of the way and fails on a regression of four replies; nothing run by mistake is the
 * hard line, in both sets.
 */
const HELD_OUT_EXACT = 0.8;
const scored = all.map((f) => ({ f, s: score(f) }));

function totals(rows: typeof scored) {
  return {
    replies: rows.length,
    exact: rows.filter((r) => r.s.exact).length,
    ranByMistake: rows.reduce((n, r) => n + r.s.ranByMistake, 0),
    missed: rows.reduce((n, r) => n + r.s.missed, 0),
    wrongLanguage: rows.reduce((n, r) => n + r.s.wrongLanguage, 0),
    wrongFinal: rows.filter((r) => r.s.wrongFinal).length,
  };
}

describe('the replay set, measured', () => {
  it('holds at least 100 replies from public transcripts of at least six model families, each citing its source', () => {
    const public_ = all.filter((f) => f.family !== undefined);
    expect(public_.length).toBeGreaterThanOrEqual(100);
    const families = new Set(public_.map(familyOf).filter((f) => f !== 'other' && f !== 'unlabelled'));
    expect([...families].sort()).toEqual(expect.arrayContaining(['Claude', 'DeepSeek', 'GPT', 'Llama', 'Mistral', 'Qwen']));
    for (const f of public_) {
      expect(f.cite, f.name).toMatch(/^[\w.-]+\/[\w.-]+ /);
      expect(f.harness?.length ?? 0, `${f.file}: ${f.name} says what its harness ran`).toBeGreaterThan(3);
    }
  });

  it('does what the source harness did for at least 95% of them, and runs nothing by mistake', () => {
    const rows = [
      { set: 'all', ...totals(scored) },
      ...[...new Set(all.map((f) => f.file))].map((file) => ({ set: file, ...totals(scored.filter((r) => r.f.file === file)) })),
      ...[...new Set(all.map(familyOf))].sort().map((family) => ({ set: `family: ${family}`, ...totals(scored.filter((r) => familyOf(r.f) === family)) })),
    ];
    console.table(rows);
    const misses = scored.filter((r) => !r.s.exact).map((r) => `${r.f.file}: ${r.f.name}`);
    if (misses.length) console.log(`Not exact:\n${misses.join('\n')}`);
    const all_ = rows[0]!;
    expect(all_.exact / all_.replies).toBeGreaterThanOrEqual(0.95);
    expect(all_.ranByMistake).toBe(0);
  });
});

// The held-out set: replies collected after the parser's rules were written (tests/fixtures/replies-heldout/),
// from harnesses and families the in-sample set has little of. It is measured, never asserted reply by reply,
// so its figure stays an out-of-sample one; a rule added because of one of its replies is named in
// docs/BENCHMARKS.md.
const heldOut = loadReplay('replies-heldout');
const heldScored = heldOut.map((f) => ({ f, s: score(f) }));

describe('the held-out replay set, measured', () => {
  it('holds at least 60 public replies, none of them in the in-sample set, each citing its source and what its harness ran', () => {
    expect(heldOut.length).toBeGreaterThanOrEqual(60);
    const inSample = new Set(all.map((f) => f.reply.replace(/\s+/g, ' ').trim()));
    for (const f of heldOut) {
      expect(inSample.has(f.reply.replace(/\s+/g, ' ').trim()), `${f.file}: ${f.name} is also in the in-sample set`).toBe(false);
      expect(f.cite, f.name).toMatch(/^[\w.-]+\/[\w.-]+ \S+/);
      expect(f.family?.length ?? 0, `${f.file}: ${f.name} names its model family`).toBeGreaterThan(3);
      expect(f.harness?.length ?? 0, `${f.file}: ${f.name} says what its harness ran`).toBeGreaterThan(3);
    }
    const families = new Set(heldOut.map(familyOf));
    expect([...families]).toEqual(expect.arrayContaining(['Claude', 'GPT', 'Gemini', 'Llama', 'Mistral', 'Qwen', 'DeepSeek']));
  });

  it(`does what the source harness did for at least ${HELD_OUT_EXACT * 100}% of them, and runs nothing by mistake`, () => {
    const rows = [
      { set: 'held-out', ...totals(heldScored) },
      ...[...new Set(heldOut.map((f) => f.file))].map((file) => ({ set: file, ...totals(heldScored.filter((r) => r.f.file === file)) })),
      ...[...new Set(heldOut.map(familyOf))].sort().map((family) => ({ set: `family: ${family}`, ...totals(heldScored.filter((r) => familyOf(r.f) === family)) })),
    ];
    console.table(rows);
    const misses = heldScored.filter((r) => !r.s.exact).map((r) => `${r.f.file}: ${r.f.name}`);
    if (misses.length) console.log(`Held-out, not exact:\n${misses.join('\n')}`);
    const all_ = rows[0]!;
    expect(all_.ranByMistake).toBe(0);
    expect(all_.exact / all_.replies).toBeGreaterThanOrEqual(HELD_OUT_EXACT);
  });
});
