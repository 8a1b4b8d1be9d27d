// The replay suite: reply shapes taken from real agents' transcripts and prompts (each fixture names its
// source), trimmed to their shape, with the actions Posthoc must run for each. Read by the one parser
// main and the renderer share (shared/codeact/reply.ts).
import { describe, expect, it } from 'vitest';
import { readReply, withoutReasoning, TITLE_MAX } from '../../shared/codeact/reply';
import { loadReplay } from './agent-replies-score';

const all = loadReplay();

describe('the replay suite', () => {
  it('holds at least 30 shapes, each citing where it comes from', () => {
    expect(all.length).toBeGreaterThanOrEqual(30);
    for (const f of all) {
      expect(f.source.length, f.file).toBeGreaterThan(20);
      expect(f.cite.length, `${f.file}: ${f.name}`).toBeGreaterThan(20);
    }
  });

  for (const f of all) {
    it(`${f.file}: ${f.name}`, () => {
      const read = readReply(f.reply);
      expect(read.actions).toEqual(f.expected);
      if (f.issue !== undefined) expect(read.issue).toBe(f.issue);
      if (f.title !== undefined) expect(read.title).toBe(f.title);
      // A title is never shown in the message body.
      if (read.title !== null) {
        expect(read.prose).not.toContain('<title>');
        expect(read.parts.some((p) => (p.kind === 'text' ? p.text : '').includes(read.title!))).toBe(false);
      }
      if (f.expected.length > 0) expect(read.issue).toBeNull();
      if (f.reasoning) {
        expect(read.reasoning).not.toBeNull();
        // Code inside the reasoning is never an action, and the model never gets its reasoning back.
        expect(withoutReasoning(f.reply)).not.toContain(read.reasoning!.slice(0, 20));
      } else {
        expect(read.reasoning).toBeNull();
      }
      // The renderer folds exactly the actions main runs.
      const folded = read.parts.flatMap((p) => (p.kind === 'code' && p.action ? [p.action] : []));
      expect(folded).toEqual(f.expected);
    });
  }
});

describe('readReply: the plan', () => {
  it('reads a checklist, the last plan of a reply winning, and never runs it', () => {
    const reply = '<plan>\n- [x] list the files\n- [ ] count the rows\n</plan>\nNow the rows.\n```python\nprint(1)\n```\n<plan>\n- [x] list the files\n- [x] count the rows\n- [ ] report\n</plan>';
    const read = readReply(reply);
    expect(read.plan).toEqual([
      { text: 'list the files', done: true },
      { text: 'count the rows', done: true },
      { text: 'report', done: false },
    ]);
    expect(read.actions).toEqual([{ language: 'python', source: 'print(1)' }]);
    expect(read.prose).toBe('Now the rows.');
  });

  it('takes bare and numbered items as open ones, and a plan alone is corrected as a promise', () => {
    const read = readReply('<plan>\n1. read the CSV\n- sum the column\n</plan>');
    expect(read.plan).toEqual([
      { text: 'read the CSV', done: false },
      { text: 'sum the column', done: false },
    ]);
    expect(read.issue).toBe('promise');
  });
});

describe('readReply: answers and corrections', () => {
  it('a reply with code is never the final answer, whatever it says', () => {
    const read = readReply('Final answer: 42.\n```python\nprint(42)\n```');
    expect(read.actions).toEqual([{ language: 'python', source: 'print(42)' }]);
    expect(read.issue).toBeNull();
  });

  it('an unclosed python fence still runs (the code so far is whole: the model stopped before the closer)', () => {
    expect(readReply('Running it.\n```python\nprint(1)').actions).toEqual([{ language: 'python', source: 'print(1)' }]);
  });

  it('a final answer saying "let me know" is an answer, not a promise', () => {
    expect(readReply('Done: 3 files renamed. Let me know if you want more.').issue).toBeNull();
  });

  it('an empty reply is corrected', () => {
    expect(readReply('  \n').issue).toBe('empty');
  });

  it('an untagged fence after a sentence that does not ask to run it stays prose', () => {
    const read = readReply('The file reads:\n```\nhello\n```');
    expect(read.actions).toEqual([]);
    expect(read.prose).toBe('The file reads:\n```\nhello\n```');
  });

  it('an untagged fence is not run when the reply holds a tagged action', () => {
    const read = readReply('Let me run both:\n```\nls\n```\n```python\nprint(1)\n```');
    expect(read.actions).toEqual([{ language: 'python', source: 'print(1)' }]);
  });
});

describe('splitFences (renderer): reasoning folded, CodeAct tags folded like fences, the plan left out', () => {
  it('reads a reply the way main runs it', async () => {
    const { splitFences } = await import('../../renderer/src/model/conversation');
    const segments = splitFences('<think>\nhmm\n</think>\n<plan>\n- [ ] a\n</plan>\nLooking.\n<execute>\nprint(1)\n</execute>');
    expect(segments).toEqual([
      { kind: 'reasoning', text: 'hmm' },
      { kind: 'prose', text: 'Looking.' },
      { kind: 'code', tag: 'execute', text: 'print(1)', isAction: true },
    ]);
  });
});

