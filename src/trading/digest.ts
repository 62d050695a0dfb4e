// SHA-256 of text, synchronous, for the Hedge Log's chain and the approval batch hash.

/** The round constants of SHA-256 (FIPS 180-4 §4.2.2). */
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();
/** The message schedule and the padded input, kept between calls (the function is synchronous, so never shared by two at once). */
const W = new Int32Array(64);
let input = new Uint8Array(4096);

const hex32 = (x: number): string => HEX[x >>> 24] + HEX[(x >>> 16) & 255] + HEX[(x >>> 8) & 255] + HEX[x & 255];

/**
 * SHA-256 (hex) of the texts joined by a newline, over their UTF-8 bytes. Synchronous and allocation-free (month end hashes
 * tens of thousands of rows: Web Crypto's one promise per digest costs more than the digest, and a general-purpose
 * library's per-call objects were half of the time). Checked against @noble/hashes and the FIPS vectors in test/trading/digest.test.ts.
 */
export function hashOf(...parts: string[]): string {
  const text = parts.length === 1 ? parts[0] : parts.join("\n");
  // UTF-8 takes at most 3 bytes per UTF-16 unit; padding at most 72 more.
  if (input.length < text.length * 3 + 72) input = new Uint8Array(text.length * 6 + 72);
  const n = encoder.encodeInto(text, input).written;
  const blocks = (n + 72) >>> 6;
  const end = blocks * 64;
  input.fill(0, n, end);
  input[n] = 0x80;
  // The length in bits, 64-bit big-endian.
  const high = Math.floor(n / 0x20000000);
  const low = (n << 3) >>> 0;
  input[end - 8] = high >>> 24;
  input[end - 7] = (high >>> 16) & 255;
  input[end - 6] = (high >>> 8) & 255;
  input[end - 5] = high & 255;
  input[end - 4] = low >>> 24;
  input[end - 3] = (low >>> 16) & 255;
  input[end - 2] = (low >>> 8) & 255;
  input[end - 1] = low & 255;
  let h0 = 0x6a09e667 | 0;
  let h1 = 0xbb67ae85 | 0;
  let h2 = 0x3c6ef372 | 0;
  let h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f | 0;
  let h5 = 0x9b05688c | 0;
  let h6 = 0x1f83d9ab | 0;
  let h7 = 0x5be0cd19 | 0;
  for (let off = 0; off < end; off += 64) {
    for (let i = 0; i < 16; i++) {
      const j = off + i * 4;
      W[i] = (input[j] << 24) | (input[j + 1] << 16) | (input[j + 2] << 8) | input[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const a = W[i - 15];
      const b = W[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  return hex32(h0) + hex32(h1) + hex32(h2) + hex32(h3) + hex32(h4) + hex32(h5) + hex32(h6) + hex32(h7);
}
