// What an action's own processes say they wrote: the sandbox's claim log, read by the runner after the
// action and mapped here to paths of the granted folders. It is how Posthoc tells the action's changes
// from the person's edits made while the action ran (docs/ARCHITECTURE.md, "Attribution").
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
 * `complete` is false when the log was cut (over its size limit) or missing (an image without the claim
 * library): then nothing can be told apart and every change in the action's window is taken for the
 * action's, as before attribution existed.
 */
export type ActionClaims = { complete: boolean; folders: FolderClaims[] };
