/**
 * The Huffman code of HPACK (RFC 7541, Appendix B), for decoding the string literals a peer
 * sends Huffman-coded. The code is canonical: each symbol's code follows from the lengths
 * alone (codes assigned in order of length, then of symbol), so only the lengths are written
 * here; `huffman.test.ts` checks the result against the RFC's Appendix C examples and against
 * node:http2's encoder for every byte.
 */

/** The symbols (byte values; 256 is EOS) of each code length. */
const SYMBOLS_BY_LENGTH: ReadonlyArray<readonly [number, string | number[]]> = [
  [5, '012aceiost'],
  [6, ' %-./3456789=A_bdfghlmnpru'],
  [7, ':BCDEFGHIJKLMNOPQRSTUVWYjkqvwxyz'],
  [8, '&*,;XZ'],
  [10, '!"()?'],
  [11, "'+|"],
  [12, '#>'],
  [13, [0, 36, 64, 91, 93, 126]],
  [14, '^}'],
  [15, '<`{'],
  [19, [92, 195, 208]],
  [20, [128, 130, 131, 162, 184, 194, 224, 226]],
  [21, [153, 161, 167, 172, 176, 177, 179, 209, 216, 217, 227, 229, 230]],
  [22, [129, 132, 133, 134, 136, 146, 154, 156, 160, 163, 164, 169, 170, 173, 178, 181, 185, 186, 187, 189, 190, 196, 198, 228, 232, 233]],
  [23, [1, 135, 137, 138, 139, 140, 141, 143, 147, 149, 150, 151, 152, 155, 157, 158, 165, 166, 168, 174, 175, 180, 182, 183, 188, 191, 197, 231, 239]],
  [24, [9, 142, 144, 145, 148, 159, 171, 206, 215, 225, 236, 237]],
  [25, [199, 207, 234, 235]],
  [26, [192, 193, 200, 201, 202, 205, 210, 213, 218, 219, 238, 240, 242, 243, 255]],
  [27, [203, 204, 211, 212, 214, 221, 222, 223, 241, 244, 245, 246, 247, 248, 250, 251, 252, 253, 254]],
  [28, [2, 3, 4, 5, 6, 7, 8, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 23, 24, 25, 26, 27, 28, 29, 30, 31, 127, 220, 249]],
  [30, [10, 13, 22, 256]],
];

const EOS = 256;

/**
 * The canonical code: each symbol's code length and code, assigned in order of length and,
 * within one length, in byte order (the strings above are written in it).
 */
const lengths = new Uint8Array(257);
const codes = new Uint32Array(257);
{
  let code = 0;
  let previous = 0;
  let symbols = 0;
  for (const [length, members] of SYMBOLS_BY_LENGTH) {
    const list = typeof members === 'string' ? [...members].map((c) => c.charCodeAt(0)) : members;
    code <<= length - previous;
    previous = length;
    for (const symbol of list) {
      lengths[symbol] = length;
      codes[symbol] = code++;
      symbols++;
    }
  }
  if (symbols !== 257 || code !== 2 ** previous) throw new Error(`the HPACK Huffman table is not complete (${symbols} symbols)`);
}

/**
 * The decoding tree: node n's children are at `tree[2n]` (bit 0) and `tree[2n + 1]` (bit 1);
 * a child >= 0 is another node, a child < 0 is the leaf of symbol `-child - 1`.
 */
const tree = buildTree();

function buildTree(): Int32Array {
  const nodes = new Int32Array(2 * 512);
  let count = 1;
  for (let symbol = 0; symbol < 257; symbol++) {
    const length = lengths[symbol];
    const code = codes[symbol];
    let node = 0;
    for (let bit = length - 1; bit > 0; bit--) {
      const slot = 2 * node + ((code >>> bit) & 1);
      if (nodes[slot] === 0) nodes[slot] = count++;
      node = nodes[slot];
    }
    nodes[2 * node + (code & 1)] = -symbol - 1;
  }
  return nodes;
}

/**
 * huffmanDecode decodes `bytes[start, end)`, returning the decoded bytes as a latin1 string
 * (one character per byte, as node:http2 gives header values). It throws on EOS inside the
 * string or padding that is longer than 7 bits or not all ones (RFC 7541, 5.2).
 */
export function huffmanDecode(bytes: Uint8Array, start: number, end: number): string {
  let out = '';
  let node = 0;
  // Bits read since the last symbol ended, and whether all of them were ones (padding).
  let pending = 0;
  let allOnes = true;
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >>> bit) & 1;
      const next = tree[2 * node + one];
      pending++;
      if (one === 0) allOnes = false;
      if (next < 0) {
        const symbol = -next - 1;
        if (symbol === EOS) throw new Error('a Huffman-coded string contains EOS');
        out += String.fromCharCode(symbol);
        node = 0;
        pending = 0;
        allOnes = true;
      } else {
        node = next;
      }
    }
  }
  if (pending > 7 || !allOnes) throw new Error('a Huffman-coded string ends with invalid padding');
  return out;
}

/** huffmanEncode encodes a latin1 string (for tests: Conductor's encoder sends literals as they are). */
export function huffmanEncode(text: string): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const symbol = text.charCodeAt(i) & 0xff;
    const length = lengths[symbol];
    const code = codes[symbol];
    for (let bit = length - 1; bit >= 0; bit--) {
      acc = (acc << 1) | ((code >>> bit) & 1);
      if (++bits === 8) {
        out.push(acc);
        acc = 0;
        bits = 0;
      }
    }
  }
  if (bits > 0) out.push(((acc << (8 - bits)) | ((1 << (8 - bits)) - 1)) & 0xff);
  return Buffer.from(out);
}
