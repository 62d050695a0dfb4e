// SHA-256 of text, synchronous, for the Hedge Log's chain and the approval batch hash.
import { sha256 } from "js-sha256";

/**
 * SHA-256 (hex) of the texts joined by a newline, over their UTF-8 bytes. Synchronous: month end hashes tens of thousands
 * of rows, and Web Crypto's one promise per digest costs more than the digest. js-sha256 (MIT, no dependencies) took about
 * half the time of @noble/hashes here (its per-call objects); test/trading/log/digest.test.ts checks it against FIPS 180-4 and
 * @noble/hashes on every length to 300 bytes and every UTF-8 width.
 */
export function hashOf(...parts: string[]): string {
  return sha256(parts.join("\n")); // one part joins to itself
}
