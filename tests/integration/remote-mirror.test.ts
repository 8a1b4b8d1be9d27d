// A granted folder mirrored into a volume on a remote engine and an action's changes brought back (issue 30),
// against a second Docker daemon (tests/support/remote-dockerd.ts) that cannot see the folder: the volume is filled
// through the engine connection only, a second send carries only what changed, and what an action did in the volume
// arrives in the person's folder through the beneath-handle writes of undo — a link planted by the action's code
// arrives as a link, and nothing is written through it or outside the folder.
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShadowRepo } from '../../main/effects/fs/git-objects';
import { FALLBACK_SANDBOX_UID } from '../../main/sandbox/container-policy';
import { sendImage } from '../../main/sandbox/engines/image-transfer';
import { mirrorMount, MirrorVolume, mirrorVolumeName, safeRelative } from '../../main/sandbox/engines/mirror-volume';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image-name';
import { bringBack, folderManifest, mirrorUp } from '../../main/services/remote-mirror';
import { startRemoteDockerd, type RemoteDockerd } from '../support/remote-dockerd';
import { folderContents } from '../support/folder-contents';
import { tempDirs } from '../support/temp-dir';
import { startUndoHarness } from '../support/undo-harness';

const dirs = tempDirs();
let remote: RemoteDockerd;
let docker: Docker;
const owner = `${FALLBACK_SANDBOX_UID}:${FALLBACK_SANDBOX_UID}`;

beforeAll(async () => {
  remote = await startRemoteDockerd();
  docker = remote.docker();
  await sendImage(new Docker(), docker, SANDBOX_IMAGE);
}, 600_000);
afterAll(async () => {
  await remote?.stop();
  dirs.cleanup();
}, 600_000);

/** Runs `script` in a container of the sandbox image on the remote engine, the volume at /workspace/ws, as an action would. */
async function actOnVolume(volume: string, script: string): Promise<void> {
  const c = await docker.createContainer({
    Image: SANDBOX_IMAGE,
    Entrypoint: ['sh', '-c', script],
    Cmd: [],
    User: owner,
    WorkingDir: '/workspace/ws',
    NetworkDisabled: true,
    HostConfig: { NetworkMode: 'none', Mounts: [mirrorMount(volume, '/workspace/ws')], CapDrop: ['ALL'] },
  });
  await c.start();
  const { StatusCode } = (await c.wait()) as { StatusCode: number };
  const logs = (await c.logs({ stdout: true, stderr: true })).toString();
  await c.remove({ force: true });
  expect(StatusCode, logs).toBe(0);
}

function person(): string {
  const ws = dirs.workspace();
  writeFileSync(join(ws, 'a.txt'), 'alpha\n');
  mkdirSync(join(ws, 'sub'));
  writeFileSync(join(ws, 'sub', 'b.py'), 'print("b")\n');
  chmodSync(join(ws, 'sub', 'b.py'), 0o755);
  writeFileSync(join(ws, 'sub', 'c.txt'), 'gamma\n');
  symlinkSync('a.txt', join(ws, 'link-to-a'));
  return ws;
}

