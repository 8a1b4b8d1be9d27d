// What a stdio MCP server keeps between tasks (main/sandbox/mcp-state.ts): one folder per server and action
// user in the data folder, sized and cleared by the host. The folder is the server's to write, so what is
// inside is hostile: a name that would leave DATA/mcp-state is refused, a link planted at any level Posthoc
// makes is refused before anything is mounted, and sizing and clearing never follow a link (the server's or
// anyone's) — what a link points at is neither counted nor removed.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planMounts } from '../../main/sandbox/mcp-container';
import { MCP_STATE_MOUNT, McpStateFolders, stateEnv, stateName } from '../../main/sandbox/mcp-state';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const asRoot = process.getuid?.() === 0;
const me = `${process.getuid?.() ?? 1000}:${process.getgid?.() ?? 1000}`;
const uidOf = (user: string) => user.split(':')[0]!;

/** A folder outside the data folder with a 1 MiB file: what a planted link points at. */
function outside(): { dir: string; file: string } {
  const dir = dirs.make('posthoc-outside-');
  const file = join(dir, 'precious.bin');
  writeFileSync(file, Buffer.alloc(1024 * 1024, 7));
  return { dir, file };
}

describe("a server's state folder", () => {
  it('is DATA/mcp-state/NAME/UID, owned by the action user, mode 0700; sized, then cleared to nothing', async () => {
    const base = join(dirs.make('posthoc-data-'), 'mcp-state');
    const state = new McpStateFolders(base);
    expect(await state.size('memory')).toBe(0);
    const user = asRoot ? '1234:1234' : me;
    const folder = await state.forUser('memory', user);
    expect(folder).toBe(join(base, 'memory', uidOf(user)));
    const st = statSync(folder);
    expect(st.mode & 0o777).toBe(0o700);
    expect(`${st.uid}:${st.gid}`).toBe(user);
    expect(statSync(base).mode & 0o777).toBe(0o700);
    // Made again: the same folder, what it holds kept.
    writeFileSync(join(folder, 'memory.jsonl'), '{"type":"entity","name":"alice"}\n');
    mkdirSync(join(folder, '.npm', '_npx'), { recursive: true });
    writeFileSync(join(folder, '.npm', '_npx', 'index.js'), 'x'.repeat(10_000));
    expect(await state.forUser('memory', user)).toBe(folder);
    expect(readFileSync(join(folder, 'memory.jsonl'), 'utf8')).toContain('alice');

    const size = await state.size('memory');
    expect(size).toBeGreaterThanOrEqual(10_000 + 33);
    expect(await state.size('other')).toBe(0);
    expect(await state.clear('memory')).toBe(size);
    expect(existsSync(join(base, 'memory'))).toBe(false);
    expect(readdirSync(base)).toEqual([]);
    expect(await state.size('memory')).toBe(0);
    expect(await state.clear('memory')).toBe(0);
    // The next start finds an empty folder.
    expect(readdirSync(await state.forUser('memory', user))).toEqual([]);
  });

  it.runIf(asRoot)('keeps one folder per action user when Posthoc runs as root: one user never writes or reads another\'s', async () => {
    const state = new McpStateFolders(join(dirs.make('posthoc-data-'), 'mcp-state'));
    const a = await state.forUser('memory', '1001:1001');
    const b = await state.forUser('memory', '1002:1002');
    expect(a).not.toBe(b);
    expect([statSync(a).uid, statSync(b).uid]).toEqual([1001, 1002]);
    // The folder handed back to its user when its owner was changed.
    const { chownSync } = await import('node:fs');
    chownSync(a, 0, 0);
    await state.forUser('memory', '1001:1001');
    expect(statSync(a).uid).toBe(1001);
  });

  it('a clear cut short (the folder set aside, not yet removed) is finished by the next clear', async () => {
    const base = join(dirs.make('posthoc-data-'), 'mcp-state');
    const state = new McpStateFolders(base);
    await state.forUser('memory', me);
    mkdirSync(join(base, '.cleared-memory-0123456789ab', '1000'), { recursive: true });
    writeFileSync(join(base, '.cleared-memory-0123456789ab', '1000', 'memory.jsonl'), 'old');
    await state.clear('memory');
    expect(readdirSync(base)).toEqual([]);
  });
});

