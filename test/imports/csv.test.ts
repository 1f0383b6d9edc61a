import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv, writeCsv } from '../../api/core/imports/csv.js';

describe('CSV as Mastodon writes and reads it', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF and CR lines, a BOM, and skips empty lines', () => {
    const text = '\uFEFFList name,Account address\r\n"a, ""b""",x@y\r\n\r\n"two\nlines",z\rlast,\n';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ['List name', 'Account address'] },
      { line: 2, fields: ['a, "b"', 'x@y'] },
      { line: 4, fields: ['two\nlines', 'z'] },
      { line: 6, fields: ['last', ''] },
    ]);
  });

  it('stops after the records asked for', () => {
    expect(parseCsv('a\nb\nc\n', 2).map((r) => r.fields[0])).toEqual(['a', 'b']);
  });

  it('refuses an unclosed quote, a quote inside a bare field and text after a closing quote, naming the line', () => {
    expect(() => parseCsv('ok\n"open,\nstill')).toThrow(new CsvError('A quoted field is not closed', 2));
    expect(() => parseCsv('ok\nba"d\n')).toThrow('A quote appears inside a field that is not quoted on line 2');
    expect(() => parseCsv('"x"y\n')).toThrow('Something follows a closing quote on line 1');
  });

  it('writes what it reads back, quoting only where needed', () => {
    const records = [['Friends, "close"', 'a@b'], ['plain', null], ['multi\nline', '']];
    const text = writeCsv(records);
    expect(text).toBe('"Friends, ""close""",a@b\nplain,\n"multi\nline",\n');
    expect(parseCsv(text).map((r) => r.fields)).toEqual([['Friends, "close"', 'a@b'], ['plain', ''], ['multi\nline', '']]);
  });
});
