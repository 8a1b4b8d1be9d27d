// An action's code with syntax highlighting. prism-react-renderer builds React elements from tokens, so no
// HTML string is ever made from the code.
import { Highlight, Prism, type PrismTheme } from 'prism-react-renderer';
import type { ActionLanguage } from '../../../shared/domain';

// prism-react-renderer bundles Python but no shell grammar; a small one is enough for readable bash.
if (Prism.languages.bash === undefined) {
  Prism.languages.bash = {
    comment: { pattern: /(^|[^"{\\$])#.*/, lookbehind: true },
    string: { pattern: /(["'])(?:\\[\s\S]|(?!\1)[^\\])*\1/, greedy: true },
    variable: /\$(?:\w+|[#?*!@$0-9]|\{[^}]+\})/,
    keyword:
      /\b(?:case|do|done|elif|else|esac|export|fi|for|function|if|in|local|readonly|return|select|then|until|while)\b/,
    builtin:
      /\b(?:awk|cat|cd|chmod|cp|cut|echo|exit|find|grep|head|ls|mkdir|mv|printf|pwd|read|rm|sed|set|sort|source|tail|test|touch|tr|uniq|unset|wc|xargs)\b/,
    number: /\b\d+\b/,
    operator: /&&|\|\||[|&;<>!]=?|=/,
    punctuation: /[{}[\]();]/,
  };
}

const grammarFor: Record<ActionLanguage, string> = { python: 'python', bash: 'bash', sh: 'bash', sql: 'sql' };

/** Calm colours that sit on a grey card, from styles.css's variables (light and dark). */
const theme: PrismTheme = {
  plain: { color: 'var(--code-text)', backgroundColor: 'transparent' },
  styles: [
    { types: ['comment', 'prolog', 'doctype', 'cdata'], style: { color: 'var(--code-comment)', fontStyle: 'italic' } },
    { types: ['string', 'attr-value', 'char', 'triple-quoted-string'], style: { color: 'var(--code-string)' } },
    { types: ['keyword', 'operator', 'important'], style: { color: 'var(--code-keyword)' } },
    { types: ['builtin', 'class-name', 'function'], style: { color: 'var(--code-function)' } },
    { types: ['number', 'boolean', 'constant'], style: { color: 'var(--code-number)' } },
    { types: ['variable', 'decorator', 'annotation'], style: { color: 'var(--code-variable)' } },
    { types: ['punctuation'], style: { color: 'var(--code-punctuation)' } },
  ],
};

export function CodeView({ code, language }: { code: string; language: ActionLanguage }) {
  return (
    <Highlight code={code} language={grammarFor[language]} theme={theme}>
      {({ className, style, tokens, getLineProps, getTokenProps }) => (
        <pre className={`code-view ${className}`} style={style} data-testid="action-code">
          {tokens.map((line, lineIndex) => (
            <div key={lineIndex} {...getLineProps({ line })}>
              {line.map((token, tokenIndex) => (
                <span key={tokenIndex} {...getTokenProps({ token })} />
              ))}
            </div>
          ))}
        </pre>
      )}
    </Highlight>
  );
}
