// Max trade's split (src/policy/split.ts): the full pieces first, the remainder last, nothing for nothing, and a split too fine (or a limit of nothing) refused with the least that would do, never run.
import { MAX_PIECES, splitCents } from "../../src/policy/split";
import { TargetInputError } from "../../src/policy/input-error";

describe("splitCents", () => {
  test("the full pieces first, the remainder last; no limit is one piece; nothing to split is no piece", () => {
    expect(splitCents(125_000_00, 50_000_00)).toEqual([50_000_00, 50_000_00, 25_000_00]);
    expect(splitCents(125_000_00, null)).toEqual([125_000_00]);
    expect([splitCents(0, null), splitCents(0, 100)]).toEqual([[], []]);
  });

  test(`at most ${MAX_PIECES} pieces: one more is refused, naming the limit it was given and the least that would do`, () => {
    expect(splitCents(1_000 * 7, 7)).toHaveLength(1_000);
    expect(() => splitCents(1_001 * 7, 7, "max_trade_usd")).toThrow(
      new TargetInputError(
        "max_trade_usd 0.07 USD would split 70.07 USD into 1,001 trades; at most 1,000 are made: raise max_trade_usd to at least 0.08 USD, or leave it empty.",
      ),
    );
  });

  test("a limit of nothing, or below nothing, is refused rather than split forever", () => {
    expect(() => splitCents(100, 0)).toThrow(/Max trade 0\.00 USD would split 1\.00 USD into endless trades/);
    expect(() => splitCents(100, -5)).toThrow(/Max trade -0\.05 USD would split 1\.00 USD into endless trades/);
  });
});
