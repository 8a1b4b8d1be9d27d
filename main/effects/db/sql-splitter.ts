// Splits a SQL text into statements with a lexer that knows the dialect's quoting — never by naive
// splitting on semicolons. A semicolon ends a statement only outside strings, quoted identifiers,
// comments, dollar quotes (PostgreSQL), parentheses and compound bodies (SQLite trigger bodies,
// PostgreSQL BEGIN ATOMIC … END), the same rules psql and sqlite3_complete() follow. The SQLite runner
// also asks SQLite itself: a piece it calls "incomplete input" is joined with the next one. What an
// engine's SQL has of these is its Lexicon, made in its folder (SQLITE_LEXICON, PG_LEXICON, MYSQL_LEXICON;
// MySQL's strings take backslash escapes and # starts a comment).
export type Lexicon = {
  /** Block comments nest (PostgreSQL). */
  nestedComments: boolean;
  /** E'…' strings take backslash escapes (PostgreSQL). */
  escapeStrings: boolean;
  /** `…` and […] quote identifiers (SQLite). */
  backtickAndBracketIdents: boolean;
  /** $tag$…$tag$ strings (PostgreSQL). */
  dollarQuotes: boolean;
  /** CREATE TRIGGER … BEGIN … END is one statement (SQLite). */
  triggerBodies: boolean;
  /** BEGIN ATOMIC … END is one statement (PostgreSQL). */
  atomicBodies: boolean;
  /** A backslash escapes the next character in every '…' and "…" string, and # starts a line comment (MySQL, MariaDB). */
  backslashStrings?: boolean;
};

export type SqlStatement = {
  /** The statement's text, without the closing semicolon, trimmed. */
  text: string;
  /** The first keyword, upper-cased ('SELECT', 'WITH', 'UPDATE', …); '' when the statement starts otherwise. */
  keyword: string;
};

type Word = { upper: string; depth: number };

export function splitStatements(sql: string, lexicon: Lexicon): SqlStatement[] {
  const out: SqlStatement[] = [];
  let start = 0;
  let parens = 0;
  let block = 0;
  let words: Word[] = [];
  const n = sql.length;
  let i = 0;

  const finish = (end: number): void => {
    const text = sql.slice(start, end).trim();
    if (words.length > 0) out.push({ text, keyword: words[0]!.upper });
    start = end + 1;
    parens = 0;
    block = 0;
    words = [];
  };

  while (i < n) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if ((c === '-' && next === '-') || (lexicon.backslashStrings && c === '#')) {
      const eol = sql.indexOf('\n', i + 2);
      i = eol === -1 ? n : eol + 1;
    } else if (c === '/' && next === '*') {
      i = skipBlockComment(sql, i, lexicon.nestedComments);
    } else if (c === "'") {
      const escapes = lexicon.backslashStrings === true || (lexicon.escapeStrings && isEscapeStringPrefix(sql, i));
      i = skipQuoted(sql, i, "'", escapes);
      markWord(words, 'LITERAL', parens);
    } else if (c === '"' || (lexicon.backtickAndBracketIdents && c === '`')) {
      i = skipQuoted(sql, i, c, c === '"' && lexicon.backslashStrings === true);
      markWord(words, 'IDENT', parens);
    } else if (lexicon.backtickAndBracketIdents && c === '[') {
      const close = sql.indexOf(']', i + 1);
      i = close === -1 ? n : close + 1;
      markWord(words, 'IDENT', parens);
    } else if (lexicon.dollarQuotes && c === '$' && !isIdentChar(sql[i - 1])) {
      const tag = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i, i + 200));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        i = close === -1 ? n : close + tag[0].length;
        markWord(words, 'LITERAL', parens);
      } else i++;
    } else if (c === '(') {
      parens++;
      i++;
    } else if (c === ')') {
      parens = Math.max(0, parens - 1);
      i++;
    } else if (c === ';') {
      if (parens === 0 && block === 0) finish(i);
      i++;
    } else if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentChar(sql[j])) j++;
      const upper = sql.slice(i, j).toUpperCase();
      block = nextBlockDepth(lexicon, words, upper, block, parens);
      words.push({ upper, depth: parens });
      i = j;
    } else {
      if (!/\s/.test(c) && words.length === 0) words.push({ upper: '', depth: parens });
      i++;
    }
  }
  finish(n);
  return out;
}

/** Compound bodies: SQLite's CREATE TRIGGER … BEGIN … END and PostgreSQL's BEGIN ATOMIC … END, with CASE … END inside. */
function nextBlockDepth(lexicon: Lexicon, words: Word[], upper: string, block: number, parens: number): number {
  if (block > 0) {
    if (upper === 'CASE') return block + 1;
    if (upper === 'END') return block - 1;
    return block;
  }
  if (parens > 0) return 0;
  if (lexicon.triggerBodies && upper === 'BEGIN' && isCreateTrigger(words)) return 1;
  if (lexicon.atomicBodies && upper === 'ATOMIC' && words.at(-1)?.upper === 'BEGIN') return 1;
  return 0;
}

function isCreateTrigger(words: Word[]): boolean {
  const top = words.filter((w) => w.depth === 0).map((w) => w.upper);
  if (top[0] !== 'CREATE') return false;
  const k = top[1] === 'TEMP' || top[1] === 'TEMPORARY' ? 2 : 1;
  return top[k] === 'TRIGGER';
}

function markWord(words: Word[], upper: string, depth: number): void {
  words.push({ upper, depth });
}

function skipBlockComment(sql: string, i: number, nests: boolean): number {
  let depth = 1;
  let j = i + 2;
  while (j < sql.length) {
    if (nests && sql[j] === '/' && sql[j + 1] === '*') {
      depth++;
      j += 2;
    } else if (sql[j] === '*' && sql[j + 1] === '/') {
      depth--;
      j += 2;
      if (depth === 0 || !nests) return j;
    } else j++;
  }
  return sql.length;
}

/** A quoted run where the quote doubles to escape itself (and, for E'' strings, a backslash escapes). */
function skipQuoted(sql: string, i: number, quote: string, backslashEscapes: boolean): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j]!;
    if (backslashEscapes && c === '\\') {
      j += 2;
      continue;
    }
    if (c === quote) {
      if (sql[j + 1] === quote) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  return sql.length;
}

function isEscapeStringPrefix(sql: string, i: number): boolean {
  const prev = sql[i - 1];
  return (prev === 'E' || prev === 'e') && !isIdentChar(sql[i - 2]);
}

function isIdentStart(c: string): boolean {
  return /[A-Za-z_\u0080-\uffff]/.test(c);
}

function isIdentChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
}
