// The packaged app reads some of Posthoc's own files from disk at run time (the sandbox image's sources):
// electron-builder.yml must ship each of them, and unpack it from the asar, or the packaged app cannot
// even say whether its sandbox image is current.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IMAGE_FILES } from '../../main/sandbox/sandbox-image';

const config = readFileSync('electron-builder.yml', 'utf8');
const section = (name: string): string[] => {
  const start = config.indexOf(`\n${name}:\n`);
  expect(start, `${name}: in electron-builder.yml`).toBeGreaterThan(-1);
  const lines = config.slice(start + name.length + 3).split('\n');
  const end = lines.findIndex((l) => l !== '' && !l.startsWith(' '));
  return lines.slice(0, end).flatMap((l) => (/^\s+- /.test(l) ? [l.replace(/^\s+- /, '').replace(/^"|"$/g, '')] : []));
};

describe('electron-builder.yml ships the files the sandbox image is built from', () => {
  const sources = ['main/sandbox/image/claims-preload.c', 'main/sandbox/image/posthoc-watch.c', ...IMAGE_FILES.map((f) => `main/sandbox/image/${f.source}`)];
  it.each(['files', 'asarUnpack'])('%s lists every source', (name) => {
    const listed = section(name);
    for (const s of sources) expect(listed, s).toContain(s);
  });
});
