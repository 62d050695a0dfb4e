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

test("a reflective look at the stand-in sees the schema (its keys, descriptors, prototype), and what is set, defined or deleted on it lands on the schema", () => {
  const built = shape() as unknown as Record<string, unknown>;
  const lazy = lazySchema(() => built) as unknown as Record<string, unknown>;
  expect(Reflect.ownKeys(lazy)).toEqual(Reflect.ownKeys(built));
  expect(Object.getPrototypeOf(lazy)).toBe(Object.getPrototypeOf(built));
  expect(Object.getOwnPropertyDescriptor(lazy, "_zod")).toEqual({ ...Object.getOwnPropertyDescriptor(built, "_zod"), configurable: true });
  expect(Object.getOwnPropertyDescriptor(lazy, "no such key")).toBeUndefined();
  lazy.note = "set";
  Object.defineProperty(lazy, "defined", { value: 7, enumerable: true, configurable: true });
  expect([built.note, built.defined]).toEqual(["set", 7]);
  delete lazy.note;
  expect("note" in built).toBe(false);
});
