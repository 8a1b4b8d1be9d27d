// Builds the three bundles: main (Electron entry and the CLI, which share the services), preload
// (CommonJS, as sandboxed preloads must be) and the renderer (React).
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';

export default defineConfig({
  main: {
    build: {
      // zod is bundled: one file of its own, evaluated at once, instead of ~95 modules resolved and loaded
      // one by one (about half of `posthoc tasks`' start; docs/BENCHMARKS.md, "CLI start").
      externalizeDeps: { exclude: ['zod'] },
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve('main/app/index.ts'),
          cli: resolve('main/cli/index.ts'),
          // keytar runs in this helper process so a keychain crash cannot take Posthoc down (main/vault/keytar-process.ts).
          'keytar-child': resolve('main/vault/keytar-child.mjs'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload can require only 'electron': bundle zod and the contract into it.
      externalizeDeps: false,
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve('preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'renderer',
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: { index: resolve('renderer/index.html') } },
    },
    plugins: [react()],
  },
});
