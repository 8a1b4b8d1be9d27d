// The agent's prose as GitHub-flavoured markdown (react-markdown + remark-gfm): headings, lists, task lists,
// tables, strikethrough, autolinks, and code blocks with highlighting and a Copy button. LLM output is never
// HTML: react-markdown builds React elements from a syntax tree, raw HTML in the text is shown as text, and
// no HTML string is ever made. A link is a link only to http(s) or mailto (opened outside the app); images
// are never loaded (their text is shown).
import { Children, isValidElement, useEffect, useRef, useState, type ReactElement, type ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { Prism } from 'prism-react-renderer';
import { HighlightedCode } from './code-view';
import './markdown.css';

const LANGUAGE_ALIASES: Readonly<Record<string, string>> = {
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  python3: 'python',
  py: 'python',
  js: 'javascript',
  ts: 'typescript',
  yml: 'yaml',
  sqlite: 'sql',
  postgres: 'sql',
  postgresql: 'sql',
  psql: 'sql',
  html: 'markup',
  xml: 'markup',
};

/** The Prism grammar for a fence's tag, or undefined (shown plain). */
export function grammarOf(tag: string): string | undefined {
  const lower = tag.trim().toLowerCase();
  const name = Object.hasOwn(LANGUAGE_ALIASES, lower) ? LANGUAGE_ALIASES[lower]! : lower;
  return name !== '' && Object.hasOwn(Prism.languages, name) && typeof Prism.languages[name] === 'object' ? name : undefined;
}


/** Copies text: the async clipboard where the page may use it, else a selected hidden textarea (Electron denies the permission). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'copy-scratch';
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

/** A Copy button that says "Copied" for a moment (or that it could not). */
export function CopyButton({ text, label = 'Copy', testId = 'copy-code' }: { text: string; label?: string; testId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <>
      <button
        type="button"
        className="button button-small copy-button"
        data-testid={testId}
        onClick={() => {
          void copyText(text).then((ok) => {
            setState(ok ? 'copied' : 'failed');
            window.clearTimeout(timer.current);
            timer.current = window.setTimeout(() => setState('idle'), 2000);
          });
        }}
      >
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy' : label}
      </button>
      {/* Said by screen readers; outside the button, whose content is not read as a live region. */}
      <span className="visually-hidden" role="status">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Could not copy' : ''}
      </span>
    </>
  );
}

/** A block of code with its language, highlighting and Copy. */
export function CodeBlock({ code, tag, testId = 'code-block' }: { code: string; tag: string; testId?: string }) {
  const grammar = grammarOf(tag);
  const lines = <HighlightedCode code={code} grammar={grammar ?? 'plain'} className="md-code" inCode />;
  return (
    <div className="md-code-block" data-testid={testId} data-language={tag.toLowerCase()}>
      <div className="md-code-bar">
        <span className="md-code-language">{tag === '' ? 'text' : tag}</span>
        <CopyButton text={code} />
      </div>
      {lines}
    </div>
  );
}

/** http(s) and mailto only: a `javascript:`, `data:` or `file:` link is not a link. */
export function safeHref(href: string | undefined): string | null {
  if (href === undefined) return null;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.username === '' && url.password === '' ? url.href : null;
  return url.protocol === 'mailto:' ? url.href : null;
}

function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return '';
}

function taskClass(className: string | undefined): string | undefined {
  if (className === undefined) return undefined;
  return className.replace(/\bcontains-task-list\b/, 'md-task-list').replace(/\btask-list-item\b/, 'md-task-item');
}

const components: Components = {
  a({ href, children }) {
    const safe = safeHref(href);
    if (safe === null) {
      return (
        <span className="md-not-a-link" title="Not opened: only web and mail links are" data-testid="md-not-a-link">
          {children}
        </span>
      );
    }
    return (
      <a href={safe} target="_blank" rel="noopener noreferrer" title={safe}>
        {children}
      </a>
    );
  },
  img({ alt, src }) {
    // Never fetched: an image in the agent's text could report to a server that the person read it.
    return (
      <span className="md-image" data-testid="md-image" title={typeof src === 'string' ? src : undefined}>
        [image{alt ? `: ${alt}` : ''}]
      </span>
    );
  },
  pre({ children }) {
    const child = Children.toArray(children)[0];
    if (isValidElement<{ className?: string; children?: ReactNode }>(child)) {
      const element = child as ReactElement<{ className?: string; children?: ReactNode }>;
      const tag = /(?:^|\s)language-(\S+)/.exec(element.props.className ?? '')?.[1] ?? '';
      return <CodeBlock code={textOf(element.props.children).replace(/\n$/, '')} tag={tag} />;
    }
    return <pre className="md-code">{children}</pre>;
  },
  table({ children }) {
    return (
      <div className="md-table-scroll">
        <table>{children}</table>
      </div>
    );
  },
  // remark-gfm's task-list classes renamed: the sidebar's own .task-list-item must not style them.
  ul({ className, children }) {
    return <ul className={taskClass(className)}>{children}</ul>;
  },
  ol({ className, children, start }) {
    return (
      <ol className={taskClass(className)} start={start}>
        {children}
      </ol>
    );
  },
  li({ className, children }) {
    return <li className={taskClass(className)}>{children}</li>;
  },
  input({ type, checked }) {
    // remark-gfm's task-list boxes: shown, never editable.
    return type === 'checkbox' ? <input type="checkbox" checked={checked === true} readOnly disabled aria-label={checked ? 'done' : 'not done'} /> : null;
  },
};

/** Markdown text as React elements; no raw HTML ever parsed. */
export function MarkdownText({ text }: { text: string }) {
  return (
    <div className="markdown" data-testid="markdown">
      <Markdown remarkPlugins={[remarkGfm]} components={components} skipHtml={false}>
        {text}
      </Markdown>
    </div>
  );
}
