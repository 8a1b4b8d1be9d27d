// Who the agent works as, and what it may write: the built CLI either lets the action user write every
// granted folder or refuses the task before its first action, saying why and what to do — never a run that
// hits PermissionError on every write and still ends "done". Posthoc as root with a root-owned folder works
// there as root with no capabilities (docs/ARCHITECTURE.md, "Sandbox"). The tests run as root (CI) and
// play the person with setpriv.
import { chmodSync, chownSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();
const PERSON = 1000;

/** A folder of `uid`, with `mode`. */
function folderOf(uid: number, mode: number): string {
  const dir = dirs.make('posthoc-owned-');
  chownSync(dir, uid, uid);
  chmodSync(dir, mode);
  return dir;
}

describe('the action user can write every granted folder, or the task is refused first', () => {
  it('Posthoc as root, a root-owned folder: the action writes there, as root, and the file is root’s', async () => {
    const llm = await model(["```sh\necho report > out.txt && id -u && grep CapEff /proc/self/status\n```", 'Wrote out.txt.']);
    const ws = folderOf(0, 0o755);
    const run = await runPosthoc(['run', 'write out.txt', '--workspace', ws, '--data-dir', dirs.make('posthoc-data-'), '--json'], {
      OPENAI_BASE_URL: llm.baseUrl,
      POSTHOC_MODEL: 'scripted',
    });
    expect(run.code).toBe(0);
    const action = jsonLines(run.stdout).find((l) => l.action)!.action;
    expect(action.status).toBe('done');
    // Root in its container keeps CHOWN and FOWNER only (tar -x and cp -a work on its own files).
    expect(action.output.stdout).toMatch(/^0\nCapEff:\s+0000000000000009\n$/);
    expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('report\n');
    expect(statSync(join(ws, 'out.txt')).uid).toBe(0);
  });

  it('Posthoc as root, folders of two owners: refused before the model is asked, naming the folder and the fix', async () => {
    const llm = await model(['```sh\ntrue\n```']);
    const mine = folderOf(0, 0o755);
    const theirs = folderOf(PERSON, 0o700);
    const dataDir = dirs.make('posthoc-data-');
    const run = await runPosthoc(['run', 'tidy', '--workspace', mine, '--workspace', theirs, '--data-dir', dataDir], {
      OPENAI_BASE_URL: llm.baseUrl,
      POSTHOC_MODEL: 'scripted',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`could not write ${theirs} (owner uid ${PERSON})`);
    expect(run.stderr).toContain('sudo chown -R 0:0 FOLDER');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(llm.requests).toHaveLength(0);
    expect(JSON.parse((await runPosthoc(['tasks', '--data-dir', dataDir, '--json'])).stdout)).toEqual([]);
  });

  it('the person (uid 1000) granting a root-owned folder they cannot write: refused, naming their uid', async () => {
    const llm = await model(['```sh\ntrue\n```']);
    const ws = folderOf(0, 0o755);
    const dataDir = folderOf(PERSON, 0o700);
    const run = await runPosthoc(['run', 'tidy', '--workspace', ws, '--data-dir', dataDir], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', HOME: '/tmp' }, { asUid: PERSON });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Actions run as you (uid ${PERSON}) and could not write ${ws} (owner uid 0).`);
    expect(llm.requests).toHaveLength(0);
  });
});
