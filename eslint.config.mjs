// ESLint: typescript-eslint's recommended rules everywhere, React's hook rules in the renderer, and the
// layers of docs/ARCHITECTURE.md ("Boundaries") checked by machine. tests/unit/architecture.test.ts checks
// the same boundaries on the source text, reading the layer table from here: one table, two checkers.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** main/ layers, highest first: a layer may import its own folder and any lower rank. */
export const LAYER_RANK = {
  app: 5,
  cli: 5,
  ipc: 4,
  services: 3,
  agent: 2,
  sandbox: 2,
  gateway: 2,
  effects: 2,
  vault: 2,
  oauth: 2,
  policy: 2,
  store: 1,
  // Interfaces that sibling layers implement for each other (a port declared once, below both).
  ports: 0.75,
  // Facts about the installed program and its process (package root, process identity): below everything.
  platform: 0.5,
};
/** main/ipc is a thin adapter over main/services; it may skip a layer only for these modules, whose error classes it maps to contract codes. */
export const IPC_MAY_ALSO_IMPORT = { 'main/sandbox/sandbox-error.ts': 'sandbox', 'main/vault/vault.ts': 'vault' };
/** The two files that may touch ipcMain / ipcRenderer: everything else goes through the typed contract. */
const TRANSPORT_FILES = ['main/app/electron-transport.ts', 'preload/index.ts'];

const layers = Object.keys(LAYER_RANK);
const typesOf = (layer) => [`main-${layer}`];

const elements = [
  ...layers.map((layer) => ({ type: `main-${layer}`, pattern: `main/${layer}/**`, partialMatch: false })),
  { type: 'shared', pattern: 'shared/**', partialMatch: false },
  { type: 'renderer', pattern: 'renderer/**', partialMatch: false },
  { type: 'preload', pattern: 'preload/**', partialMatch: false },
];

const allow = (fromTypes, toTypes) => ({ from: { element: { type: fromTypes } }, allow: { to: { element: { type: toTypes } } } });
const policies = [
  allow(['shared'], ['shared']),
  allow(['renderer'], ['renderer', 'shared']),
  allow(['preload'], ['preload', 'shared']),
  ...layers.map((layer) => {
    if (layer === 'platform') return allow(typesOf(layer), typesOf(layer));
    if (layer === 'ipc') return allow(typesOf(layer), [...typesOf('ipc'), ...typesOf('services'), 'shared']);
    const below = layers.filter((other) => LAYER_RANK[other] < LAYER_RANK[layer]).flatMap(typesOf);
    return allow(typesOf(layer), [...typesOf(layer), ...below, 'shared']);
  }),
  {
    from: { element: { type: 'main-ipc' } },
    allow: { to: { element: { type: [...new Set(Object.values(IPC_MAY_ALSO_IMPORT))].map((l) => `main-${l}`) }, file: { categories: 'ipc-maps-its-errors' } } },
  },
];

// Anchored regexes: a gitignore-style group would also match a relative '../shared/domain' ('domain' is a builtin).
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NODE_BUILTINS = `^(node:.*|(${builtinModules.map(escape).join('|')})(/.*)?)$`;
const ELECTRON = '^electron(/.*)?$';
const DOM_ONLY = '^(react|react-dom|zustand|prism-react-renderer)(/.*)?$';

/** no-restricted-imports for one group of files (the rule's options do not merge across config blocks, so each group states all of them). */
function restrictedImports({ node = false, electron = false, dom = false, ipc = true }) {
  const patterns = [];
  if (node) patterns.push({ regex: NODE_BUILTINS, message: 'No Node builtin here: see "Boundaries" in docs/ARCHITECTURE.md.' });
  if (electron) patterns.push({ regex: ELECTRON, message: "Only main/app and preload/ import 'electron'." });
  if (dom) patterns.push({ regex: DOM_ONLY, message: 'shared/ runs in main and the renderer: no DOM-only package.' });
  const paths = ipc ? [{ name: 'electron', importNames: ['ipcMain', 'ipcRenderer'], message: 'Raw IPC lives only in main/app/electron-transport.ts and preload/index.ts; use the contract.' }] : [];
  return ['error', { paths, patterns }];
}

