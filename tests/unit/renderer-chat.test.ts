// The chat's pure parts: which keys send a prompt, which links are links, how long output is cut, and which
// cards open by themselves.
import { describe, expect, it } from 'vitest';
import { sendsOnKey } from '../../renderer/src/components/submit-handlers';
import { safeHref } from '../../renderer/src/components/markdown';
import { clipOutput } from '../../renderer/src/components/action-output';
import { opensExpanded } from '../../renderer/src/components/action-card';

const key = (k: string, extra: Partial<{ shiftKey: boolean; altKey: boolean; isComposing: boolean; keyCode: number }> = {}) => ({ key: k, shiftKey: false, altKey: false, ...extra });

describe('the composer keys', () => {
  it('Enter sends; Shift+Enter and Alt+Enter add a line; other keys do nothing', () => {
    expect(sendsOnKey(key('Enter'))).toBe(true);
    expect(sendsOnKey(key('Enter', { shiftKey: true }))).toBe(false);
    expect(sendsOnKey(key('Enter', { altKey: true }))).toBe(false);
    expect(sendsOnKey(key('a'))).toBe(false);
  });

  it('Enter that ends an IME composition never sends', () => {
    expect(sendsOnKey(key('Enter', { isComposing: true }))).toBe(false);
    expect(sendsOnKey(key('Enter', { keyCode: 229 }))).toBe(false);
  });
});

describe('links in the agent\'s markdown', () => {
  it('are links for http, https and mailto', () => {
    expect(safeHref('https://example.com/a?b=1#c')).toBe('https://example.com/a?b=1#c');
    expect(safeHref('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/');
    expect(safeHref('mailto:me@example.com')).toBe('mailto:me@example.com');
  });

  it('are not links for script, data, file, relative or credential-carrying addresses', () => {
    for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', 'file:///etc/passwd', '/settings', '#top', 'https://user:pw@example.com/', '']) {
      expect(safeHref(href), href).toBeNull();
    }
    expect(safeHref(undefined)).toBeNull();
  });
});

describe('long output on a card', () => {
  const out = Array.from({ length: 25 }, (_, i) => `o${i + 1}`).join('\n') + '\n';
  it('keeps the first lines of stdout, then of stderr', () => {
    expect(clipOutput(out, 'e1\ne2\n', 3, 'start')).toEqual({ stdout: 'o1\no2\no3\n', stderr: '' });
    expect(clipOutput('a\n', 'e1\ne2', 2, 'start')).toEqual({ stdout: 'a\n', stderr: 'e1\n' });
  });

  it('keeps the last lines, stderr included, for a running or failed action', () => {
    expect(clipOutput(out, 'e1\ne2\n', 3, 'end')).toEqual({ stdout: 'o25\n', stderr: 'e1\ne2\n' });
    expect(clipOutput(out, '', 2, 'end')).toEqual({ stdout: 'o24\no25\n', stderr: '' });
  });
});

describe('which cards open by themselves', () => {
  it('a running action and one that needs the person; finished ones stay folded', () => {
    expect(['running', 'awaiting-approval', 'failed', 'interrupted'].every((s) => opensExpanded(s as never))).toBe(true);
    expect(['done', 'undone', 'kept'].some((s) => opensExpanded(s as never))).toBe(false);
  });
});
