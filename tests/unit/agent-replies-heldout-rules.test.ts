// Rules added after the held-out replay set (tests/fixtures/replies-heldout/) was measured, each with the
// held-out replies that drove it named, its feature test and its hostile twin. The held-out figure after
// these rules is partly in-sample for exactly these replies (docs/BENCHMARKS.md says which).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readReply } from '../../shared/codeact/reply';
import { editAction, posixPath, readEditBlocks } from '../../shared/codeact/edits';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs an action's Python in a fresh folder holding the given files; returns the folder and the exit code. */
function runIn(files: Record<string, string>, source: string): { dir: string; code: number; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-heldout-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  try {
    execFileSync('python3', ['-c', source], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    return { dir, code: 0, stderr: '' };
  } catch (e) {
    const err = e as { status: number; stderr: Buffer };
    return { dir, code: err.status, stderr: String(err.stderr) };
  }
}

// Held-out: aider-histories.json, AI-Catalyst's two multi-edit replies (Claude Sonnet 4 under aider on Windows).
describe('edit blocks as aider reads them', () => {
  it('reads an opener closed like a tag, a second divider before the closer, and a Windows path', () => {
    const reply = [
      'src\\store\\wizard.ts',
      '```typescript',
      '<<<<<<< SEARCH>',
      '  isLoading: false,',
      '=======',
      '  isLoading: false,',
      '  loadingStates: {},',
      '=======',
      '>>>>>>> REPLACE',
      '```',
    ].join('\n');
    const read = readReply(reply);
    const edit = { kind: 'replace' as const, path: 'src/store/wizard.ts', search: '  isLoading: false,\n', replace: '  isLoading: false,\n  loadingStates: {},\n' };
    expect(read.actions).toEqual([editAction([edit])]);
    const r = runIn({ 'src/store/wizard.ts': 'const s = {\n  isLoading: false,\n};\n' }, read.actions[0]!.source);
    expect(r.code).toBe(0);
    expect(readFileSync(join(r.dir, 'src/store/wizard.ts'), 'utf8')).toBe('const s = {\n  isLoading: false,\n  loadingStates: {},\n};\n');
  });

  it('hostile: a divider with text after it stays in the replacement; a drive-letter path and a near-miss opener are not read as such', () => {
    // A divider followed by more text is content (a file may hold such a line), not an end.
    expect(readEditBlocks('a.md\n<<<<<<< SEARCH\nx\n=======\nTitle\n=======\nbody\n>>>>>>> REPLACE')).toEqual([
      { kind: 'replace', path: 'a.md', search: 'x\n', replace: 'Title\n=======\nbody\n' },
    ]);
    // An absolute Windows path names no file in the sandbox: the edit is refused by name, never written elsewhere.
    expect(posixPath('C:\\Users\\me\\app.py')).toBe('C:\\Users\\me\\app.py');
    const absolute = readReply('C:\\Users\\me\\app.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```');
    expect(absolute.actions).toEqual([editAction([{ kind: 'replace', path: '', search: 'a\n', replace: 'b\n' }])]);
    expect(runIn({}, absolute.actions[0]!.source).stderr).toMatch(/names no file/);
    // A word that starts like the marker is not one.
    expect(readEditBlocks('a.txt\n<<<<<<< SEARCHING\nx\n=======\ny\n>>>>>>> REPLACE')).toEqual([]);
    // A markdown-escaped underscore is an underscore, not a folder.
    expect(posixPath('my\\_module.py')).toBe('my_module.py');
  });
});

// Held-out: codeact-mint.json, CodeAct's own MINT log (two <execute> turns written on one line, as MINT's
// system prompt shows: `<execute> print("Hello World!") </execute>`).
describe('code on an action tag\'s own line', () => {
  it('starts at its first character, as MINT strips it', () => {
    expect(readReply("Let's search.\n<execute> print(wikipedia_search('System of a Down')) </execute>").actions).toEqual([
      { language: 'python', source: "print(wikipedia_search('System of a Down'))" },
    ]);
    expect(readReply('<execute> for i in range(2):\n    print(i) </execute>').actions).toEqual([{ language: 'python', source: 'for i in range(2):\n    print(i)' }]);
    const r = runIn({}, readReply('<execute> print(1 + 1) </execute>').actions[0]!.source);
    expect(r.code).toBe(0);
  });

  it('hostile: code on the lines below the tag keeps its indentation, and a tag in prose is still not code', () => {
    expect(readReply('<execute>\nif True:\n    x = 1\n</execute>').actions).toEqual([{ language: 'python', source: 'if True:\n    x = 1' }]);
    expect(readReply('<execute_bash>\n  ls -la\n</execute_bash>').actions).toEqual([{ language: 'bash', source: '  ls -la' }]);
    expect(readReply('Wrap code in <execute> tags, like `<execute> print(1) </execute>`, to run it.').actions.map((a) => a.source)).not.toContain(' print(1)');
  });
});

// Held-out: aider-histories.json, DeepSeek V3.1's curl requests for the reader (five ```bash blocks with
// YOUR_GITHUB_TOKEN, after "You will need to replace `YOUR_GITHUB_TOKEN` with a valid Personal Access Token").
describe('a shell command that leaves a placeholder for the reader', () => {
  it('is shown, not run, and says which placeholder; the reply is the answer', () => {
    const read = readReply(
      'Here are the queries as `curl` commands. You will need to replace `YOUR_GITHUB_TOKEN` with a valid token.\n\n**Curl Command:**\n```bash\ncurl -H "Authorization: bearer YOUR_GITHUB_TOKEN" https://api.github.com/graphql\n```\n\nThe `totalCount` is the number you need.',
    );
    expect(read.actions).toEqual([]);
    expect(read.issue).toBeNull();
    expect(read.parts.find((p) => p.kind === 'code')).toMatchObject({ notRun: expect.stringContaining('YOUR_GITHUB_TOKEN') });
    expect(readReply('Set the key:\n```\nexport OPENAI_API_KEY=<your-api-key>\n```').actions).toEqual([]);
    expect(readReply('Run:\n```sh\ncurl -u your_user_here https://example.com\n```').actions).toEqual([]);
  });

  it('hostile: a program or an edit may hold one, a shell variable named your_… is not one, and real commands still run', () => {
    expect(readReply('Let me run it:\n```python\nimport os\nkey = os.environ.get("API_KEY", "YOUR_API_KEY")\nprint(bool(key))\n```').actions).toHaveLength(1);
    const edit = readReply('.env.example\n```\n<<<<<<< SEARCH\n=======\nAPI_KEY=YOUR_API_KEY\n>>>>>>> REPLACE\n```');
    expect(edit.actions).toEqual([editAction([{ kind: 'create', path: '.env.example', text: 'API_KEY=YOUR_API_KEY\n' }])]);
    expect(readReply('Let me check:\n```bash\nyour_name=$(whoami); echo "$your_name"\n```').actions).toEqual([{ language: 'bash', source: 'your_name=$(whoami); echo "$your_name"' }]);
    expect(readReply('Let me check:\n```bash\ncurl -s https://api.github.com/rate_limit\n```').actions).toHaveLength(1);
  });
});

// Held-out: openhands-2024.json, CodeActAgent test_browse_internet response_004 (Claude 3.5 Sonnet as
// OpenHands' browsing agent wrote send_msg_to_user("…") in an untagged fence, cut at its stop sequence).
describe("a browsing agent's action in an untagged fence", () => {
  it('is a tool Posthoc lacks (a BrowserGym action), never Python and never the answer', () => {
    const read = readReply('To accomplish our goal, I will now send this information to the user:\n\n```\nsend_msg_to_user("The answer is: 42!"');
    expect(read).toMatchObject({ actions: [], unknownTools: ['send_msg_to_user'], issue: 'unknown-tool' });
    expect(read.parts.find((p) => p.kind === 'code')).toMatchObject({ notRun: expect.stringContaining('BrowserGym') });
    expect(readReply('I need to click on the button with bid 10\n```\nclick("10")\n```').unknownTools).toEqual(['click']);
  });

  it('hostile: Python that merely calls or assigns from a like-named function still runs when the reply says to run it', () => {
    expect(readReply('Let me run this:\n```\nresult = click_count(3)\nprint(result)\n```').actions).toEqual([{ language: 'python', source: 'result = click_count(3)\nprint(result)' }]);
    expect(readReply('Let me run this:\n```\nclick("1")\nx = 2\n```').actions).toHaveLength(1);
    expect(readReply('Let me check the page title:\n```\nprint(title)\n```').actions).toEqual([{ language: 'python', source: 'print(title)' }]);
  });
});
