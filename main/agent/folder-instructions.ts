// The instructions a person keeps for agents in a folder's root (AGENTS.md, and the files other agents
// read: CLAUDE.md, .cursorrules, .github/copilot-instructions.md), read into the system prompt with the
// path the agent sees them at. Each is bounded (FOLDER_INSTRUCTIONS_LIMIT bytes, cut on a line when it can
// be). The files are read through a handle opened beneath the granted folder with no link followed (the
// reader is handed in: effects/fs/beneath.ts readHeadBeneath), so a file that is a symlink, or sits under
// one — even one an action swaps in while the prompt is built — is skipped: a grant exposes its folder,
// never a file elsewhere on the host the link points to.
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

/**
 * Reads at most `limit` bytes of a regular file at `rel` in the granted folder, through a handle opened beneath
 * it with no link followed (effects/fs/beneath.ts readHeadBeneath); null when it is not a regular file there.
 */
export type ReadHead = (grant: WorkspaceGrant, rel: string, limit: number) => Buffer | null;

export async function readFolderInstructions(workspaces: readonly WorkspaceGrant[], readHead: ReadHead): Promise<FolderInstructions[]> {
  const found: FolderInstructions[] = [];
  for (const grant of workspaces) {
    for (const name of FOLDER_INSTRUCTION_FILES) {
      const head = readHead(grant, name, FOLDER_INSTRUCTIONS_LIMIT + 1);
      const read = head && bounded(head);
      if (read) found.push({ path: `${grant.mountPath}/${name}`, ...read });
    }
  }
  return found;
}

function bounded(head: Buffer): { text: string; truncated: boolean } | null {
  const truncated = head.length > FOLDER_INSTRUCTIONS_LIMIT;
  let text = head.subarray(0, Math.min(head.length, FOLDER_INSTRUCTIONS_LIMIT)).toString('utf8');
  if (truncated) {
    text = text.replace(/\uFFFD$/, '');
    const cut = text.lastIndexOf('\n');
    if (cut > FOLDER_INSTRUCTIONS_LIMIT / 2) text = text.slice(0, cut);
  }
  text = text.trim();
  return text ? { text, truncated } : null;
}
