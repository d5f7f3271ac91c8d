import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Per-request DynamoDB accounting: every call of the document client adds its consumed capacity here,
 * so a response can report what the request cost (header `X-DynamoDB-Capacity`, log field `dynamodb`).
 */
export interface RequestMetrics {
  calls: number;
  capacityUnits: number;
}

const storage = new AsyncLocalStorage<RequestMetrics>();

export function withRequestMetrics<T>(fn: () => Promise<T>): Promise<T> {
  return storage.run({ calls: 0, capacityUnits: 0 }, fn);
}

export function currentMetrics(): RequestMetrics | undefined {
  return storage.getStore();
}

type Capacity = { CapacityUnits?: number } | undefined;

export function recordDynamoCall(consumed: Capacity | Capacity[]): void {
  const metrics = storage.getStore();
  if (!metrics) return;
  metrics.calls += 1;
  for (const item of Array.isArray(consumed) ? consumed : [consumed]) metrics.capacityUnits += item?.CapacityUnits ?? 0;
}

export function formatMetrics(metrics: RequestMetrics): string {
  return `units=${Math.round(metrics.capacityUnits * 100) / 100}; calls=${metrics.calls}`;
}
