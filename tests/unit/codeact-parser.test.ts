// The CodeAct reply parser: which fenced blocks are actions, in what order, and what is left as prose.
import { describe, expect, it } from 'vitest';
import { languageOfTag, parseReply } from '../../main/agent/codeact-parser';

const fence = (tag: string, body: string, marker = '```'): string => `${marker}${tag}\n${body}\n${marker}`;

describe('parseReply: language tags', () => {
  it.each([
    ['python', 'python'],
    ['py', 'python'],
    ['python3', 'python'],
    ['bash', 'bash'],
    ['shell', 'bash'],
    ['sh', 'sh'],
  ] as const)('a block tagged %s runs as %s', (tag, language) => {
    const { actions } = parseReply(`Let me look.\n${fence(tag, 'echo hi')}\n`);
    expect(actions).toEqual([{ language, source: 'echo hi' }]);
  });

  it('reads tags without regard to case', () => {
    expect(parseReply(fence('Python', 'print(1)')).actions).toEqual([{ language: 'python', source: 'print(1)' }]);
    expect(languageOfTag(' BASH ')).toBe('bash');
  });

  it('does not know other languages', () => {
    expect(languageOfTag('json')).toBeUndefined();
    expect(languageOfTag('javascript')).toBeUndefined();
    expect(languageOfTag('')).toBeUndefined();
  });

  it('ignores an info string after the language tag', () => {
    const { actions } = parseReply('```python title="x.py"\nprint(2)\n```');
    expect(actions).toEqual([{ language: 'python', source: 'print(2)' }]);
  });
});

describe('parseReply: blocks and prose', () => {
  it('returns several blocks in the order written, keeping their inner lines', () => {
    const reply = [
      'First list the files.',
      fence('bash', 'ls -la\nwc -l *.txt'),
      'Then count them in Python.',
      fence('python', 'import os\nprint(len(os.listdir(".")))'),
      'And finally:',
      fence('sh', 'echo done'),
    ].join('\n');
    expect(parseReply(reply).actions).toEqual([
      { language: 'bash', source: 'ls -la\nwc -l *.txt' },
      { language: 'python', source: 'import os\nprint(len(os.listdir(".")))' },
      { language: 'sh', source: 'echo done' },
    ]);
  });

  it('returns the prose without the action blocks', () => {
    const reply = ['Intro line.', fence('python', 'print("secret-code-line")'), 'Outro line.'].join('\n');
    const { prose } = parseReply(reply);
    expect(prose).toBe('Intro line.\nOutro line.');
    expect(prose).not.toContain('secret-code-line');
    expect(prose).not.toContain('```');
  });

  it('treats untagged and json fences as prose, not actions', () => {
    const reply = ['Here is the config:', fence('json', '{"a": 1}'), 'and a snippet:', fence('', 'rm -rf /'), 'Done.'].join('\n');
    const { actions, prose } = parseReply(reply);
    expect(actions).toEqual([]);
    expect(prose).toBe(reply);
  });

  it('keeps a non-action fence in the prose while still finding the action after it', () => {
    const reply = ['```text', 'not code', '```', '```bash', 'echo yes', '```'].join('\n');
    const { actions, prose } = parseReply(reply);
    expect(actions).toEqual([{ language: 'bash', source: 'echo yes' }]);
    expect(prose).toBe('```text\nnot code\n```');
  });

  it('accepts ~~~ fences', () => {
    const { actions } = parseReply(fence('python', 'print("tilde")', '~~~'));
    expect(actions).toEqual([{ language: 'python', source: 'print("tilde")' }]);
  });

  it('does not close a ~~~ fence with ``` (different character)', () => {
    const reply = ['~~~bash', 'echo a', '```', 'echo b', '~~~'].join('\n');
    expect(parseReply(reply).actions).toEqual([{ language: 'bash', source: 'echo a\n```\necho b' }]);
  });

  it('lets a longer opening fence contain ``` lines, closed only by a fence at least as long', () => {
    const inner = ['cat > README.md <<EOF', '```python', 'print("example")', '```', 'EOF'].join('\n');
    const reply = ['Writing a README.', '````bash', inner, '````', 'After.'].join('\n');
    const { actions, prose } = parseReply(reply);
    expect(actions).toEqual([{ language: 'bash', source: inner }]);
    expect(prose).toBe('Writing a README.\nAfter.');
  });

  it('counts an unclosed tagged block at the end of the reply', () => {
    const { actions, prose } = parseReply('Running it now.\n```python\nprint(1)\nprint(2)');
    expect(actions).toEqual([{ language: 'python', source: 'print(1)\nprint(2)' }]);
    expect(prose).toBe('Running it now.');
  });

  it('keeps an unclosed untagged fence as prose', () => {
    const reply = 'Look:\n```\nsome text';
    const { actions, prose } = parseReply(reply);
    expect(actions).toEqual([]);
    expect(prose).toBe(reply);
  });

  it('ignores empty and whitespace-only blocks', () => {
    const reply = ['```python', '```', '```bash', '   ', '', '```', '```sh', 'echo kept', '```'].join('\n');
    expect(parseReply(reply).actions).toEqual([{ language: 'sh', source: 'echo kept' }]);
  });

  it('reads CRLF input the same as LF input, with no carriage returns left in the source', () => {
    const lf = ['Go:', '```bash', 'echo one', 'echo two', '```', 'Done.'].join('\n');
    const crlf = lf.replace(/\n/g, '\r\n');
    const parsed = parseReply(crlf);
    expect(parsed).toEqual(parseReply(lf));
    expect(parsed.actions).toEqual([{ language: 'bash', source: 'echo one\necho two' }]);
    expect(parsed.actions[0]!.source).not.toContain('\r');
    expect(parsed.prose).toBe('Go:\nDone.');
  });

  it('treats a reply with no action block as final: actions empty, prose is the trimmed reply', () => {
    const reply = '\n  The answer is 42.\nNo code needed.  \n';
    expect(parseReply(reply)).toEqual({ actions: [], prose: 'The answer is 42.\nNo code needed.' });
  });

  it('does not treat inline backticks as a fence', () => {
    const reply = 'Use ```python inline``` like this.';
    expect(parseReply(reply)).toEqual({ actions: [], prose: reply });
  });

  it('does not treat a fence indented by four spaces as a fence', () => {
    const reply = '    ```bash\n    echo indented\n    ```';
    expect(parseReply(reply).actions).toEqual([]);
  });
});
