// The design's rules on the renderer's source: every colour is one of styles.css's variables (so the dark
// theme reaches it), and no text is set under 13 px.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = 'renderer/src';
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.(css|tsx?)$/.test(e.name) ? [join(dir, e.name)] : []));

/** styles.css without its :root block, where the colours are defined. */
function source(path: string): string {
  const text = readFileSync(path, 'utf8');
  if (!path.endsWith('styles.css')) return text;
  const start = text.indexOf(':root {');
  return text.slice(0, start) + text.slice(text.indexOf('\n}', start) + 2);
}

const COLOUR = /#[0-9a-f]{3,8}\b|\brgba?\(|\bhsla?\(/gi;
const SMALL = /font-size:\s*(?:(\d+(?:\.\d+)?)px|(0?\.\d+)(?:em|rem))/g;

function colourLiterals(text: string): string[] {
  return [...text.matchAll(COLOUR)].map((m) => m[0]);
}

function smallFontSizes(text: string): string[] {
  return [...text.matchAll(SMALL)].filter((m) => (m[1] !== undefined ? Number(m[1]) < 13 : Number(m[2]) * 14 < 13)).map((m) => m[0]);
}

describe('renderer styles', () => {
  const all = files(ROOT);

  it('has every colour as a variable defined in styles.css, nowhere else', () => {
    const found = all.flatMap((path) => colourLiterals(source(path)).map((c) => `${path}: ${c}`));
    expect(found).toEqual([]);
    // And styles.css does define both themes.
    expect(readFileSync(join(ROOT, 'styles.css'), 'utf8')).toMatch(/--text: light-dark\(#[0-9a-f]{6}, #[0-9a-f]{6}\)/);
  });

  it('sets no text under 13 px', () => {
    const found = all.flatMap((path) => smallFontSizes(readFileSync(path, 'utf8')).map((s) => `${path}: ${s}`));
    expect(found).toEqual([]);
  });

  it('finds what it looks for', () => {
    expect(colourLiterals("a { color: #fff; background: rgba(0, 0, 0, 0.3) } b { color: var(--text) }")).toEqual(['#fff', 'rgba(']);
    expect(colourLiterals("style={{ color: '#24292f' }}")).toEqual(['#24292f']);
    expect(smallFontSizes('a { font-size: 12.5px } b { font-size: 0.85em } c { font-size: 13px } d { font-size: 0.95em }')).toEqual(['font-size: 12.5px', 'font-size: 0.85em']);
  });
});
