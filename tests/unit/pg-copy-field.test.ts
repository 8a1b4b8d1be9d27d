// COPY's text format, as the PostgreSQL row file keeps it: each field decoded exactly as COPY escaped it.
import { describe, expect, it } from 'vitest';
import { copyField } from '../../main/effects/db/postgres/pg-row-file';

describe('copyField', () => {
  it('reads \\N as NULL and plain text as itself', () => {
    expect(copyField('\\N')).toBeNull();
    expect(copyField('(1,"Green tea",3.50)')).toBe('(1,"Green tea",3.50)');
    expect(copyField('')).toBe('');
  });

  it('undoes every escape COPY writes: backslash, tab, newline, carriage return, backspace, form feed, vertical tab', () => {
    expect(copyField('a\\\\b')).toBe('a\\b');
    expect(copyField('a\\tb\\nc\\rd')).toBe('a\tb\nc\rd');
    expect(copyField('\\b\\f\\v')).toBe('\b\f\v');
    // A literal backslash followed by N inside a value is not NULL.
    expect(copyField('\\\\N')).toBe('\\N');
    expect(copyField('x\\\\\\\\y')).toBe('x\\\\y');
  });
});
