// lazySchema (src/api/lazy-schema.ts): a schema built on its first use reads, refuses, extends and describes itself (OpenAPI) exactly as the schema built at once.
import * as z from "zod/mini";
import { lazySchema } from "../../src/api/lazy-schema";
import { hedgeSchema, openRequestSchema, quoteRequestSchema } from "../../src/api/schemas";

const shape = () => z.object({ id: z.string(), amount: z.number().check(z.positive("must be greater than 0")) });

test("nothing is built until the schema is first used, and it is built once", () => {
  let builds = 0;
  const lazy = lazySchema(() => {
    builds += 1;
    return shape();
  });
  expect(builds).toBe(0);
  expect(lazy.parse({ id: "a", amount: 1 })).toEqual({ id: "a", amount: 1 });
  expect(z.safeParse(lazy, { id: "b", amount: 2 }).success).toBe(true);
  expect(builds).toBe(1);
});

test("it refuses, extends and describes itself as the schema built at once", () => {
  const lazy = lazySchema(shape);
  const eager = shape();
  const bad = { id: 7, amount: -1 };
  expect(z.safeParse(lazy, bad).error?.issues).toEqual(z.safeParse(eager, bad).error?.issues);
  expect(z.toJSONSchema(lazy)).toEqual(z.toJSONSchema(eager));
  const extended = z.extend(lazy, { note: z.optional(z.string()) });
  expect(extended.parse({ id: "a", amount: 1, note: "n" })).toEqual({ id: "a", amount: 1, note: "n" });
  expect("_zod" in lazy).toBe(true);
});

test("the service's schemas built on first use read as before: an open request extends the quote request", () => {
  const request = { market: "USDTNGN", side: "buy", notional_usd: 1000, tenor_days: 7, client_reference: "r1" };
  expect(openRequestSchema.parse(request)).toEqual(request);
  expect(z.safeParse(quoteRequestSchema, { ...request, notional_usd: 2e9 }).error?.issues[0].message).toBe(
    "must be at most 1,000,000,000 USD",
  );
  expect(z.safeParse(hedgeSchema, { id: 1 }).success).toBe(false);
});

test("every reflection of the stand-in is the built schema's: its keys and their descriptors, its prototype, and what is set, defined or deleted on it", () => {
  const eager = shape();
  let built: ReturnType<typeof shape> | undefined;
  const lazy = lazySchema(() => (built = shape()));
  // Keys and descriptors (Object.keys, spreading, JSON): the schema's own, enumerable as they are there.
  expect(Object.keys(lazy)).toEqual(Object.keys(eager));
  expect(Object.keys({ ...lazy })).toEqual(Object.keys(eager));
  expect(Object.getOwnPropertyDescriptor(lazy, "_zod")?.enumerable).toBe(Object.getOwnPropertyDescriptor(eager, "_zod")?.enumerable);
  expect(Object.getOwnPropertyDescriptor(lazy, "no such key")).toBeUndefined();
  // The prototype: instanceof and the class's methods are the schema's.
  expect(Object.getPrototypeOf(lazy)).toBe(Object.getPrototypeOf(eager));
  expect(lazy instanceof (eager.constructor as new () => unknown)).toBe(true);
  // Written through to the schema itself, and read back from it.
  (lazy as unknown as Record<string, unknown>).note = "set";
  expect((built as unknown as Record<string, unknown>).note).toBe("set");
  Object.defineProperty(lazy, "defined", { value: 42, enumerable: true, configurable: true });
  expect((built as unknown as Record<string, unknown>).defined).toBe(42);
  expect(delete (lazy as unknown as Record<string, unknown>).note).toBe(true);
  expect("note" in built!).toBe(false);
  expect("defined" in lazy).toBe(true);
});
