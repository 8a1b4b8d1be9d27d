// Four tiers, all run by `npm test`: unit (pure logic), integration (real Docker, git objects, SQLite,
// PostgreSQL, keychain), e2e (the web host driven in Chromium), property (fast-check against real databases).
// scripts/test.mjs checks the system services first.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // Property tests (fast-check) against real databases and real folders; each file keeps its run count
        // CI-sized (POSTHOC_PROPERTY_RUNS raises it: npm run test:nightly).
        test: {
          name: 'property',
          include: ['tests/property/**/*.test.ts'],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
