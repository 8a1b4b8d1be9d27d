// The measurement behind docs/BENCHMARKS.md's "Replies": every reply of the replay set against what its own
// harness ran — exact, ran by mistake, missed, wrong language, wrong final decision — by source and by model
// family. Run: npx vitest run tests/unit/agent-replies-measure.test.ts (prints the table).
import { describe, expect, it } from 'vitest';
import { familyOf, loadReplay, score } from './agent-replies-score';

const all = loadReplay();
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
