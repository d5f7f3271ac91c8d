/**
 * What a request cost, read from `X-DynamoDB-Capacity` (issue 22's cost model: read and write units on DynamoDB
 * Local, and the calls made one after another), for the capacity tests.
 */
import type { TestResponse } from './runtime.js';

export function cost(res: TestResponse): { units: number; calls: number; read: number; write: number } {
  const header = res.headers.get('x-dynamodb-capacity') ?? '';
  const match = /units=([\d.]+); calls=(\d+); read=([\d.]+); write=([\d.]+)/.exec(header);
  if (!match) throw new Error(`no capacity header: ${header}`);
  return { units: Number(match[1]), calls: Number(match[2]), read: Number(match[3]), write: Number(match[4]) };
}

/** The request's DynamoDB calls made one after another (issue 22: a request's time). */
export function sequential(res: TestResponse): number {
  const match = /sequential=(\d+)/.exec(res.headers.get('x-dynamodb-capacity') ?? '');
  if (!match) throw new Error('no sequential calls in the capacity header');
  return Number(match[1]);
}

/**
 * Measured warm: the same request once before, so the per-instance caches in front of every list (the D3
 * company check, 10 s; the read-time copies, 60 s) are filled and only the list's own reads are counted. An
 * entry the warm-up still found can expire just before the measured request (a slow beforeAll put the big
 * company's check ~10 s back), so the caller refills the company check first, and the cheaper of two measured
 * requests is the warm cost: a cache can only add reads, never remove the list's own.
 */
export async function warmCost(get: () => Promise<TestResponse>): Promise<TestResponse> {
  await get();
  const [first, second] = [await get(), await get()];
  return cost(second).units < cost(first).units ? second : first;
}

/** Issue 22: a bare `page=N` reads at most 1 unit per 100 records skipped. */
export const SKIP_UNITS_PER_100 = 1;

/** The ids of a list page's results, in order. */
export const ids = (res: TestResponse): number[] => res.body.results.map((r: { id: number }) => r.id);

/** `work(0)` … `work(count - 1)`, `width` at a time, results in order. */
export async function pool<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}
