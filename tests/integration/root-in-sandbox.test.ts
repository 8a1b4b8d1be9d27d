// Root as on a machine, inside the container only (issue 24): a root-owned folder's action keeps CAP_CHOWN and
// CAP_FOWNER, so tar -x of an archive with foreign owners, cp -a and chown work as they would for root; the
// person's action (uid 1000) extracts as itself. Either way nothing in the granted folder is left owned by
// another user (the host gives it back to the folder's owner and the card says so), nothing is set-user-ID,
// and a rewind brings the folder back byte for byte.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FsEffect } from '../../shared/domain';
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

const bash = (code: string) => `\`\`\`bash\n${code}\n\`\`\``;

/** Every entry under `root` with its owner and its special bits. */
function owners(root: string): Array<{ path: string; uid: number; gid: number; special: number }> {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).map((p) => {
    const st = lstatSync(join(root, p));
    return { path: relative(root, join(root, p)), uid: st.uid, gid: st.gid, special: st.mode & 0o7000 };
  });
}

/**
 * Two archives whose entries belong to uid 4242: archive.tar a package (a file, a folder, a program), and
 * suid.tar a set-user-ID program.
 */
function foreignArchives(into: string): void {
  const src = dirs.make('posthoc-tar-src-');
  mkdirSync(join(src, 'pkg', 'bin'), { recursive: true });
  writeFileSync(join(src, 'pkg', 'README'), 'from elsewhere\n');
  writeFileSync(join(src, 'pkg', 'bin', 'tool'), '#!/bin/sh\necho tool\n', { mode: 0o755 });
  mkdirSync(join(src, 'suid'));
  writeFileSync(join(src, 'suid', 'run'), '#!/bin/sh\necho run\n', { mode: 0o4755 });
  const tar = (name: string, entry: string) => execFileSync('tar', ['--owner=4242', '--group=4242', '--numeric-owner', '-cf', join(into, name), '-C', src, entry]);
  tar('archive.tar', 'pkg');
  tar('suid.tar', 'suid');
}

describe.each(OWNERS)('root as on a machine, inside the container ($who)', ({ uid }) => {
  it("extracts an archive with foreign owners; the folder keeps its owner's files only, none set-user-ID; the rewind is exact", async () => {
    harness = await startHarness([
      bash('mkdir out && tar -xpf archive.tar -C out; echo "tar exit $?"; touch /tmp/mine && chown 4242 /tmp/mine && stat -c "tmp owner %u" /tmp/mine; cp -a out /tmp/copy && stat -c "copy owner %u" /tmp/copy/pkg/README; tar -xpf suid.tar -C out; echo "suid tar exit $?"'),
      'Done.',
    ]);
    const { services, workspace } = harness;
    foreignArchives(workspace);
    // The harness gives its folder to the sandbox uid when the tests run as root; here root's folder is root's.
    own(workspace, uid ?? 0);
    const folderUid = lstatSync(workspace).uid;
    const before = owners(workspace);
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'unpack it', workspaces: [workspace] })).id);
    const [action] = services.tasks.get(task.id).actions;
    const out = `${action!.output.stdout}\n${action!.output.stderr}`;
    expect(action!.output.stdout, out).toContain('tar exit 0');
    // A set-user-ID bit is refused to anyone (the sandbox's system-call filter): tar says so and goes on.
    expect(action!.output.stdout, out).toContain('suid tar exit 2');
    expect(action!.output.stderr, out).toMatch(/suid\/run: Cannot change mode to rwsr-xr-x: Operation not permitted/);
    if (folderUid === 0) {
      // Root in its container: chown works on its own files there, and tar gave the files their archive's owner.
      expect(action!.output.stdout, out).toContain('tmp owner 4242');
      expect(action!.output.stdout, out).toContain('copy owner 4242');
      const effect = action!.effects.find((e): e is FsEffect => e.channel === 'fs')!;
      expect(effect.ownersRestored, JSON.stringify(effect)).toEqual(expect.arrayContaining(['out/pkg/README', 'out/pkg/bin/tool', 'out/suid/run']));
    } else {
      // The person's action extracts as the person, as tar does for anyone but root; chown of another's file is refused.
      expect(action!.output.stdout, out).not.toContain('tmp owner 4242');
    }
    // Whatever happened inside, the folder holds files of its owner only, and nothing set-user-ID or set-group-ID.
    for (const entry of owners(workspace)) {
      expect(entry, JSON.stringify(entry)).toMatchObject({ uid: folderUid, special: 0 });
    }
    expect(owners(join(workspace, 'out')).map((e) => e.path).sort()).toEqual(['pkg', 'pkg/README', 'pkg/bin', 'pkg/bin/tool', 'suid', 'suid/run'].sort());

    expect((await services.undo.rewind(action!.id)).outcome).toBe('rewound');
    expect(owners(workspace)).toEqual(before);
  });
});
