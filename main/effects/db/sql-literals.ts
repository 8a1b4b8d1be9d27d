// SQL text Posthoc writes itself: quoted identifiers and literals. Row images are kept as SQL literals
// (SQLite's own quote(), which round-trips every value exactly; PostgreSQL's text form, which each
// type's input function reads back exactly), so the compensating SQL on the card is the SQL undo runs.

/** A double-quoted identifier; always quoted, so case, spaces, unicode and keywords are safe. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A qualified name: "schema"."name", or just "name" when there is no schema (SQLite's main database). */
export function qualified(schema: string | null, name: string): string {
  return schema === null ? quoteIdent(name) : `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/** A PostgreSQL literal of a value's text form (NULL for null). Backslashes need E'' so the text survives either standard_conforming_strings setting. */
export function pgLiteral(text: string | null): string {
  if (text === null) return 'NULL';
  if (!text.includes("'") && !text.includes('\\')) return `'${text}'`;
  const body = text.replace(/'/g, "''");
  return text.includes('\\') ? `E'${body.replace(/\\/g, '\\\\')}'` : `'${body}'`;
}

/** Parses PostgreSQL's record text, `(1,"a b",,"x""y")`, into one text (or null) per field. */
export function parseRecordText(record: string): Array<string | null> {
  if (record[0] !== '(' || record[record.length - 1] !== ')') throw new Error(`Not a record literal: ${record.slice(0, 80)}`);
  const fields: Array<string | null> = [];
  const end = record.length - 1;
  let i = 1;
  for (;;) {
    if (record.charCodeAt(i) !== 34 /* " */) {
      // Unquoted: up to the next comma; empty means NULL. record_out quotes anything with a comma, quote or backslash.
      let j = record.indexOf(',', i);
      if (j === -1 || j > end) j = end;
      fields.push(j === i ? null : record.slice(i, j));
      if (j >= end) return fields;
      i = j + 1;
      continue;
    }
    let value = '';
    let j = i + 1;
    for (;;) {
      const q = record.indexOf('"', j);
      const b = record.indexOf('\\', j);
      if (b !== -1 && b < q) {
        value += record.slice(j, b) + record[b + 1];
        j = b + 2;
      } else if (record[q + 1] === '"') {
        value += record.slice(j, q + 1);
        j = q + 2;
      } else {
        value += record.slice(j, q);
        j = q + 1;
        break;
      }
    }
    fields.push(value);
    if (j >= end) return fields;
    i = j + 1; // past the comma
  }
}

/** Literal arrays compare as strings: the same literal text is the same value of the same type. */
export function sameImage(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** A short, readable form of a literal for messages: long text and blobs are cut. */
export function shortLiteral(literal: string, max = 40): string {
  return literal.length <= max ? literal : `${literal.slice(0, max - 1)}…`;
}
