import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Per-request DynamoDB accounting: every call of the document client adds its consumed capacity here,
 * so a response can report what the request cost (header `X-DynamoDB-Capacity`, log field `dynamodb`):
 * total units, calls, the calls made one after another, and the units split into reads and writes (index
 * writes included, as DynamoDB bills).
 */
export interface RequestMetrics {
  calls: number;
  /**
   * The request's time in calls (issue 22's cost model): the longest chain of calls each of which began after
   * the one before it had answered. Calls made side by side count once.
   */
  sequential: number;
  capacityUnits: number;
  readUnits: number;
  writeUnits: number;
}

/** With when the chain's last call answered (`performance.now()`). */
const storage = new AsyncLocalStorage<RequestMetrics & { chainEnd: number }>();

export function withRequestMetrics<T>(fn: () => Promise<T>): Promise<T> {
  return storage.run({ calls: 0, sequential: 0, capacityUnits: 0, readUnits: 0, writeUnits: 0, chainEnd: -Infinity }, fn);
}

export function currentMetrics(): RequestMetrics | undefined {
  return storage.getStore();
}

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number } | undefined;

/**
 * Adds one call, which began at `startedAt` (`performance.now()`) and has just answered, and its consumed
 * capacity. `kind` says whether the operation reads or writes; where DynamoDB reports the split itself
 * (`ReadCapacityUnits`/`WriteCapacityUnits`), that wins.
 */
export function recordDynamoCall(consumed: Capacity | Capacity[], kind: 'read' | 'write', startedAt: number): void {
  const metrics = storage.getStore();
  if (!metrics) return;
  metrics.calls += 1;
  // Calls are recorded as they answer, so the earliest-answering chain is taken greedily: its length is the
  // most calls of the request that ran one after another.
  if (startedAt >= metrics.chainEnd) {
    metrics.sequential += 1;
    metrics.chainEnd = performance.now();
  }
  for (const item of Array.isArray(consumed) ? consumed : [consumed]) {
    const total = item?.CapacityUnits ?? 0;
    metrics.capacityUnits += total;
    if (item?.ReadCapacityUnits !== undefined || item?.WriteCapacityUnits !== undefined) {
      metrics.readUnits += item.ReadCapacityUnits ?? 0;
      metrics.writeUnits += item.WriteCapacityUnits ?? 0;
    } else if (kind === 'read') metrics.readUnits += total;
    else metrics.writeUnits += total;
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

export function formatMetrics(metrics: RequestMetrics): string {
  return `units=${round(metrics.capacityUnits)}; calls=${metrics.calls}; read=${round(metrics.readUnits)}; write=${round(metrics.writeUnits)}; sequential=${metrics.sequential}`;
}
