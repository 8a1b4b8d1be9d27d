// Import boundaries, checked on the source text: shared/ is the leaf, renderer/ and preload/ reach
// main only through the contract, 'electron' stays in main/app and preload/, and the main-side layers
// flow one way: app → ipc → services → (agent, sandbox, …) → store → shared.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as lint from '../../eslint.config.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ROOTS = ['main', 'preload', 'renderer/src', 'shared'];

type Import = { file: string; specifier: string; target: string | null };

function walk(dir: string, keep: RegExp = /\.tsx?$/): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full, keep));
    else if (keep.test(entry.name)) out.push(full);
  }
  return out;
}

const toPosix = (p: string) => p.split(sep).join('/');

/** Static imports and re-exports (`from '…'`, bare `import '…'`) and dynamic `import('…')`. */
function importSpecifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) found.push(m[1]!);
  return found;
}

const files = ROOTS.flatMap((r) => walk(join(ROOT, r))).map((f) => toPosix(relative(ROOT, f)));
const imports: Import[] = files.flatMap((file) =>
  importSpecifiers(readFileSync(join(ROOT, file), 'utf8')).map((specifier) => ({
    file,
    specifier,
    target: specifier.startsWith('.') ? toPosix(relative(ROOT, resolve(ROOT, dirname(file), specifier))) : null,
  })),
);

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isNodeBuiltin = (spec: string) => spec.startsWith('node:') || NODE_BUILTINS.has(spec) || NODE_BUILTINS.has(spec.split('/')[0]!);
const isElectron = (spec: string) => spec === 'electron' || spec.startsWith('electron/');
const isUnder = (path: string | null, folder: string) => path !== null && (path === folder || path.startsWith(`${folder}/`));
const packageName = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);

function offenders(where: (i: Import) => boolean, bad: (i: Import) => boolean): string[] {
  return imports.filter((i) => where(i) && bad(i)).map((i) => `${i.file} imports '${i.specifier}'`);
}

/**
 * main/ layers and the modules main/ipc may also import (whose error classes it maps to contract codes): the
 * lint config's own table, so the two checkers cannot disagree.
 */
const LAYER_RANK: Record<string, number> = lint.LAYER_RANK;
const IPC_MAY_ALSO_IMPORT = new Set(Object.keys(lint.IPC_MAY_ALSO_IMPORT).map((f) => f.replace(/\.ts$/, '')));

function mainLayer(path: string): string | null {
  const m = /^main\/([^/]+)(\/|$)/.exec(path);
  return m ? m[1]! : null;
}

describe('the import scanner', () => {
  it('finds static, type-only, side-effect, re-export and dynamic imports', () => {
    const source = [
      "import a from 'one';",
      "import type { B } from '../two';",
      "import {\n  c,\n  d,\n} from './three';",
      "import './four.css';",
      "export { e } from 'five';",
      "export * from './six';",
      "const g = await import('seven');",
      "// import x from 'commented-out';",
      "/* import y from 'block-comment'; */",
    ].join('\n');
    expect(importSpecifiers(source).sort()).toEqual(['../two', './four.css', './six', './three', 'five', 'one', 'seven'].sort());
  });

  it('sees every source root and the imports in it', () => {
    for (const root of ROOTS) expect(files.some((f) => isUnder(f, root))).toBe(true);
    expect(imports.some((i) => i.file === 'preload/index.ts' && i.specifier === 'electron')).toBe(true);
    expect(imports.some((i) => i.file.startsWith('main/services/') && i.target === 'main/store/task-store')).toBe(true);
  });
});