const RAW_IPC = { selector: 'MemberExpression[property.name=/^ipc(Main|Renderer)$/]', message: 'Raw IPC lives only in main/app/electron-transport.ts and preload/index.ts; use the contract.' };
const HTML_STRINGS = [
  { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'The renderer never renders HTML strings.' },
  { selector: 'MemberExpression[property.name=/^(inner|outer)HTML$/]', message: 'The renderer never renders HTML strings.' },
  { selector: "CallExpression[callee.property.name='insertAdjacentHTML']", message: 'The renderer never renders HTML strings.' },
];

export default tseslint.config(
  // bench/tasks/*/workspace: outside exercises' own files (Jest specs, Babel configs), the bench's data, not Posthoc's code.
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-output/**', '**/native/build/**', 'main/sandbox/image/**', 'bench/tasks/*/workspace/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // tsc checks these (noUnusedLocals, noUnusedParameters); the lint copy only adds noise on `_` names and catch bindings.
      '@typescript-eslint/no-unused-vars': 'off',
      // `catch {}` with a comment, and empty arrow bodies as no-op callbacks, are deliberate in this codebase.
      'no-empty': ['error', { allowEmptyCatch: true }],
      '@typescript-eslint/no-empty-function': 'off',
      // Control characters in regexes are how the redaction and terminal code name the bytes they strip.
      'no-control-regex': 'off',
      // `ok && doIt()` and `cond ? a() : b()` as statements are house style in scripts and tests.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      'no-restricted-syntax': ['error', RAW_IPC],
      'no-restricted-imports': restrictedImports({ electron: true }),
    },
  },
  {
    // Tests and benchmarks read untyped JSON (CLI output, HTTP bodies) and reach into internals on purpose.
    files: ['tests/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The layers.
  {
    files: ['main/**/*.{ts,tsx}', 'shared/**/*.{ts,tsx}', 'renderer/**/*.{ts,tsx}', 'preload/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': elements,
      'boundaries/files': [{ category: 'ipc-maps-its-errors', pattern: Object.keys(IPC_MAY_ALSO_IMPORT) }],
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import', 'require'],
      'boundaries/include': ['main/**', 'shared/**', 'renderer/**', 'preload/**'],
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] } },
    },
    rules: {
      'boundaries/dependencies': ['error', { default: 'disallow', policies }],
      'boundaries/no-unknown-files': 'error',
    },
  },
  {
    files: ['main/app/**/*.ts'],
    rules: { 'no-restricted-imports': restrictedImports({}) },
  },
  {
    files: ['shared/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
    rules: { 'no-restricted-imports': restrictedImports({ node: true, electron: true, dom: true }) },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Loading on mount (`useEffect(() => void load(), [])`) and copying main's answer into a form's fields
      // when it changes are this renderer's pattern; the React Compiler rule would have each rewritten.
      'react-hooks/set-state-in-effect': 'off',
      'no-restricted-imports': restrictedImports({ node: true, electron: true }),
      'no-restricted-syntax': ['error', RAW_IPC, ...HTML_STRINGS],
    },
  },
  {
    files: ['preload/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': restrictedImports({ node: true }) },
  },
  // The transport files: the only places raw ipcMain / ipcRenderer may appear.
  {
    files: [TRANSPORT_FILES[0]],
    rules: { 'no-restricted-imports': restrictedImports({ ipc: false }), 'no-restricted-syntax': 'off' },
  },
  {
    files: [TRANSPORT_FILES[1]],
    rules: { 'no-restricted-imports': restrictedImports({ node: true, ipc: false }), 'no-restricted-syntax': 'off' },
  },
);
