// The instructions a person keeps for agents in a folder's root (AGENTS.md, and the files other agents
// read: CLAUDE.md, .cursorrules, .github/copilot-instructions.md), read into the system prompt with the
// path the agent sees them at. Each is bounded (FOLDER_INSTRUCTIONS_LIMIT bytes, cut on a line when it can
// be); a file that is a symlink, or sits under one, is skipped: a grant exposes its folder, never a file
// elsewhere on the host the link points to.
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkspaceGrant } from '../../shared/domain';

export const FOLDER_INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', '.cursorrules', '.github/copilot-instructions.md'] as const;
export const FOLDER_INSTRUCTIONS_LIMIT = 8 * 1024;

export type FolderInstructions = {
  /** Where the agent sees the file in the sandbox (/workspace/NAME/AGENTS.md). */
  path: string;
  text: string;
  /** The file was longer than the limit; text holds its start. */
  truncated: boolean;
};

export async function readFolderInstructions(workspaces: readonly WorkspaceGrant[]): Promise<FolderInstructions[]> {
  const found: FolderInstructions[] = [];
  for (const grant of workspaces) {
    for (const name of FOLDER_INSTRUCTION_FILES) {
      const read = await readBounded(grant.hostPath, name);
      if (read) found.push({ path: `${grant.mountPath}/${name}`, ...read });
    }
  }
  return found;
}

async function readBounded(root: string, name: string): Promise<{ text: string; truncated: boolean } | null> {
  // Every step below the grant's root must be a real folder or file, not a link.
  let path = root;
  const steps = name.split('/');
  for (let i = 0; i < steps.length; i++) {
    path = join(path, steps[i]!);
    const st = await lstat(path).catch(() => null);
    if (!st || st.isSymbolicLink()) return null;
    if (i < steps.length - 1 ? !st.isDirectory() : !st.isFile()) return null;
  }
  const handle = await open(path, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const buffer = Buffer.alloc(FOLDER_INSTRUCTIONS_LIMIT + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const truncated = bytesRead > FOLDER_INSTRUCTIONS_LIMIT;
    let text = buffer.subarray(0, Math.min(bytesRead, FOLDER_INSTRUCTIONS_LIMIT)).toString('utf8');
    if (truncated) {
      text = text.replace(/\uFFFD$/, '');
      const cut = text.lastIndexOf('\n');
      if (cut > FOLDER_INSTRUCTIONS_LIMIT / 2) text = text.slice(0, cut);
    }
    text = text.trim();
    return text ? { text, truncated } : null;
  } finally {
    await handle.close();
  }
}
