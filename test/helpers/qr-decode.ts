/**
 * A QR code reader for tests, written from ISO/IEC 18004 and independent of the encoder the pages
 * use (uqr): it takes the module matrix (true = dark), reads the format information, removes the
 * mask, collects the codewords in the standard's zigzag order, de-interleaves the blocks, checks
 * every block's Reed-Solomon codewords, and parses numeric, alphanumeric and byte segments. It
 * reads clean matrices only (no image processing, no error correction), versions 1 to 10.
 */

type Level = 'L' | 'M' | 'Q' | 'H';

/** Format-information bits of each level (ISO 18004 Table 12). */
const LEVEL_BITS: Readonly<Record<Level, number>> = { L: 1, M: 0, Q: 3, H: 2 };

/** Per version 1-10 and level: [Reed-Solomon codewords per block, number of blocks] (Table 9). */
const BLOCKS: Readonly<Record<Level, readonly (readonly [number, number])[]>> = {
  L: [
    [7, 1],
    [10, 1],
    [15, 1],
    [20, 1],
    [26, 1],
    [18, 2],
    [20, 2],
    [24, 2],
    [30, 2],
    [18, 4],
  ],
  M: [
    [10, 1],
    [16, 1],
    [26, 1],
    [18, 2],
    [24, 2],
    [16, 4],
    [18, 4],
    [22, 4],
    [22, 5],
    [26, 5],
  ],
  Q: [
    [13, 1],
    [22, 1],
    [18, 2],
    [26, 2],
    [18, 4],
    [24, 4],
    [18, 6],
    [22, 6],
    [20, 8],
    [24, 8],
  ],
  H: [
    [17, 1],
    [28, 1],
    [22, 2],
    [16, 4],
    [22, 4],
    [28, 4],
    [26, 5],
    [26, 6],
    [24, 8],
    [28, 8],
  ],
};

const MASKS: readonly ((row: number, col: number) => boolean)[] = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i + j) % 2) + ((i * j) % 3)) % 2 === 0,
];

/** The 15-bit format word: 5 data bits, their BCH(15,5) remainder, XOR the fixed mask. */
function formatWord(level: Level, mask: number): number {
  const data = (LEVEL_BITS[level] << 3) | mask;
  let rem = data << 10;
  for (let bit = 14; bit >= 10; bit--) if ((rem >> bit) & 1) rem ^= 0x537 << (bit - 10);
  return ((data << 10) | rem) ^ 0x5412;
}

/** Centre rows/columns of the alignment patterns (Annex E), versions 2 and up. */
function alignmentCentres(version: number, size: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = Math.ceil((size - 13) / (count * 2 - 2)) * 2;
  const centres = [6];
  for (let pos = size - 7; centres.length < count; pos -= step) centres.splice(1, 0, pos);
  return centres;
}

/** Modules that carry no data: finders, separators, format and version areas, timing, alignment. */
function functionModules(version: number, size: number): boolean[][] {
  const reserved = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  const block = (top: number, left: number, height: number, width: number) => {
    for (let r = top; r < top + height; r++) for (let c = left; c < left + width; c++) reserved[r]![c] = true;
  };
  block(0, 0, 9, 9);
  block(0, size - 8, 9, 8);
  block(size - 8, 0, 8, 9);
  block(6, 0, 1, size);
  block(0, 6, size, 1);
  const centres = alignmentCentres(version, size);
  const last = centres.length - 1;
  centres.forEach((row, i) =>
    centres.forEach((col, j) => {
      const onFinder = (i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0);
      if (!onFinder) block(row - 2, col - 2, 5, 5);
    }),
  );
  if (version >= 7) {
    block(0, size - 11, 6, 3);
    block(size - 11, 0, 3, 6);
  }
  return reserved;
}

/** Level and mask from the first copy of the format information, checked against the second. */
function readFormat(m: readonly (readonly boolean[])[]): { level: Level; mask: number } {
  const size = m.length;
  const bit = (row: number, col: number) => (m[row]![col]! ? 1 : 0);
  let first = 0;
  let second = 0;
  for (let i = 0; i < 15; i++) {
    const [r1, c1] = i < 6 ? [i, 8] : i < 8 ? [i + 1, 8] : i === 8 ? [8, 7] : [8, 14 - i];
    const [r2, c2] = i < 8 ? [8, size - 1 - i] : [size - 15 + i, 8];
    first |= bit(r1, c1) << i;
    second |= bit(r2, c2) << i;
  }
  for (const level of ['L', 'M', 'Q', 'H'] as const)
    for (let mask = 0; mask < 8; mask++)
      if (formatWord(level, mask) === first && first === second) return { level, mask };
  throw new Error('no valid format information');
}

/* GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1, for the Reed-Solomon check. */
const EXP = new Array<number>(512);
const LOG = new Array<number>(256).fill(0);
for (let i = 0, x = 1; i < 255; i++, x = x & 0x80 ? ((x << 1) ^ 0x11d) & 0xff : x << 1) {
  EXP[i] = x;
  LOG[x] = i;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;
const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : EXP[LOG[a]! + LOG[b]!]!);

