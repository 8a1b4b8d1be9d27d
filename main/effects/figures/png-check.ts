// What the host believes of a figure's bytes, whatever the sandbox said: a PNG by its signature and its first
// chunk (IHDR, 13 bytes, CRC right), with its dimensions read here. Decoding is left to the renderer's <img>,
// which shows PNGs only through a data: URL; the pixel cap keeps an image bomb (a tiny file that claims a huge
// canvas) out of it.

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Largest side and largest canvas of a figure (a 300-dpi A0 poster is about 10,000 × 14,000). */
export const MAX_SIDE = 16_384;
export const MAX_PIXELS = 64 * 1024 * 1024;

export class NotAFigure extends Error {}

/** The PNG's width and height, or NotAFigure saying why it is not one. */
export function checkPng(bytes: Buffer): { width: number; height: number } {
  if (bytes.length < PNG_SIGNATURE.length + 25 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new NotAFigure('not a PNG (no PNG signature)');
  const length = bytes.readUInt32BE(8);
  const type = bytes.toString('latin1', 12, 16);
  if (type !== 'IHDR' || length !== 13) throw new NotAFigure('not a PNG (its first chunk is not a 13-byte IHDR)');
  const crc = bytes.readUInt32BE(29);
  if (crc32(bytes.subarray(12, 29)) !== crc) throw new NotAFigure('not a PNG (the IHDR checksum is wrong)');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  if (width === 0 || height === 0) throw new NotAFigure('a PNG with no pixels');
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS) {
    throw new NotAFigure(`a PNG of ${width} × ${height} pixels, over the limit (${MAX_SIDE} a side, ${MAX_PIXELS / 1024 / 1024} M pixels)`);
  }
  return { width, height };
}

let table: Uint32Array | null = null;

/** CRC-32 as PNG and zlib compute it. */
export function crc32(data: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of data) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
