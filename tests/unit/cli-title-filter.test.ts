// posthoc run's streamed text without the first reply's <title>…</title>, however the chunks fall.
import { describe, expect, it } from 'vitest';
import { titleFilter } from '../../main/cli/title-filter';

function run(chunks: string[]): string {
  const f = titleFilter();
  return chunks.map((c) => f.push(c)).join('') + f.flush();
}

describe('the CLI title filter', () => {
  const reply = '<title>Sum the sales</title>\nI will read the CSV.\n```python\nprint(1)\n```';
  it('drops the title (and the line it ends) whole', () => {
    expect(run([reply])).toBe('I will read the CSV.\n```python\nprint(1)\n```');
  });
  it('drops it however the stream is cut, one character at a time included', () => {
    expect(run([...reply])).toBe('I will read the CSV.\n```python\nprint(1)\n```');
    for (let cut = 1; cut < reply.length; cut++) expect(run([reply.slice(0, cut), reply.slice(cut)])).toBe('I will read the CSV.\n```python\nprint(1)\n```');
  });
  it('gives back a lone "<" or "<tit" that never became a tag, and text with no title as it is', () => {
    expect(run(['a < b and <tit', 'le of the book'])).toBe('a < b and <title of the book');
    expect(run(['x <ti'])).toBe('x <ti');
    expect(run(['no title here'])).toBe('no title here');
  });
  it('drops an unclosed title to the end of the message, never printing it', () => {
    expect(run(['ok <title>half a ti'])).toBe('ok ');
  });
});
