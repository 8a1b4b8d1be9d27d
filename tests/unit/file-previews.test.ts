// Previews of files an action wrote (main/effects/figures/previews.ts): images by their bytes, the first
// rows of a CSV and of an XLSX (read-excel-file), and the zip-bomb guard that runs before any parser. A
// preview reads its source only as far as it needs: an image or XLSX over its cap is refused unread, a CSV
// is read until its rows are in.
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { bufferSource, preview as previewOf, PREVIEW_LIMITS, sniffImage, zipOverLimits, type PreviewSource } from '../../main/effects/figures/previews';
import { makePng } from '../support/png';

/** A minimal real XLSX (inline strings and numbers), zipped with fflate. */
function workbook(rows: Array<Array<string | number>>, extra: Record<string, Uint8Array | [Uint8Array, { level: 1 }]> = {}): Buffer {
  const col = (i: number) => String.fromCharCode(65 + i);
  const sheetRows = rows
    .map((r, y) => `<row r="${y + 1}">${r.map((v, x) => (typeof v === 'number' ? `<c r="${col(x)}${y + 1}"><v>${v}</v></c>` : `<c r="${col(x)}${y + 1}" t="inlineStr"><is><t>${v}</t></is></c>`)).join('')}</row>`)
    .join('');
  const files: Record<string, Uint8Array | [Uint8Array, { level: 1 }]> = {
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    ),
    'xl/workbook.xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sales" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    ),
    'xl/worksheets/sheet1.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${sheetRows}</sheetData></worksheet>`,
    ),
    ...extra,
  };
  return Buffer.from(zipSync(files));
}

const preview = (path: string, bytes: Buffer) => previewOf(path, bufferSource(bytes));

/** A source of `size` bytes that must never be read (a preview that refuses by size alone). */
const unreadable = (size: number): PreviewSource => ({
  size,
  read: () => {
    throw new Error('read although its size alone refuses it');
  },
});

/** A source that hands `bytes` out in pieces of `piece` bytes, as a checkpoint blob is inflated, counting what it handed out. */
function piecewise(bytes: Buffer, piece: number): PreviewSource & { handed: number } {
  const source = {
    size: bytes.length,
    handed: 0,
    read: async (maxBytes: number, visit: (chunk: Buffer) => boolean | void) => {
      for (let at = 0; at < Math.min(bytes.length, maxBytes); at += piece) {
        const chunk = bytes.subarray(at, Math.min(at + piece, maxBytes));
        source.handed += chunk.length;
        if (visit(chunk) === false) return;
      }
    },
  };
  return source;
}

