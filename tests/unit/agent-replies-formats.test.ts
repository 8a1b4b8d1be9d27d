// Each call format the parser reads, with its hostile twins: the same call quoted in prose, inside an
// <answer>, and inside a code block that explains the format — none of those run or count as a call.
// Then the file edits and IPython cells, run for real with the host's python3.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readReply } from '../../shared/codeact/reply';
import { editAction, readEditBlocks } from '../../shared/codeact/edits';
import { toPlainPython } from '../../shared/codeact/ipython';

const formats: Array<{ name: string; call: string; action?: { language: string; source: string }; tool?: string }> = [
  { name: "OpenHands' function format", call: '<function=execute_bash>\n<parameter=command>ls -la</parameter>\n</function>', action: { language: 'bash', source: 'ls -la' } },
  { name: 'Hermes/Qwen <tool_call>', call: '<tool_call>\n{"name": "execute_bash", "arguments": {"command": "ls -la"}}\n</tool_call>', action: { language: 'bash', source: 'ls -la' } },
  { name: "Qwen-Agent's code_interpreter in <tool_call>", call: '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(1)"}}\n</tool_call>', action: { language: 'python', source: 'print(1)' } },
  { name: "Mistral's [TOOL_CALLS]", call: '[TOOL_CALLS] [{"name": "bash", "arguments": {"command": "ls -la"}}]', action: { language: 'bash', source: 'ls -la' } },
  { name: "DeepSeek's tool tokens", call: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>execute_bash\n```json\n{"command": "ls -la"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>', action: { language: 'bash', source: 'ls -la' } },
  { name: "Llama's <|python_tag|>", call: '<|python_tag|>print(1)<|eom_id|>', action: { language: 'python', source: 'print(1)' } },
  { name: "SWE-agent's <command>", call: '<command>\nls -la\n</command>', action: { language: 'bash', source: 'ls -la' } },
  { name: 'a Cline-style tool element', call: '<execute_command>\n<command>ls -la</command>\n</execute_command>', action: { language: 'bash', source: 'ls -la' } },
  { name: "Anthropic's older <function_calls>", call: '<function_calls>\n<invoke name="bash">\n<parameter name="command">ls -la</parameter>\n</invoke>\n</function_calls>', action: { language: 'bash', source: 'ls -la' } },
  { name: "OpenHands' <execute_browse>, left open", call: '<execute_browse>\ngoto("http://127.0.0.1:5000")', tool: 'browse' },
  { name: 'a tool Posthoc lacks, in the function format', call: '<function=web_search>\n<parameter=query>posthoc</parameter>\n</function>', tool: 'web_search' },
];

describe('call formats and their hostile twins', () => {
  for (const f of formats) {
    it(`${f.name}: runs as its action, or is a tool Posthoc lacks (never the answer)`, () => {
      const read = readReply(`Let me look.\n${f.call}`);
      if (f.action) {
        expect(read.actions).toEqual([f.action]);
        expect(read.issue).toBeNull();
      } else {
        expect(read.actions).toEqual([]);
        expect(read.unknownTools).toEqual([f.tool]);
        expect(read.issue).toBe('unknown-tool');
      }
    });

    it(`${f.name}: quoted in prose, it is text`, () => {
      const oneLine = f.call.replace(/\n/g, ' ');
      for (const reply of [`The model wrote \`${oneLine}\` and stopped.`, `It answers with "${oneLine}" when it wants a tool.`, `> ${f.call.split('\n').join('\n> ')}\n\nThat is the format.`]) {
        const read = readReply(reply);
        expect(read.actions, reply).toEqual([]);
        expect(read.unknownTools, reply).toEqual([]);
        expect(read.issue, reply).toBeNull();
      }
    });

    it(`${f.name}: inside an <answer>, it is shown, never run`, () => {
      const read = readReply(`<answer>\nYour agent should reply with:\n${f.call}\n</answer>`);
      expect(read.actions).toEqual([]);
      expect(read.unknownTools).toEqual([]);
      expect(read.issue).toBeNull();
      expect(read.answer).toContain(f.call.split('\n')[0]!.slice(0, 12));
    });

    it(`${f.name}: inside a code block that explains the format, it is shown, never run`, () => {
      const read = readReply(`The format looks like this:\n\n\`\`\`xml\n${f.call}\n\`\`\`\n\nEach call is one block.`);
      expect(read.actions).toEqual([]);
      expect(read.unknownTools).toEqual([]);
      expect(read.issue).toBeNull();
    });
  }

  it('a bare JSON call and a pythonic call list are calls only when they are the whole reply', () => {
    expect(readReply('{"name": "bash", "arguments": {"command": "ls"}}').actions).toEqual([{ language: 'bash', source: 'ls' }]);
    expect(readReply('[get_weather(city="Paris")]').unknownTools).toEqual(['get_weather']);
    const prose = readReply('Send {"name": "bash", "arguments": {"command": "ls"}} to call it, or [get_weather(city="Paris")].');
    expect(prose.actions).toEqual([]);
    expect(prose.issue).toBeNull();
  });

  it('an untagged command is read by its content; another harness\'s command is a tool Posthoc lacks; a transcript or a diff is text', () => {
    expect(readReply('The file is in tests.\n```\nrm reproduce.py\n```').actions).toEqual([{ language: 'bash', source: 'rm reproduce.py' }]);
    expect(readReply('Running the binary.\n```\n./rock\n```').actions).toEqual([{ language: 'bash', source: './rock' }]);
    expect(readReply('Found it.\n```\nfind_file "x.py"\n```')).toMatchObject({ actions: [], unknownTools: ['find_file'], issue: 'unknown-tool' });
    expect(readReply('It printed:\n```\n$ ls\nfoo.txt\n```').actions).toEqual([]);
    // Hostile: a command shown as a snippet, with text after it or beside another untagged block, is text.
    expect(readReply('and a snippet:\n```\nrm -rf /\n```\nDone.').actions).toEqual([]);
    expect(readReply('Either\n```\nrm -rf build\n```\nor\n```\nrm -rf dist\n```').actions).toEqual([]);
    expect(readReply('The change:\n```\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n```').actions).toEqual([]);
    // An untagged block is never "code in a language Posthoc does not run".
    expect(readReply('Let me check the file:\n```\nhello world\n```').issue).not.toBe('other-language');
  });

  it('a block shown to the reader beside the answer is not run, and says why; the same block as the next step runs', () => {
    const example = readReply("I've written the downloader to fetch.py. Here is how you could download it yourself:\n```python\nimport requests\nrequests.get('https://example.com/data.csv')\n```");
    expect(example.actions).toEqual([]);
    expect(example.issue).toBeNull();
    expect(example.parts.find((p) => p.kind === 'code')).toMatchObject({ notRun: expect.stringMatching(/example/) });
    const flask = readReply('The app is ready in app.py. You can start the server with:\n```bash\nFLASK_APP=app.py flask run\n```\nThen open http://127.0.0.1:5000.');
    expect(flask.actions).toEqual([]);
    const step = readReply('Let me download it:\n```python\nimport requests\nrequests.get("https://example.com/data.csv")\n```');
    expect(step.actions).toHaveLength(1);
  });

  it('edit blocks in a python fence are a file edit, never Python', () => {
    const read = readReply('Here is the fix:\n\n```python\napp.py\n<<<<<<< SEARCH\nimport os\n=======\nimport sys\n>>>>>>> REPLACE\n```');
    expect(read.actions).toEqual([editAction([{ kind: 'replace', path: 'app.py', search: 'import os\n', replace: 'import sys\n' }])]);
  });
});