describe('the mirror of a folder on a remote engine', () => {
  it('fills the volume through the engine connection, then sends only what changed, and removes what the folder lost', async () => {
    const ws = person();
    const mirror = await MirrorVolume.open(docker, { image: SANDBOX_IMAGE, volume: `posthoc-mirror-test-${process.pid}-1`, owner });
    try {
      const first = await mirrorUp(ws, mirror);
      expect(first.sent.sort()).toEqual(['a.txt', 'link-to-a', 'sub/b.py', 'sub/c.txt']);
      expect(await mirror.manifest()).toEqual(folderManifest(ws).manifest);

      writeFileSync(join(ws, 'a.txt'), 'alpha, edited by the person\n');
      rmSync(join(ws, 'sub', 'c.txt'));
      const second = await mirrorUp(ws, mirror, first.manifest);
      expect(second).toMatchObject({ sent: ['a.txt'], removed: ['sub/c.txt'] });
      expect(await mirror.manifest()).toEqual(folderManifest(ws).manifest);

      // Asked without a known manifest, it reads the volume's and finds nothing to send.
      expect(await mirrorUp(ws, mirror)).toMatchObject({ sent: [], removed: [] });
      await actOnVolume(mirror.volume, 'test "$(cat a.txt)" = "alpha, edited by the person" && test -x sub/b.py && test "$(readlink link-to-a)" = a.txt && test ! -e sub/c.txt');
    } finally {
      await mirror.destroy();
    }
  });

  it("brings an action's changes back into the person's folder, a planted link as a link, nothing written through it or outside the folder", async () => {
    const ws = person();
    const outside = dirs.make('posthoc-outside-');
    const mirror = await MirrorVolume.open(docker, { image: SANDBOX_IMAGE, volume: `posthoc-mirror-test-${process.pid}-2`, owner });
    const repo = await ShadowRepo.open(join(dirs.make('posthoc-shadow-'), 'repo.git'), 'test');
    try {
      const up = await mirrorUp(ws, mirror);
      await actOnVolume(
        mirror.volume,
        [
          'set -e',
          'echo made by the action > new.txt',
          'printf "alpha\\nbeta\\n" > a.txt',
          'rm sub/b.py',
          'mkdir -p deep/er && echo deep > deep/er/d.txt',
          // Hostile: links to the person's machine's paths, and a folder swapped for a link with a file "in" it.
          `ln -s ${outside} escape`,
          `ln -s ${outside}/planted.txt escape-file`,
          'mkdir -p /tmp/o && echo pwned > /tmp/o/x.txt && rm -rf sub && ln -s /tmp/o sub',
        ].join('\n'),
      );
      const back = await bringBack(ws, mirror, up.manifest, repo, 'test');
      expect(readFileSync(join(ws, 'new.txt'), 'utf8')).toBe('made by the action\n');
      expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('alpha\nbeta\n');
      expect(readFileSync(join(ws, 'deep', 'er', 'd.txt'), 'utf8')).toBe('deep\n');
      expect(readlinkSync(join(ws, 'escape'))).toBe(outside);
      expect(readlinkSync(join(ws, 'escape-file'))).toBe(`${outside}/planted.txt`);
      // sub was a folder and is a link now: the link arrives; what was "in" it on the engine does not.
      expect(lstatSync(join(ws, 'sub')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(ws, 'sub'))).toBe('/tmp/o');
      expect(existsSync('/tmp/o/x.txt')).toBe(false);
      expect(readdirSync(outside)).toEqual([]);
      expect(back.removed.sort()).toEqual(expect.arrayContaining(['sub/b.py', 'sub/c.txt']));
      // The person's folder and the volume agree again.
      expect(folderManifest(ws).manifest).toEqual(await mirror.manifest());
      expect(back.manifest).toEqual(folderManifest(ws).manifest);
    } finally {
      await mirror.destroy();
    }
  });

  it('keeps one volume per folder between tasks: a second task on the same folder sends only what changed since', async () => {
    const ws = person();
    const volume = mirrorVolumeName(ws);
    expect(volume).toMatch(/^posthoc-mirror-[0-9a-f]{32}$/);
    expect(volume).not.toContain(ws);
    expect(mirrorVolumeName(ws, 'another-machine')).not.toBe(volume);
    expect(mirrorVolumeName(person())).not.toBe(volume);
    const firstTask = await MirrorVolume.open(docker, { image: SANDBOX_IMAGE, volume, owner });
    expect((await mirrorUp(ws, firstTask)).sent).toHaveLength(4);
    await firstTask.close();
    writeFileSync(join(ws, 'sub', 'c.txt'), 'gamma, later\n');
    const secondTask = await MirrorVolume.open(docker, { image: SANDBOX_IMAGE, volume, owner });
    try {
      expect(await mirrorUp(ws, secondTask)).toMatchObject({ sent: ['sub/c.txt'], removed: [], bytes: 'gamma, later\n'.length });
    } finally {
      await secondTask.destroy();
    }
    expect((await docker.listVolumes()).Volumes?.map((v) => v.Name) ?? []).not.toContain(volume);
  });

  it('refuses a path that leaves the folder, whoever names it', async () => {
    for (const p of ['../x', '/etc/passwd', 'a/../../x', 'a//b', './a', '', 'a\\..\\b']) expect(safeRelative(p), p).toBe(false);
    expect(safeRelative('a/b.txt')).toBe(true);
    const mirror = await MirrorVolume.open(docker, { image: SANDBOX_IMAGE, volume: `posthoc-mirror-test-${process.pid}-3`, owner });
    try {
      await expect(mirror.put([{ path: '../escape.txt', kind: 'file', content: Buffer.from('x') }])).rejects.toThrow(/not a path inside the folder/);
      // A link planted in the volume: a later put under it is refused, never written through.
      await actOnVolume(mirror.volume, 'ln -s /tmp here');
      await expect(mirror.put([{ path: 'here/through.txt', kind: 'file', content: Buffer.from('x') }])).rejects.toThrow(/refused/);
      expect((await mirror.read(['here/through.txt'])).files).toEqual([]);
    } finally {
      await mirror.destroy();
    }
  });

  it("an action's changes brought back are checkpointed and undone as a local action's; the person's edit between actions reaches the next one and is never reverted", async () => {
    const h = await startUndoHarness();
    const ws = h.workspace;
    writeFileSync(join(ws, 'a.txt'), 'original\n');
    mkdirSync(join(ws, 'sub'));
    writeFileSync(join(ws, 'sub', 'b.txt'), 'bee\n');
    const original = folderContents(ws);
    const mirror = await MirrorVolume.open(docker, { image: SANDBOX_IMAGE, volume: `posthoc-mirror-test-${process.pid}-4`, owner });
    const repo = await ShadowRepo.open(join(dirs.make('posthoc-shadow-'), 'repo.git'), 'test');
    try {
      let known = (await mirrorUp(ws, mirror)).manifest;
      const remoteAction = (script: string, tag: string) => async () => {
        await actOnVolume(mirror.volume, script);
        known = (await bringBack(ws, mirror, known, repo, tag)).manifest;
      };
      const first = await h.act(remoteAction('set -e; echo made > made.txt; echo changed > a.txt; rm sub/b.txt', 'a1'));
      expect(folderContents(ws)).toEqual({ 'a.txt': 'changed\n', 'made.txt': 'made\n', 'sub/': '' });
      expect(JSON.stringify(first.effects)).toContain('made.txt');

      // The person edits between two actions: the edit goes to the engine before the next action, which sees it.
      writeFileSync(join(ws, 'person.txt'), 'from the person\n');
      const sent = await mirrorUp(ws, mirror, known);
      expect(sent).toMatchObject({ sent: ['person.txt'], removed: [] });
      known = sent.manifest;
      const second = await h.act(remoteAction('set -e; cat person.txt > seen.txt', 'a2'));
      expect(readFileSync(join(ws, 'seen.txt'), 'utf8')).toBe('from the person\n');

      expect(await h.undo.undo(second.id)).toMatchObject({ outcome: 'undone', removed: ['seen.txt'] });
      expect(await h.undo.undo(first.id)).toMatchObject({ outcome: 'undone' });
      // Exactly as before the first action, with the person's edit kept.
      expect(folderContents(ws)).toEqual({ ...original, 'person.txt': 'from the person\n' });

      // Undo wrote the person's folder; the next send brings the engine back to it.
      const resync = await mirrorUp(ws, mirror, known);
      expect(resync.sent.sort()).toEqual(['a.txt', 'sub/b.txt']);
      expect(resync.removed.sort()).toEqual(['made.txt', 'seen.txt']);
      expect(await mirror.manifest()).toEqual(folderManifest(ws).manifest);
    } finally {
      await mirror.destroy();
      await h.close();
    }
  });
});