describe('previews', () => {
  it('shows an image by its bytes and refuses one whose bytes are not what its name says', async () => {
    const png = makePng(12, 8);
    expect(await preview('chart.png', png)).toEqual({ kind: 'image', mime: 'image/png', bytes: png.length, base64: png.toString('base64') });
    expect(await preview('photo.jpg', png)).toMatchObject({ kind: 'image', mime: 'image/png' });
    expect(await preview('fake.png', Buffer.from('<html><script>alert(1)</script></html>'))).toEqual({ kind: 'none', reason: 'not an image its name says it is' });
    expect(await preview('big.png', Buffer.alloc(PREVIEW_LIMITS.imageBytes + 1))).toEqual({
      kind: 'none',
      reason: '8 MiB, larger than the 8 MiB a preview reads; open the file itself to see it',
    });
  });

  it('refuses an image or a workbook over its cap by its size alone, without reading it', async () => {
    expect(await previewOf('huge.png', unreadable(2 * 1024 ** 3))).toEqual({
      kind: 'none',
      reason: '2 GiB, larger than the 8 MiB a preview reads; open the file itself to see it',
    });
    expect(await previewOf('huge.xlsx', unreadable(PREVIEW_LIMITS.xlsxBytes + 1))).toEqual({
      kind: 'none',
      reason: '16 MiB, larger than the 16 MiB a preview reads; open the file itself to see it',
    });
    expect(await previewOf('big.xlsx', unreadable(40 * 1024 * 1024))).toMatchObject({ kind: 'none', reason: expect.stringMatching(/^40 MiB, larger than the 16 MiB/) });
  });

  it('reads a CSV only until one row more than it shows is in, and never past its byte cap', async () => {
    const csv = Buffer.from(['id,name', ...Array.from({ length: 100_000 }, (_, i) => `${i},row ${i}`)].join('\n'));
    const source = piecewise(csv, 64);
    const shown = await previewOf('long.csv', source);
    expect(shown).toMatchObject({ kind: 'table', truncated: true });
    if (shown.kind !== 'table') throw new Error('not a table');
    expect(shown.rows).toEqual([['id', 'name'], ...Array.from({ length: 19 }, (_, i) => [String(i), `row ${i}`])]);
    // The 21st row ("19,row 19") begins in the piece handed out last; nothing after that piece was read.
    expect(source.handed).toBeLessThanOrEqual(csv.indexOf('\n19,row 19') + 1 + 64);
    expect(source.handed).toBeGreaterThan(csv.indexOf('\n19,row 19') + 1);

    // One endless line: read to the cap and no further, shown as read and said to be cut.
    const wide = piecewise(Buffer.alloc(4 * PREVIEW_LIMITS.csvBytes, 'x'), 16 * 1024);
    const cut = await previewOf('wide.csv', wide);
    expect(wide.handed).toBe(PREVIEW_LIMITS.csvBytes);
    expect(cut).toMatchObject({ kind: 'table', truncated: true, rows: [[`${'x'.repeat(PREVIEW_LIMITS.cellChars)}…`]] });
  });

  it('keeps a row whole when a piece ends inside a quoted field or between \\r and \\n', async () => {
    const lines = ['a,b', ...Array.from({ length: 25 }, (_, i) => `"line ${i}\r\nsecond half",${i}`)];
    const csv = Buffer.from(lines.join('\r\n'));
    for (const piece of [1, 7, 13]) {
      const shown = await previewOf('quoted.csv', piecewise(csv, piece));
      if (shown.kind !== 'table') throw new Error('not a table');
      expect(shown.rows).toHaveLength(20);
      expect(shown.rows[19]).toEqual([`line 18\r\nsecond half`, '18']);
    }
  });

  it('knows an SVG only by an <svg> root (it is shown through <img>, so its script never runs)', () => {
    expect(sniffImage(Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'))).toBe('image/svg+xml');
    expect(sniffImage(Buffer.from('<html><svg></svg></html>'))).toBeNull();
    expect(sniffImage(Buffer.from('GIF89a......'))).toBe('image/gif');
    expect(sniffImage(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
  });

  it('shows the first 20 rows of a CSV, quoted fields and all, and says it was cut', async () => {
    const csv = ['ads,sales', '"1,5",3', ...Array.from({ length: 40 }, (_, i) => `${i},${2 * i}`)].join('\n');
    const shown = await preview('sales.csv', Buffer.from(csv));
    expect(shown).toMatchObject({ kind: 'table', truncated: true });
    if (shown.kind !== 'table') throw new Error('not a table');
    expect(shown.rows).toHaveLength(20);
    expect(shown.rows.slice(0, 3)).toEqual([['ads', 'sales'], ['1,5', '3'], ['0', '0']]);
    expect(await preview('small.csv', Buffer.from('a,b\n1,2\n'))).toEqual({ kind: 'table', rows: [['a', 'b'], ['1', '2']], truncated: false });
  });

  it('shows the first rows of an XLSX\'s first sheet', async () => {
    const rows = [['month', 'sales'], ...Array.from({ length: 30 }, (_, i) => [`m${i + 1}`, 100 + i])];
    const shown = await preview('report.xlsx', workbook(rows));
    expect(shown).toMatchObject({ kind: 'table', sheet: 'Sales', truncated: true });
    if (shown.kind !== 'table') throw new Error('not a table');
    expect(shown.rows.slice(0, 3)).toEqual([['month', 'sales'], ['m1', '100'], ['m2', '101']]);
  });

  it('refuses a zip bomb before any parser unzips it: 70 MiB of zeros in a small XLSX', { timeout: 60_000 }, async () => {
    const bomb = workbook([['a']], { 'xl/worksheets/zeros.xml': [new Uint8Array(70 * 1024 * 1024), { level: 1 }] });
    expect(bomb.length).toBeLessThan(PREVIEW_LIMITS.xlsxBytes);
    expect(zipOverLimits(bomb)).toMatch(/more than 64 MiB once unzipped/);
    expect(await preview('bomb.xlsx', bomb)).toEqual({ kind: 'none', reason: 'more than 64 MiB once unzipped (a zip bomb?)' });
    const many = workbook([['a']], Object.fromEntries(Array.from({ length: 2100 }, (_, i) => [`x/${i}.xml`, strToU8('x')])));
    expect(zipOverLimits(many)).toBe('a zip of more than 2000 entries');
    expect(await preview('junk.xlsx', Buffer.from('this is no zip'))).toMatchObject({ kind: 'none' });
  });
});
