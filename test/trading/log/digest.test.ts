// The one SHA-256 of the chain and the batch hash: FIPS 180-4's vectors, and the same digests as @noble/hashes for any text (lengths around every padding edge, non-ASCII, lone surrogates).
import { sha256 } from "@noble/hashes/sha256";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { hashOf } from "../../../src/trading/log/digest";

const reference = (...parts: string[]) => bytesToHex(sha256(utf8ToBytes(parts.join("\n"))));

describe("hashOf", () => {
  it("gives FIPS 180-4's digests", () => {
    expect(hashOf("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashOf("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hashOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
    expect(hashOf("a".repeat(1_000_000))).toBe("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  });

  it("joins its parts by a newline", () => {
    expect(hashOf("0".repeat(64), '["x"]')).toBe(hashOf(`${"0".repeat(64)}\n["x"]`));
  });

  it("agrees with @noble/hashes on every length from 0 to 300 bytes and on text of every UTF-8 width", () => {
    const alphabet = ["a", "é", "€", "😀", "\ud800", "\n", '"'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let length = 0; length <= 300; length++) {
      const ascii = "x".repeat(length);
      expect(hashOf(ascii)).toBe(reference(ascii));
      const mixed = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
      expect(hashOf(mixed, ascii)).toBe(reference(mixed, ascii));
    }
  });
});
