// SHA-256 of text, synchronous, for the Hedge Log's chain and the approval batch hash.
import { sha256 } from "@noble/hashes/sha256";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";

/**
 * SHA-256 (hex) of the texts joined by a newline. Synchronous (@noble/hashes, audited, no dependencies): month end hashes
 * tens of thousands of rows, and Web Crypto's one promise per digest costs more than the digest itself.
 */
export function hashOf(...parts: string[]): string {
  return bytesToHex(sha256(utf8ToBytes(parts.join("\n"))));
}