describe('file edits and IPython cells, run with python3', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const run = (source: string, language = 'python') => {
    const dir = mkdtempSync(join(tmpdir(), 'posthoc-edit-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'app.py'), 'import os\nprint(os.name)\nimport os\n');
    writeFileSync(join(dir, 'a.txt'), 'Two\n');
    try {
      const stdout = execFileSync(language === 'bash' ? 'bash' : 'python3', ['-c', source], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return { dir, code: 0, stdout, stderr: '' };
    } catch (e) {
      const err = e as { status: number; stdout: string; stderr: string };
      return { dir, code: err.status, stdout: err.stdout, stderr: err.stderr };
    }
  };

  it('applies every edit exactly once, creating a new file from an empty search', () => {
    const edits = readEditBlocks('a.txt\n<<<<<<< SEARCH\nTwo\n=======\nTooooo\n>>>>>>> REPLACE\n\nnew/b.txt\n<<<<<<< SEARCH\n=======\nfresh\n>>>>>>> REPLACE');
    const r = run(editAction(edits).source);
    expect(r.code).toBe(0);
    expect(readFileSync(join(r.dir, 'a.txt'), 'utf8')).toBe('Tooooo\n');
    expect(readFileSync(join(r.dir, 'new/b.txt'), 'utf8')).toBe('fresh\n');
  });

  it('hostile: a search text found twice or not at all fails with what to do, and changes no file', () => {
    const twice = run(editAction([{ kind: 'replace', path: 'a.txt', search: 'Two\n', replace: 'Three\n' }, { kind: 'replace', path: 'app.py', search: 'import os\n', replace: 'import sys\n' }]).source);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/Edit 2 not applied: the search text is found 2 times in app\.py; it must match exactly one place/);
    expect(readFileSync(join(twice.dir, 'a.txt'), 'utf8')).toBe('Two\n');
    const missing = run(editAction([{ kind: 'replace', path: 'a.txt', search: 'two\n', replace: 'x\n' }]).source);
    expect(missing.stderr).toMatch(/not found in a\.txt.*No file was changed/);
    const nameless = run(editAction([{ kind: 'replace', path: '', search: 'x', replace: 'y' }]).source);
    expect(nameless.stderr).toMatch(/names no file/);
  });

  it('IPython syntax runs as IPython runs it: !cmd, x = !cmd, %cd, %pip (as python -m pip), %env', () => {
    const cell = "import os\n!echo from-shell\nlines = !printf 'a\\nb\\n'\nprint(lines)\n%cd /tmp\n%env GREETING=hi\nprint(os.environ['GREETING'])\n%pip --version";
    const r = run(toPlainPython(cell).source);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^from-shell\n\['a', 'b'\]\n\/tmp\nhi\npip \d+/);
  });

  it('hostile: IPython-looking lines inside a triple-quoted string stay text, and a cell without IPython syntax is unchanged', () => {
    const cell = 'text = """\n!rm -rf /\n%pip install evil\n"""\nprint(text)';
    expect(toPlainPython(cell)).toEqual({ language: 'python', source: cell });
    expect(run(toPlainPython(cell).source).stdout).toBe('\n!rm -rf /\n%pip install evil\n\n');
    expect(toPlainPython('x = 5 % 2\nprint(x != 1)')).toEqual({ language: 'python', source: 'x = 5 % 2\nprint(x != 1)' });
  });

  it('a %%bash cell is bash', () => {
    expect(toPlainPython('%%bash\necho hi')).toEqual({ language: 'bash', source: 'echo hi' });
  });
});

describe('the card says what was not run, and why', () => {
  it('splitFences gives a not-run segment with its reason for an example and for a tool Posthoc lacks', async () => {
    const { splitFences } = await import('../../renderer/src/model/conversation');
    const example = splitFences('Done: the report is in out.csv. You can open it with:\n```bash\nxdg-open out.csv\n```');
    expect(example).toContainEqual({ kind: 'not-run', tag: 'bash', text: 'xdg-open out.csv', reason: expect.stringMatching(/example/) });
    const tool = splitFences('Searching.\n<function=web_search>\n<parameter=query>x</parameter>\n</function>');
    expect(tool).toContainEqual(expect.objectContaining({ kind: 'not-run', reason: expect.stringMatching(/web_search is not a Posthoc tool/) }));
    expect(splitFences('All fixed.\n\n<finish></finish>')).toEqual([{ kind: 'prose', text: 'All fixed.' }]);
  });
});
