// What an action changed, as the sandbox reports it: the kernel's account (KernelClaims), or where the kernel
// cannot watch, what the action's own processes said they wrote through the claim library (LibraryClaims).
// It is how Posthoc tells the action's changes from the person's edits made while the action ran
// (docs/ARCHITECTURE.md, "Attribution").
//
// Every path an action's process opened for writing, created, truncated, renamed (both names), removed,
// linked or made a folder of is a claim; `final` is what the action left there as far as it knows:
// the file's identity after its last close or rename, 'absent' when its last step removed it or renamed
// it away, null when unknown (the process was killed with the file open, or it wrote through mmap).

/** A file's identity and version: inode, size and modification time in nanoseconds (a decimal string). */
export type FileStamp = { ino: number; size: number; mtimeNs: string };

export type PathClaim = { final: FileStamp | 'absent' | null; dir: boolean };

/** Claims of one granted folder, keyed by the path relative to the folder ('a/b.txt'). */
export type FolderClaims = { workspace: string; paths: Map<string, PathClaim> };

/**
 * What the claim library logged (an image or a kernel where the kernel's watch cannot run). `complete` is
 * false when the log was cut (over its size limit): then nothing can be told apart.
 */
export type LibraryClaims = { kind?: 'library'; complete: boolean; folders: FolderClaims[] };

/**
 * What the kernel saw (image/posthoc-watch.c), as the watcher's collections: the one at the action's end, the
 * one after the host's checkpoint, those of the task's MCP server containers (`servers`, whose records are
 * the action's too). Parsed and matched on the host by main/effects/fs (watch-log.ts, kernel-attribution.ts).
 * `lost` says why a collection is missing (the watcher or its container went away): then the account is
 * incomplete.
 */
export type KernelClaims = { kind: 'kernel'; logs: Buffer[]; servers: Buffer[]; lost?: string };

/** null (elsewhere) means no record at all: every change in the action's window is the action's. */
export type ActionClaims = LibraryClaims | KernelClaims;