describe('import boundaries', () => {
  it('shared/ imports nothing from main, preload or renderer', () => {
    expect(
      offenders(
        (i) => isUnder(i.file, 'shared'),
        (i) => i.target !== null && !isUnder(i.target, 'shared'),
      ),
    ).toEqual([]);
  });

  it('shared/ imports no electron, no Node builtin and no DOM-only package', () => {
    const DOM_ONLY = new Set(['react', 'react-dom', 'zustand', 'prism-react-renderer']);
    expect(
      offenders(
        (i) => isUnder(i.file, 'shared'),
        (i) => i.target === null && (isElectron(i.specifier) || isNodeBuiltin(i.specifier) || DOM_ONLY.has(packageName(i.specifier))),
      ),
    ).toEqual([]);
  });

  it('renderer/ and preload/ import only shared/ (relative) and npm packages, never main/', () => {
    const folders = ['renderer', 'preload'];
    expect(
      offenders(
        (i) => folders.some((f) => isUnder(i.file, f)),
        (i) => i.target !== null && !isUnder(i.target, 'shared') && !folders.some((f) => isUnder(i.file, f) && isUnder(i.target, f)),
      ),
    ).toEqual([]);
  });

  it('renderer/ imports no Node builtin and no electron', () => {
    expect(
      offenders(
        (i) => isUnder(i.file, 'renderer'),
        (i) => i.target === null && (isNodeBuiltin(i.specifier) || isElectron(i.specifier)),
      ),
    ).toEqual([]);
  });

  it('preload/ imports no Node builtin (a sandboxed preload cannot load them)', () => {
    expect(offenders((i) => isUnder(i.file, 'preload'), (i) => i.target === null && isNodeBuiltin(i.specifier))).toEqual([]);
  });

  it("imports 'electron' only under main/app and preload/", () => {
    expect(
      offenders(
        (i) => !isUnder(i.file, 'main/app') && !isUnder(i.file, 'preload'),
        (i) => isElectron(i.specifier),
      ),
    ).toEqual([]);
  });

  it('every main/ folder has a known layer', () => {
    const unknown = [...new Set(files.map((f) => mainLayer(f)).filter((l): l is string => l !== null && !(l in LAYER_RANK)))];
    expect(unknown, 'add the new folder to LAYER_RANK in eslint.config.mjs, in the layer it belongs to').toEqual([]);
  });

  it('main/ layers flow one way: app → ipc → services → (agent, sandbox, …) → store → shared', () => {
    const wrong = imports
      .filter((i) => mainLayer(i.file) !== null && i.target !== null && mainLayer(i.target) !== null)
      .filter((i) => {
        const from = mainLayer(i.file)!;
        const to = mainLayer(i.target!)!;
        if (from === to) return false;
        return LAYER_RANK[to]! >= LAYER_RANK[from]!;
      })
      .map((i) => `${i.file} imports '${i.specifier}' (main/${mainLayer(i.file)} may not depend on main/${mainLayer(i.target!)})`);
    expect(wrong).toEqual([]);
  });

  it('main/ipc imports only main/services, shared/ and the error modules it maps', () => {
    expect(
      offenders(
        (i) => isUnder(i.file, 'main/ipc'),
        (i) =>
          i.target !== null &&
          !['main/ipc', 'main/services', 'shared'].some((f) => isUnder(i.target, f)) &&
          !IPC_MAY_ALSO_IMPORT.has(i.target),
      ),
    ).toEqual([]);
  });

  it('nothing outside main/app imports main/app', () => {
    expect(offenders((i) => !isUnder(i.file, 'main/app'), (i) => isUnder(i.target, 'main/app'))).toEqual([]);
  });

  it('main/store imports only itself, main/platform and shared/', () => {
    expect(
      offenders(
        (i) => isUnder(i.file, 'main/store'),
        (i) => i.target !== null && !isUnder(i.target, 'main/store') && !isUnder(i.target, 'main/platform') && !isUnder(i.target, 'shared'),
      ),
    ).toEqual([]);
  });

  it('main/platform imports nothing of Posthoc but itself', () => {
    expect(
      offenders(
        (i) => isUnder(i.file, 'main/platform'),
        (i) => i.target !== null && !isUnder(i.target, 'main/platform'),
      ),
    ).toEqual([]);
  });

  it('main/services never imports main/ipc, main/app or main/cli', () => {
    expect(
      offenders(
        (i) => isUnder(i.file, 'main/services'),
        (i) => ['main/ipc', 'main/app', 'main/cli'].some((f) => isUnder(i.target, f)),
      ),
    ).toEqual([]);
  });
});

describe('the CLI is a client of the contract', () => {
  // Every command with an app equivalent calls the contract through main/ipc/local-client.ts; only the
  // composition (createServices, and openRecord for the commands that only read the record, in
  // main/cli/index.ts) reaches main/services. See main/cli/index.ts's header.
  const COMPOSITION = new Set(['main/services/app-services', 'main/services/record-services']);
  it('main/cli imports of main/services only the composition roots, and only in main/cli/index.ts', () => {
    expect(
      offenders(
        (i) => isUnder(i.file, 'main/cli'),
        (i) => isUnder(i.target, 'main/services') && !(i.file === 'main/cli/index.ts' && COMPOSITION.has(i.target!)),
      ),
    ).toEqual([]);
  });

  it('main/cli reads no store of the services (the task store, the undo store, the database)', () => {
    expect(
      offenders(
        (i) => isUnder(i.file, 'main/cli'),
        (i) => isUnder(i.target, 'main/store') && i.target !== 'main/store/data-dir',
      ),
    ).toEqual([]);
  });
});

describe('renderer never renders HTML strings', () => {
  it('no file under renderer/ uses innerHTML or dangerouslySetInnerHTML', () => {
    const rendererFiles = walk(join(ROOT, 'renderer'), /\.(tsx?|jsx?|html)$/).map((f) => toPosix(relative(ROOT, f)));
    expect(rendererFiles.length).toBeGreaterThan(0);
    const uses = rendererFiles.flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, n) => (/dangerouslySetInnerHTML|\b(inner|outer)HTML\b|insertAdjacentHTML/.test(line) ? [`${file}:${n + 1}: ${line.trim()}`] : [])),
    );
    expect(uses).toEqual([]);
  });
});
