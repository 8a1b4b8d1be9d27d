// How close the context budget's token estimate (main/agent/token-estimate.ts) is to a real tokenizer's
// count: js-tiktoken's cl100k_base (GPT-4, GPT-3.5) and o200k_base (GPT-4o), over texts the agent sends:
// the system prompt, code, tool logs, JSON, hex dumps, prose in other scripts and the 60 kB outputs of the
// context-window test. The estimate is meant to err high (ratio estimate/real >= 1): a request it lets
// through must fit the window.
//
// js-tiktoken is not a dependency of Posthoc; install it anywhere and point to it:
//   (mkdir -p /tmp/tok && cd /tmp/tok && npm init -y && npm install js-tiktoken)
//   BENCH_TIKTOKEN=/tmp/tok/node_modules/js-tiktoken/dist/index.cjs npx tsx bench/tokens.ts
import { createRequire } from 'node:module';
import { systemPrompt } from '../main/agent/system-prompt';
import { estimateTokens } from '../main/agent/token-estimate';

type Encoder = { encode(text: string): number[] };
const require = createRequire(import.meta.url);
const tiktoken = require(process.env.BENCH_TIKTOKEN ?? 'js-tiktoken') as { getEncoding(name: string): Encoder };

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}
const rand = seeded(42);
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');

const samples: Record<string, string> = {
  'system prompt': systemPrompt([{ name: 'project', hostPath: '/home/p/project', mountPath: '/workspace/project', readOnly: false }], 20),
  'python code': `import csv, json\nfrom pathlib import Path\n\nrows = []\nfor p in sorted(Path('/workspace/project').glob('**/*.csv')):\n    with p.open() as f:\n        for r in csv.DictReader(f):\n            rows.append({k: v.strip() for k, v in r.items()})\nprint(json.dumps(rows[:5], indent=2))\nprint(len(rows), 'rows')\n`.repeat(20),
  'ls -la output': Array.from({ length: 300 }, (_, i) => `-rw-r--r-- 1 user user ${Math.floor(rand() * 99999)} Nov 25 14:${String(i % 60).padStart(2, '0')} file_${i}_${hex(6)}.txt`).join('\n'),
  'pip log': Array.from({ length: 150 }, (_, i) => `Collecting package-${i}==1.${i}.0\n  Downloading package_${i}-1.${i}.0-py3-none-any.whl (${(rand() * 900).toFixed(1)} kB)`).join('\n'),
  'JSON records': JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}`, price: +(rand() * 100).toFixed(2), tags: ['a', 'b'], ok: i % 2 === 0 }))),
  'hex dump': Array.from({ length: 400 }, () => hex(64)).join('\n'),
  'base64': Buffer.from(hex(30000), 'hex').toString('base64'),
  'English prose': 'The agent reads the folder, finds the invoices from last quarter, and writes a summary for the person. '.repeat(100),
  'German prose': 'Die Rechnungen des letzten Quartals wurden gelesen, geprüft und in einer Übersicht zusammengefasst. '.repeat(100),
  'Chinese prose': '代理读取文件夹，找到上个季度的发票，并为用户写一份摘要。'.repeat(100),
  'emoji and symbols': '✅ done → next ★ ✗ failed … 🚀🔥 ─┼─ '.repeat(200),
  '60 kB test output (ASCII lines)': Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(5, '0')} ${'x'.repeat(48)}`).join('\n'),
  '60 kB random printable': Array.from({ length: 60000 }, () => String.fromCharCode(33 + Math.floor(rand() * 94))).join(''),
};

const encoders = { cl100k: tiktoken.getEncoding('cl100k_base'), o200k: tiktoken.getEncoding('o200k_base') };
console.log('| text | chars | estimate | cl100k | estimate/cl100k | o200k | estimate/o200k |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
let worst = Infinity;
for (const [name, text] of Object.entries(samples)) {
  const est = estimateTokens(text);
  const a = encoders.cl100k.encode(text).length;
  const b = encoders.o200k.encode(text).length;
  worst = Math.min(worst, est / a, est / b);
  console.log(`| ${name} | ${text.length} | ${est} | ${a} | ${(est / a).toFixed(2)} | ${b} | ${(est / b).toFixed(2)} |`);
}
console.log(`\nlowest ratio: ${worst.toFixed(2)} (below 1.00 the estimate undercounts)`);
