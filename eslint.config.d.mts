// Types of the lint config's named exports, for tests/unit/architecture.test.ts (which reads the layer table).
import type { Linter } from 'eslint';

export const LAYER_RANK: Record<string, number>;
export const IPC_MAY_ALSO_IMPORT: Record<string, string>;
declare const config: Linter.Config[];
export default config;
