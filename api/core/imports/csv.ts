/**
 * Comma-separated values as Mastodon's exports write them and its importer reads them (RFC 4180:
 * fields separated by commas, a field with a comma, a quote or a line break in double quotes, a
 * quote inside one doubled). Reading is strict where a lenient reader would guess: a stray quote
 * or an unclosed quoted field is a malformed file, reported with its line.
 */

/** A file that is not CSV, with the line where reading stopped. */
export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`${message} on line ${line}`);
    this.name = 'CsvError';
  }
}

/** One record of a file, with the line it starts on (1 for the first). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * Reads CSV text into records. Empty lines are skipped (as Mastodon's importer skips them); a
 * byte-order mark at the start is dropped; line breaks may be LF, CRLF or CR. `maxRecords` stops
 * reading once that many records were read (the caller only needs to know there are more).
 */
export function parseCsv(input: string, maxRecords = Number.POSITIVE_INFINITY): CsvRecord[] {
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n && records.length < maxRecords) {
    const start = line;
    // An empty line is no record.
    if (text[i] === '\n' || text[i] === '\r') {
      i += text[i] === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
      continue;
    }
    const fields: string[] = [];
    for (;;) {
      let value = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new CsvError('A quoted field is not closed', start);
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) line++;
          value += c;
          i++;
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') throw new CsvError('Something follows a closing quote', line);
      } else {
        const from = i;
        while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"') throw new CsvError('A quote appears inside a field that is not quoted', line);
          i++;
        }
        value = text.slice(from, i);
      }
      fields.push(value);
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    records.push({ line: start, fields });
    if (i < n) {
      i += text[i] === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
    }
  }
  return records;
}

/** One field as CSV: quoted when it holds a comma, a quote or a line break; null is an empty field. */
function csvField(value: string | null): string {
  if (value === null) return '';
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Writes records as CSV text, one per line, each line ended by LF (as Mastodon's exports are). */
export function writeCsv(records: readonly (readonly (string | null)[])[]): string {
  return records.map((fields) => `${fields.map(csvField).join(',')}\n`).join('');
}
