// Types of start-checks.mjs, for the tests that import it.
export declare const NODE_MINIMUM: number[];
export declare function nodeProblem(version?: string): string | null;
export declare function electronPackageDir(fromDir: string): string | null;
export declare function electronBinary(packageDir: string): string | null;
export declare function downloadReason(output: string): string;
export declare function ensureElectron(fromDir: string, options?: { log?: (line: string) => void }): { binary: string } | { problem: string };
