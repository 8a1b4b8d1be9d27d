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

/** Calm colours that sit on a grey card, from styles.css's variables (light and dark); the action code and code in answers. */
const theme: PrismTheme = {
  plain: { color: 'var(--code-text)', backgroundColor: 'transparent' },
  styles: [
    { types: ['comment', 'prolog', 'doctype', 'cdata'], style: { color: 'var(--code-comment)', fontStyle: 'italic' } },
    { types: ['string', 'attr-value', 'char', 'triple-quoted-string'], style: { color: 'var(--code-string)' } },
    { types: ['keyword', 'operator', 'important'], style: { color: 'var(--code-keyword)' } },
    { types: ['builtin', 'class-name', 'function', 'tag'], style: { color: 'var(--code-function)' } },
    { types: ['number', 'boolean', 'constant'], style: { color: 'var(--code-number)' } },
    { types: ['variable', 'decorator', 'annotation', 'attr-name'], style: { color: 'var(--code-variable)' } },
    { types: ['punctuation'], style: { color: 'var(--code-punctuation)' } },
  ],
};

/** Code as highlighted lines in a <pre> (its lines inside a <code> when `inCode`); `grammar` a Prism language, or 'plain'. */
export function HighlightedCode({ code, grammar, className, testId, inCode = false }: { code: string; grammar: string; className: string; testId?: string; inCode?: boolean }) {
  return (
    <Highlight code={code} language={grammar} theme={theme}>
      {({ className: tokensClass, style, tokens, getLineProps, getTokenProps }) => {
        const lines = tokens.map((line, lineIndex) => (
          <div key={lineIndex} {...getLineProps({ line })}>
            {line.map((token, tokenIndex) => (
              <span key={tokenIndex} {...getTokenProps({ token })} />
            ))}
          </div>
        ));
        return (
          <pre className={`${className} ${tokensClass}`} style={style} data-testid={testId}>
            {inCode ? <code>{lines}</code> : lines}
          </pre>
        );
      }}
    </Highlight>
  );
}

export function CodeView({ code, language }: { code: string; language: ActionLanguage }) {
  return <HighlightedCode code={code} grammar={grammarFor[language]} className="code-view" testId="action-code" />;
}