/** The Reed-Solomon codewords of `data`: the remainder of data·x^n by Π(x − α^i), i < n. */
function reedSolomon(data: readonly number[], n: number): number[] {
  let generator = [1];
  for (let i = 0; i < n; i++) {
    const next = new Array<number>(generator.length + 1).fill(0);
    generator.forEach((g, j) => {
      next[j]! ^= g;
      next[j + 1]! ^= mul(g, EXP[i]!);
    });
    generator = next;
  }
  const rem = new Array<number>(n).fill(0);
  for (const byte of data) {
    const factor = byte ^ rem.shift()!;
    rem.push(0);
    for (let j = 0; j < n; j++) rem[j]! ^= mul(generator[j + 1]!, factor);
  }
  return rem;
}

/** Data codewords, de-interleaved, after each block's error-correction codewords check out. */
function dataCodewords(codewords: readonly number[], version: number, level: Level): number[] {
  const [eccLength, count] = BLOCKS[level][version - 1]!;
  const shortLength = Math.floor(codewords.length / count);
  const longBlocks = codewords.length % count;
  const dataLengths = Array.from(
    { length: count },
    (_, b) => shortLength - eccLength + (b >= count - longBlocks ? 1 : 0),
  );
  const blocks = dataLengths.map(() => ({ data: [] as number[], ecc: [] as number[] }));
  let at = 0;
  for (let i = 0; i < Math.max(...dataLengths); i++)
    blocks.forEach((blk, b) => {
      if (i < dataLengths[b]!) blk.data.push(codewords[at++]!);
    });
  for (let i = 0; i < eccLength; i++) for (const blk of blocks) blk.ecc.push(codewords[at++]!);
  blocks.forEach((blk, b) => {
    if (reedSolomon(blk.data, eccLength).join() !== blk.ecc.join())
      throw new Error(`block ${String(b)}: error-correction codewords do not match its data`);
  });
  return blocks.flatMap((blk) => blk.data);
}

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

/** Numeric, alphanumeric and byte (UTF-8) segments up to the terminator. */
function parseSegments(bytes: readonly number[], version: number): string {
  const bits = bytes.flatMap((b) => Array.from({ length: 8 }, (_, i) => (b >> (7 - i)) & 1));
  let at = 0;
  const read = (n: number): number => {
    if (at + n > bits.length) throw new Error('the data ends inside a segment');
    let v = 0;
    for (let i = 0; i < n; i++) v = (v << 1) | bits[at++]!;
    return v;
  };
  const small = version <= 9;
  let text = '';
  while (bits.length - at >= 4) {
    const mode = read(4);
    if (mode === 0) break;
    if (mode === 0b0100) {
      const length = read(small ? 8 : 16);
      const raw = Uint8Array.from({ length }, () => read(8));
      text += new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } else if (mode === 0b0010) {
      for (let left = read(small ? 9 : 11); left > 0; left -= 2) {
        if (left === 1) text += ALPHANUMERIC[read(6)] ?? '';
        else {
          const pair = read(11);
          text += `${ALPHANUMERIC[Math.floor(pair / 45)] ?? ''}${ALPHANUMERIC[pair % 45] ?? ''}`;
        }
      }
    } else if (mode === 0b0001) {
      for (let left = read(small ? 10 : 12); left > 0; left -= 3) {
        const digits = Math.min(left, 3);
        text += String(read([0, 4, 7, 10][digits]!)).padStart(digits, '0');
      }
    } else throw new Error(`unsupported mode ${mode.toString(2)}`);
  }
  return text;
}

/** The text of a QR code given as its module matrix (rows of columns, true = dark, no border). */
export function decodeQr(matrix: readonly (readonly boolean[])[]): string {
  const size = matrix.length;
  const version = (size - 17) / 4;
  if (!Number.isInteger(version) || version < 1 || version > 10 || matrix.some((r) => r.length !== size))
    throw new Error(`not a QR code of version 1-10: ${String(size)} modules across`);
  const { level, mask } = readFormat(matrix);
  const reserved = functionModules(version, size);
  const bits: number[] = [];
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5; // the vertical timing pattern is skipped
    const upward = ((right + 1) & 2) === 0;
    for (let v = 0; v < size; v++) {
      const row = upward ? size - 1 - v : v;
      for (const col of [right, right - 1]) {
        if (reserved[row]![col]) continue;
        bits.push(Number(matrix[row]![col]) ^ Number(MASKS[mask]!(row, col)));
      }
    }
  }
  const codewords: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8)
    codewords.push(bits.slice(i, i + 8).reduce((byte, b) => (byte << 1) | b, 0));
  return parseSegments(dataCodewords(codewords, version, level), version);
}

/**
 * The module matrix of the pages' QR SVG (src/web/client/qr.ts draws one `M x y h1v1h-1z` square
 * per dark module in a `0 0 size size` viewBox, with a quiet-zone border of `border` modules).
 */
export function matrixFromSvgPath(d: string, viewBoxSize: number, border: number): boolean[][] {
  const size = viewBoxSize - 2 * border;
  const matrix = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  const squares = [...d.matchAll(/M(\d+) (\d+)h1v1h-1z/g)];
  if (squares.map((m) => m[0]).join('') !== d) throw new Error('the path is not made of module squares');
  for (const [, x, y] of squares) matrix[Number(y) - border]![Number(x) - border] = true;
  return matrix;
}
