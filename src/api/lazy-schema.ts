// A zod schema built on its first use rather than when its module loads: the page builds only the schemas its first requests read (the envelope, the prices, the account), not every resource's (issue 41: most of the functions' engine evaluation was schemas.ts building them all).
/**
 * Stands for the schema `build` makes, built on the first property read (a parse, `_zod`, a shape); the same schema
 * afterwards. Every read, check and key is forwarded to it, so zod's functions (`z.safeParse`, `z.extend`,
 * `z.toJSONSchema`) and `z.infer` treat it as that schema.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    // Reported configurable: the stand-in object itself has none of the schema's properties (a proxy's invariant).
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}
