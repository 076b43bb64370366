/** A small RFC 4180 reader that remembers the line each record starts on, so bad values can be pointed at. */

export interface CsvRecord {
  /** 1-based line where the record starts. */
  line: number;
  fields: string[];
  /** 1-based column where each field starts. */
  columns: number[];
}

export class CsvSyntaxError extends Error {
  constructor(message: string, readonly line: number, readonly column: number) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

/** Parses CSV text (comma-separated, double quotes escape, CRLF or LF); blank lines are skipped. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let line = 1;
  let col = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let fields: string[] = [];
  let columns: number[] = [];
  let recordLine = 1;
  let field = '';
  let fieldCol = 1;
  let quoted = false;
  let inQuotes = false;
  let atFieldStart = true;

  const endField = () => {
    fields.push(field);
    columns.push(fieldCol);
    field = '';
    quoted = false;
    atFieldStart = true;
  };
  const endRecord = () => {
    const blank = fields.length === 0 && field === '' && !quoted;
    endField();
    if (!blank) records.push({ line: recordLine, fields, columns });
    fields = [];
    columns = [];
  };

  for (; i < text.length; i++) {
    const ch = text[i];
    if (atFieldStart) {
      fieldCol = col;
      if (fields.length === 0) recordLine = line;
      atFieldStart = false;
      if (ch === '"') {
        inQuotes = true;
        quoted = true;
        col++;
        continue;
      }
    }
    if (inQuotes) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
          col += 2;
          continue;
        }
        inQuotes = false;
        col++;
        const next = text[i + 1];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new CsvSyntaxError('a closing quote must be followed by a comma or the end of the line', line, col);
        }
        continue;
      }
      field += ch;
      if (ch === '\n') {
        line++;
        col = 1;
      } else col++;
      continue;
    }
    if (ch === ',') {
      endField();
      col++;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      col = 1;
      atFieldStart = true;
    } else {
      if (ch === '"') throw new CsvSyntaxError('a quote inside an unquoted field (quote the whole field and double the quote)', line, col);
      field += ch;
      col++;
    }
  }
  if (inQuotes) throw new CsvSyntaxError('a quoted field is not closed', line, col);
  if (!atFieldStart || fields.length > 0) endRecord();
  return records;
}
