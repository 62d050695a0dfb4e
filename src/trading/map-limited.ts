// Bounded concurrency: map over items with at most N calls in flight (the preview's quotes, the resume plan's questions).

/**
 * Maps items with at most `limit` calls in flight; results keep the input order. Once `signal` aborts, no further item is
 * started (the results of items not started stay undefined); calls already out finish.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