describe('the hostile side', () => {
  it('refuses a name that would leave DATA/mcp-state, before touching anything', async () => {
    const base = join(dirs.make('posthoc-data-'), 'mcp-state');
    const state = new McpStateFolders(base);
    for (const name of ['..', '.', '../escape', 'a/b', '/etc', '', ' memory', 'memory ', 'x'.repeat(41), 'memory\0', '.cleared-memory-1', '-rf']) {
      expect(() => stateName(name), JSON.stringify(name)).toThrow(/is not an MCP server name/);
      await expect(state.forUser(name, me)).rejects.toThrow(/is not an MCP server name/);
      await expect(state.size(name)).rejects.toThrow(/is not an MCP server name/);
      await expect(state.clear(name)).rejects.toThrow(/is not an MCP server name/);
    }
    expect(existsSync(base)).toBe(false);
    expect(stateName('my-notes_2')).toBe('my-notes_2');
  });

  it('a link planted at DATA/mcp-state/NAME is refused, not followed; sizing counts the link only and clearing removes the link, not its target', async () => {
    const base = join(dirs.make('posthoc-data-'), 'mcp-state');
    const target = outside();
    mkdirSync(base, { mode: 0o700 });
    symlinkSync(target.dir, join(base, 'memory'));
    const state = new McpStateFolders(base);
    await expect(state.forUser('memory', me)).rejects.toThrow(/^The data folder of the MCP server memory \(.*mcp-state\/memory\) is a link, which Posthoc does not follow: remove the link/);
    // Nothing was made where the link points.
    expect(readdirSync(target.dir)).toEqual(['precious.bin']);
    expect(await state.size('memory')).toBeLessThan(64 * 1024);
    await state.clear('memory');
    expect(existsSync(join(base, 'memory'))).toBe(false);
    expect(readFileSync(target.file)).toHaveLength(1024 * 1024);
    // Once the link is gone the folder is made anew, a real one.
    const made = await state.forUser('memory', me);
    expect(lstatSync(join(base, 'memory')).isDirectory()).toBe(true);
    expect(made.startsWith(join(base, 'memory'))).toBe(true);
  });

  it('a link at DATA/mcp-state itself, or at the user\'s folder, and a file standing for a folder, are refused', async () => {
    const data = dirs.make('posthoc-data-');
    const target = outside();
    symlinkSync(target.dir, join(data, 'mcp-state'));
    await expect(new McpStateFolders(join(data, 'mcp-state')).forUser('memory', me)).rejects.toThrow(/^The MCP servers' data folder \(.*\) is a link/);
    expect(readdirSync(target.dir)).toEqual(['precious.bin']);

    const base = join(dirs.make('posthoc-data-'), 'mcp-state');
    mkdirSync(join(base, 'memory'), { recursive: true });
    symlinkSync(target.dir, join(base, 'memory', uidOf(me)));
    const state = new McpStateFolders(base);
    await expect(state.forUser('memory', me)).rejects.toThrow(/is a link, which Posthoc does not follow/);
    expect(await state.size('memory')).toBeLessThan(64 * 1024);
    await state.clear('memory');
    expect(readFileSync(target.file)).toHaveLength(1024 * 1024);

    writeFileSync(join(base, 'files'), 'not a folder');
    await expect(state.forUser('files', me)).rejects.toThrow(/is not a folder: move it away/);
  });

  it("links the server made inside its folder are sized and removed as links: what they point at is neither counted nor touched", async () => {
    const base = join(dirs.make('posthoc-data-'), 'mcp-state');
    const state = new McpStateFolders(base);
    const folder = await state.forUser('memory', me);
    const target = outside();
    // As a server would leave them: a link to a folder, to a file, to itself, and a folder of links.
    symlinkSync(target.dir, join(folder, 'home-link'));
    mkdirSync(join(folder, 'deep', 'er'), { recursive: true });
    symlinkSync(target.file, join(folder, 'deep', 'er', 'file-link'));
    symlinkSync('loop', join(folder, 'loop'));
    symlinkSync('/', join(folder, 'deep', 'root'));
    writeFileSync(join(folder, 'memory.jsonl'), 'own data');
    const size = await state.size('memory');
    expect(size).toBeLessThan(1024 * 1024);
    expect(await state.clear('memory')).toBe(size);
    expect(existsSync(join(base, 'memory'))).toBe(false);
    expect(readdirSync(target.dir)).toEqual(['precious.bin']);
    expect(readFileSync(target.file)).toHaveLength(1024 * 1024);
    expect(existsSync('/etc/hostname') || existsSync('/etc/passwd')).toBe(true);
  });
});

describe("the server's settings", () => {
  it('HOME is the state folder; the memory server keeps its graph there unless its definition says where', () => {
    expect(MCP_STATE_MOUNT).toBe('/posthoc-state');
    expect(stateEnv('memory', {})).toEqual({ HOME: '/posthoc-state', MEMORY_FILE_PATH: '/posthoc-state/memory.jsonl' });
    expect(stateEnv('memory', { MEMORY_FILE_PATH: '/workspace/graph.jsonl' })).toEqual({ HOME: '/posthoc-state' });
    expect(stateEnv('filesystem', {})).toEqual({ HOME: '/posthoc-state' });
    expect(stateEnv(null, { HOME: '/elsewhere' })).toEqual({ HOME: '/posthoc-state' });
  });

  it('a path in the state folder needs no grant, and no granted folder is mounted over it', () => {
    const grant = { name: 'ws', hostPath: '/posthoc-state', mountPath: '/workspace', readOnly: false };
    const plan = planMounts('db', 'npx', ['-y', 'some-sqlite-server', '--db=/posthoc-state/notes.db'], [grant]);
    expect(plan.mounts).toEqual([]);
    expect(plan.tmpfs).toEqual([]);
    expect(planMounts('db', 'npx', ['-y', 'some-sqlite-server', '/posthoc-state/notes.db'], []).tmpfs).toEqual([]);
  });
});
