// AGENTS.md and the per-folder instruction files other agents read: found in a granted folder's root,
// bounded, never followed through a symlink, and put in the system prompt under the path the agent sees.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FOLDER_INSTRUCTIONS_LIMIT, readFolderInstructions as readWith } from '../../main/agent/folder-instructions';
import { folderIdentity, GrantMoved, readHeadBeneath } from '../../main/effects/fs/beneath';
import { systemPrompt } from '../../main/agent/system-prompt';
import type { WorkspaceGrant } from '../../shared/domain';

function grant(hostPath: string, name = 'proj'): WorkspaceGrant {
  return { name, hostPath, mountPath: `/workspace/${name}`, readOnly: false, identity: folderIdentity(hostPath) };
}

// As the task service reads them: beneath the granted folder, checked to be the folder granted.
const readFolderInstructions = (workspaces: WorkspaceGrant[]) => readWith(workspaces, (g, rel, limit) => readHeadBeneath(g.hostPath, g.identity ?? null, rel, limit));

describe('readFolderInstructions', () => {
  it('reads AGENTS.md, CLAUDE.md, .cursorrules and .github/copilot-instructions.md with the path the agent sees', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'posthoc-instr-'));
    writeFileSync(join(dir, 'AGENTS.md'), '# Rules\nUse tabs.\n');
    writeFileSync(join(dir, 'CLAUDE.md'), 'Never touch vendor/.');
    writeFileSync(join(dir, '.cursorrules'), 'Prefer pandas.');
    mkdirSync(join(dir, '.github'));
    writeFileSync(join(dir, '.github', 'copilot-instructions.md'), 'Write tests first.');
    writeFileSync(join(dir, 'README.md'), 'not an instruction file');
    const found = await readFolderInstructions([grant(dir)]);
    expect(found).toEqual([
      { path: '/workspace/proj/AGENTS.md', text: '# Rules\nUse tabs.', truncated: false },
      { path: '/workspace/proj/CLAUDE.md', text: 'Never touch vendor/.', truncated: false },
      { path: '/workspace/proj/.cursorrules', text: 'Prefer pandas.', truncated: false },
      { path: '/workspace/proj/.github/copilot-instructions.md', text: 'Write tests first.', truncated: false },
    ]);
  });

  it('keeps only the start of a long file, cut on a line, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'posthoc-instr-'));
    const line = 'Always answer in French, and keep every summary short.\n';
    writeFileSync(join(dir, 'AGENTS.md'), line.repeat(1000));
    const [file] = await readFolderInstructions([grant(dir)]);
    expect(file!.truncated).toBe(true);
    expect(Buffer.byteLength(file!.text)).toBeLessThanOrEqual(FOLDER_INSTRUCTIONS_LIMIT);
    expect(file!.text.endsWith('keep every summary short.')).toBe(true);
  });

  it('skips a symlinked file and a file under a symlinked folder (a grant never exposes what a link points to)', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'posthoc-secret-'));
    writeFileSync(join(outside, 'secret.txt'), 'host secret');
    mkdirSync(join(outside, 'gh'));
    writeFileSync(join(outside, 'gh', 'copilot-instructions.md'), 'host secret too');
    const dir = mkdtempSync(join(tmpdir(), 'posthoc-instr-'));
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'AGENTS.md'));
    symlinkSync(join(outside, 'gh'), join(dir, '.github'));
    expect(await readFolderInstructions([grant(dir)])).toEqual([]);
  });

  it('never reads a host file an action keeps swapping in as AGENTS.md while prompts are built', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'posthoc-secret-'));
    writeFileSync(join(outside, 'secret.txt'), 'HOST-SECRET-6f1c');
    const dir = mkdtempSync(join(tmpdir(), 'posthoc-instr-'));
    writeFileSync(join(dir, 'AGENTS.md'), 'the rules');
    const g = grant(dir);
    // Another process swaps AGENTS.md between a file and a link to the secret, as fast as it can, for a
    // bounded number of rounds (the race an lstat-then-open by name lost in 2 of 122 prompts).
    const swap = [
      'import os, sys',
      'os.chdir(sys.argv[1])',
      'for i in range(1500):',
      "    os.symlink(sys.argv[2], 'AGENTS.tmp'); os.rename('AGENTS.tmp', 'AGENTS.md')",
      "    open('AGENTS.tmp', 'w').write('rules'); os.rename('AGENTS.tmp', 'AGENTS.md')",
    ].join('\n');
    const swapper = spawn('python3', ['-c', swap, dir, join(outside, 'secret.txt')]);
    const ended = new Promise((resolve) => swapper.on('close', resolve));
    const seen = new Set<string>();
    let done = false;
    void ended.then(() => (done = true));
    let rounds = 0;
    while (!done) {
      for (const f of await readFolderInstructions([g])) seen.add(f.text);
      rounds++;
      // Let the child's end be noticed.
      if (rounds % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(rounds).toBeGreaterThan(0);
    expect([...seen].some((t) => t.includes('HOST-SECRET'))).toBe(false);
  }, 60_000);

  it('refuses a granted folder that was replaced since it was granted (a link to elsewhere, or another folder)', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'posthoc-secret-'));
    writeFileSync(join(outside, 'AGENTS.md'), 'host secret');
    const parent = mkdtempSync(join(tmpdir(), 'posthoc-instr-'));
    const dir = join(parent, 'inner');
    mkdirSync(dir);
    const g = grant(dir);
    renameSync(dir, `${dir}-was`);
    symlinkSync(outside, dir);
    await expect(readFolderInstructions([g])).rejects.toThrow(GrantMoved);
    // The folder moved away and another made at its path.
    rmSync(dir);
    mkdirSync(`${dir}-moved`);
    renameSync(`${dir}-moved`, `${dir}-old`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'AGENTS.md'), 'a new folder at the same path');
    await expect(readFolderInstructions([g])).rejects.toThrow(/no longer the folder that was granted/);
  });

  it('finds nothing in a folder without them, and skips an empty file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'posthoc-instr-'));
    writeFileSync(join(dir, 'CLAUDE.md'), '  \n');
    expect(await readFolderInstructions([grant(dir)])).toEqual([]);
  });
});

describe('systemPrompt', () => {
  it('carries each file under its path, the truncation said', () => {
    const prompt = systemPrompt([{ name: 'proj', hostPath: '/tmp/x', mountPath: '/workspace/proj', readOnly: false }], 5, undefined, undefined, [
      { path: '/workspace/proj/AGENTS.md', text: 'Use tabs.', truncated: false },
      { path: '/workspace/proj/CLAUDE.md', text: 'Start of it', truncated: true },
    ]);
    expect(prompt).toContain('--- /workspace/proj/AGENTS.md ---\nUse tabs.\n--- end of /workspace/proj/AGENTS.md ---');
    expect(prompt).toContain('--- /workspace/proj/CLAUDE.md (only its start: the file is longer) ---\nStart of it');
  });

  it('documents the plan tag and the formats it reads', () => {
    const prompt = systemPrompt([], 5);
    expect(prompt).toContain('<plan>');
    expect(prompt).toContain('- [x] ');
    expect(prompt).toContain('<execute>');
    expect(prompt).not.toContain('Instructions the person keeps');
  });
});