describe('readReply: the final answer in <answer>', () => {
  it('shows its fences as written and runs none of them', () => {
    const read = readReply('<answer>\n## Done\n\nTo run it again:\n\n```bash\npython3 sum.py\n```\n</answer>');
    expect(read.actions).toEqual([]);
    expect(read.issue).toBeNull();
    expect(read.answer).toBe('## Done\n\nTo run it again:\n```bash\npython3 sum.py\n```');
    expect(read.prose).toBe('## Done\n\nTo run it again:\n```bash\npython3 sum.py\n```');
    const code = read.parts.filter((p) => p.kind === 'code');
    expect(code).toHaveLength(1);
    expect(code[0]).toMatchObject({ tag: 'bash', body: 'python3 sum.py', action: null, isAction: false, answer: true });
  });

  it('without the tag, a block shown to the reader beside the answer is not run either, and says why', () => {
    const read = readReply('## Done\n\nTo run it again:\n\n```bash\npython3 sum.py\n```');
    expect(read.actions).toEqual([]);
    expect(read.issue).toBeNull();
    expect(read.answer).toBeNull();
    expect(read.parts.find((p) => p.kind === 'code')).toMatchObject({ action: null, notRun: expect.stringMatching(/example/) });
  });

  it('keeps a body holding backticks whole: the fence written back is longer than any run inside it', () => {
    const read = readReply('<answer>\n````markdown\n```python\nprint(1)\n```\n````\n</answer>');
    expect(read.actions).toEqual([]);
    expect(read.answer).toBe('````markdown\n```python\nprint(1)\n```\n````');
  });

  it('is read case-insensitively, and text around it stays in the prose', () => {
    const read = readReply('Here it is.\n<ANSWER>\n42\n</ANSWER>');
    expect(read.answer).toBe('42');
    expect(read.prose).toBe('Here it is.\n42');
    expect(read.issue).toBeNull();
  });

  it('an empty answer is corrected like an empty reply', () => {
    expect(readReply('<answer>\n</answer>').issue).toBe('empty');
  });

  it('the renderer shows the answer\'s code as code, never folded as an action', async () => {
    const { splitFences } = await import('../../renderer/src/model/conversation');
    const segments = splitFences('<answer>\nTo run it again:\n```bash\nls\n```\n</answer>');
    expect(segments.some((s) => s.kind === 'code' && s.isAction)).toBe(false);
    expect(segments.map((s) => s.text).join('\n')).toContain('ls');
  });
});

describe('readReply: the title', () => {
  it('takes the first title of a reply and keeps it out of the prose', () => {
    const read = readReply('<title>First one</title>\nHello there.\n<title>Second one</title>');
    expect(read.title).toBe('First one');
    expect(read.prose).toBe('Hello there.');
  });

  it('bounds a long title to one line of at most 80 characters, cut at a word', () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const title = readReply(`<title>${long}</title>`).title!;
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX);
    expect(title.endsWith('…')).toBe(true);
    expect(long.startsWith(title.slice(0, -1))).toBe(true);
    expect(title).not.toMatch(/\s…$/);
  });

  it('hostile: markdown links, headings, code, control and direction characters never reach the title', () => {
    const read = readReply('<title># [Click me](https://evil.example) `rm -rf` \u202Egnp.exe\u0007 now</title>');
    expect(read.title).toBe('Click me rm -rf gnp.exe now');
  });

  it('hostile: an empty or tag-only title is no title, and the reply is still read as a reply', () => {
    expect(readReply('<title>  ** </title>\nAll done.').title).toBeNull();
    expect(readReply('<title></title>').title).toBeNull();
  });

  it('hostile: an inline mention of the tag does not swallow the code after it', () => {
    const reply = 'I\'ll set the page\'s <title> element:\n```python\nopen(\'a.html\',\'w\').write(\'<title>Shop</title>\')\n```';
    const read = readReply(reply);
    expect(read.title).toBeNull();
    expect(read.actions).toEqual([{ language: 'python', source: "open('a.html','w').write('<title>Shop</title>')" }]);
  });

  it('a title still streaming is not shown as text, and is no title until closed', () => {
    for (const partial of ['<title>Greet Ada', '<title>Greet Ada in a file</tit', '  <title>', '<think>\nshort\n</think>\n<title>Greet']) {
      const read = readReply(partial);
      expect(read.parts.filter((p) => p.kind === 'text'), partial).toEqual([]);
      expect(read.title).toBeNull();
    }
    // Only at the start: a tag named at the end of prose stays the person's to read.
    expect(readReply('The page now has a proper <title> element').prose).toBe('The page now has a proper <title> element');
  });

  it('a title inside an action tag or the answer is that text, not the task title', () => {
    expect(readReply("<execute>\nprint('<title>x</title>')\n</execute>").title).toBeNull();
    expect(readReply('<answer>\nThe page title is <title>Shop</title>.\n</answer>').title).toBeNull();
  });
});
