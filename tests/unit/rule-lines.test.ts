// The person's rule lines read once (shared/connections/rule-lines.ts): the CLI's --allow/--body-rule and
// the Connections page's text boxes accept and refuse the same lines, and a rule written back reads again.
import { describe, expect, it } from 'vitest';
import { describeBodyRule, describePattern, readBodyRule, readCallPattern, readRuleLines } from '../../shared/connections/rule-lines';
import { parseBodyRule } from '../../main/gateway/call-rules';
import { parsePattern } from '../../main/gateway/path-glob';
import { parseBodyRuleLines, parsePatternLines } from '../../renderer/src/model/connection-forms';

const lines = ['post /chat.postMessage', 'GET,HEAD /files/**', '* /**', 'POST chat.postMessage', 'P0ST /x', 'GET /a extra', 'GET'];
const bodyLines = ['POST /chat.postMessage channel=C1,#team', 'POST /send to@=example.com', 'POST /x channel', 'POST x a=b', 'POST /x a=b c=d'];

describe('rule lines', () => {
  it('reads call patterns the same in the CLI and the app', () => {
    for (const line of lines) {
      const shared = readCallPattern(line);
      const cli = (() => {
        try {
          return { ok: true, value: parsePattern(line) };
        } catch (error) {
          return { ok: false, error: (error as Error).message };
        }
      })();
      expect(cli).toEqual(shared);
      const app = parsePatternLines(line, 'Allowed calls');
      expect(app).toEqual(shared.ok ? { ok: true, value: [shared.value] } : { ok: false, error: `Allowed calls: ${shared.error}` });
    }
    expect(readCallPattern('get,head /files/**')).toEqual({ ok: true, value: { method: 'GET,HEAD', path: '/files/**' } });
    expect(readCallPattern('P0ST /x')).toEqual({ ok: false, error: expect.stringMatching(/"P0ST" is not a method/) });
  });

  it('reads body rules the same in the CLI and the app', () => {
    for (const line of bodyLines) {
      const shared = readBodyRule(line);
      const cli = (() => {
        try {
          return { ok: true, value: parseBodyRule(line) };
        } catch (error) {
          return { ok: false, error: (error as Error).message };
        }
      })();
      expect(cli).toEqual(shared);
      expect(parseBodyRuleLines(line)).toEqual(shared.ok ? { ok: true, value: [shared.value] } : { ok: false, error: `Body rules: ${shared.error}` });
    }
    expect(readBodyRule('POST /send to@=a.com, b.com')).toMatchObject({ ok: false });
    expect(readBodyRule('POST /send to@=a.com,b.com')).toEqual({ ok: true, value: { method: 'POST', path: '/send', field: 'to', domains: ['a.com', 'b.com'] } });
  });

  it('writes a rule back as a line that reads as the same rule', () => {
    for (const line of [...lines, ...bodyLines]) {
      const pattern = readCallPattern(line);
      if (pattern.ok) expect(readCallPattern(describePattern(pattern.value))).toEqual(pattern);
      const rule = readBodyRule(line);
      if (rule.ok) expect(readBodyRule(describeBodyRule(rule.value))).toEqual(rule);
    }
  });

  it('skips blank lines and comments, and names the first bad line with its label', () => {
    expect(readRuleLines('\n# reads\nGET /**\n  \nPOST /x', readCallPattern, 'Held')).toEqual({
      ok: true,
      value: [{ method: 'GET', path: '/**' }, { method: 'POST', path: '/x' }],
    });
    expect(readRuleLines('GET /**\nGET nope\nPOST bad', readCallPattern, 'Held')).toEqual({ ok: false, error: expect.stringMatching(/^Held: "GET nope"/) });
  });
});
