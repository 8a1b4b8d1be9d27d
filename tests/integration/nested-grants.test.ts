// Folders granted one inside the other (issue 23's critical finding): action code of the outer grant turned the
// inner folder into a link to a host folder, and then the person's undo in the inner folder wrote through it,
// the next checkpoint read the host folder into the shadow repository, and the restarted sandbox mounted it.
// Now a grant is an identity (device and inode, read with no link followed): in one task nested folders are
// refused up front; across two tasks every host read, write and container start checks it and refuses in
// words, and nothing outside is read or written. As root with a root-only outside folder, and as the person.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../main/effects/fs/checkpoint-store';
import { createDocker } from '../../main/sandbox/docker-client';
import { SandboxExecutor } from '../../main/sandbox/executor';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image';
import type { ChatRequest } from '../support/fake-openai-server';
import { OWNERS, own } from '../support/claims';
import { startHarness, type Harness } from '../support/services-harness';
import { tempDirs } from '../support/temp-dir';

let harness: Harness | undefined;
const dirs = tempDirs();
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  dirs.cleanup();
});

const SECRET = 'outside-secret-7d41';
const python = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

/** Every object in a shadow repository, as text: what a checkpoint holds. */
function objectsOf(gitdir: string): string {
  return execFileSync('git', ['--git-dir', gitdir, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 64 * 1024 * 1024 }).toString('latin1');
}

/** A folder only root may read (as root), or the person's own folder outside every grant. */
function outsideFolder(uid: number | null): string {
  const outside = dirs.make('posthoc-outside-');
  writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`);
  if (uid === null) chmodSync(outside, 0o700);
  else own(outside, uid);
  return outside;
}

describe.each(OWNERS)('nested grants ($who)', ({ uid }) => {
  it('refuses two folders of one task granted one inside the other, naming both', async () => {
    harness = await startHarness(['Done.']);
    const outer = dirs.make('posthoc-nest-');
    mkdirSync(join(outer, 'a'));
    own(outer, uid);
    await expect(harness.services.tasks.start({ prompt: 'x', workspaces: [outer, join(outer, 'a')] })).rejects.toThrow(
      `${join(outer, 'a')} lies inside ${outer}, which is granted too. Grant ${outer} alone`,
    );
  });

  it("never writes, reads or mounts a host folder an outer task's action swapped in for the inner task's folder", async () => {
    const outer = dirs.make('posthoc-nest-');
    const inner = join(outer, 'a');
    mkdirSync(inner);
    own(outer, uid);
    const outside = outsideFolder(uid);
    const before = readdirSync(outside);
    // Replies by task: the inner task writes a file, then (asked again) reads what is there; the outer task
    // swaps the inner folder for a link to the outside folder.
    const reply = (r: ChatRequest) => {
      const prompt = r.messages.find((m) => m.role === 'user')!.content;
      const turns = r.messages.filter((m) => m.role === 'assistant').length;
      if (prompt.includes('outer')) return turns === 0 ? python(`import os\nos.rename('a', 'a.orig')\nos.symlink(${JSON.stringify(outside)}, 'a')`) : 'Done.';
      if (turns === 0) return python("open('evil-cron', 'w').write('* * * * * root evil\\n')");
      if (turns === 2) return python("print(open('secret.txt').read())\nopen('evil-cron', 'w').write('* * * * * root evil')");
      return 'Done.';
    };
    harness = await startHarness([reply, reply, reply, reply, reply, reply], { stream: false });
    const { services } = harness;

    const b = await services.tasks.wait((await services.tasks.start({ prompt: 'the inner task', workspaces: [inner] })).id);
    expect(b.status, b.error ?? '').toBe('done');
    const [write] = services.tasks.get(b.id).actions;
    expect(write!.status).toBe('done');
    const a = await services.tasks.wait((await services.tasks.start({ prompt: 'the outer task', workspaces: [outer] })).id);
    expect(a.status, a.error ?? '').toBe('done');
    expect(lstatSync(inner).isSymbolicLink()).toBe(true);

    // The person undoes the inner task's action: refused in words, nothing written through the link.
    await expect(services.undo.undo(write!.id)).rejects.toThrow(/now lies behind a symbolic link/);
    expect(readdirSync(outside)).toEqual(before);

    // The inner task goes on: it refuses before anything runs (its folder instructions are read through the
    // grant, which is no longer the folder granted), so no code runs and nothing outside is read.
    const again = await services.tasks.wait((await services.tasks.send(b.id, 'again')).id);
    expect(again.status).toBe('failed');
    expect(again.error).toMatch(/now lies behind a symbolic link/);
    expect(services.tasks.get(again.id).actions).toHaveLength(1);
    expect(readdirSync(outside)).toEqual(before);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);

    // No byte of the outside folder in the inner folder's checkpoints.
    expect(objectsOf(CheckpointStore.gitdirFor(inner, join(harness.dataDir, 'checkpoints')))).not.toContain(SECRET);
  });

  it('starts no container whose mounted folder is not the one granted (a link swapped in before the start)', async () => {
    const outer = dirs.make('posthoc-nest-');
    const inner = join(outer, 'a');
    mkdirSync(inner);
    own(outer, uid);
    const outside = outsideFolder(uid);
    const identity = { dev: String(lstatSync(inner, { bigint: true }).dev), ino: String(lstatSync(inner, { bigint: true }).ino) };
    execFileSync('mv', [inner, `${inner}.orig`]);
    execFileSync('ln', ['-s', outside, inner]);
    const executor = new SandboxExecutor(createDocker(), process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE, { controlDir: join(dirs.make('posthoc-ctl-'), 'sandbox') });
    try {
      const output = executor.run({
        taskId: `nested-${uid ?? 'root'}`,
        workspaces: [{ name: 'a', hostPath: inner, mountPath: '/workspace', readOnly: false, identity }],
        seq: 1,
        language: 'bash',
        source: 'cat /workspace/secret.txt; touch /workspace/written',
        timeoutSeconds: 30,
      });
      await expect(output).rejects.toThrow(/is no longer the folder granted to this task/);
    } finally {
      await executor.stopAll();
    }
    expect(existsSync(join(outside, 'written'))).toBe(false);
  });
});
