/**
 * A request's time in DynamoDB calls (issue 22's cost model; `shared/platform/request-metrics.ts`): calls made
 * side by side count once, calls made one after another each count, and the count is the longest such chain.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { currentMetrics, formatMetrics, recordDynamoCall, withRequestMetrics } from '#platform/request-metrics.js';

/** A call that starts now, takes `ms`, and is recorded when it answers. */
async function call(ms: number): Promise<void> {
  const startedAt = performance.now();
  await sleep(ms);
  recordDynamoCall({ CapacityUnits: 0.5 }, 'read', startedAt);
}

const measured = (work: () => Promise<unknown>) =>
  withRequestMetrics(async () => {
    await work();
    return currentMetrics()!;
  });

test('calls one after another each count', async () => {
  const m = await measured(async () => {
    await call(5);
    await call(5);
    await call(5);
  });
  expect({ calls: m.calls, sequential: m.sequential }).toEqual({ calls: 3, sequential: 3 });
  expect(formatMetrics(m)).toBe('units=1.5; calls=3; read=1.5; write=0; sequential=3');
});

test('calls side by side count once', async () => {
  const m = await measured(() => Promise.all([call(5), call(10), call(15)]));
  expect({ calls: m.calls, sequential: m.sequential }).toEqual({ calls: 3, sequential: 1 });
});

test('the longest chain counts: two calls in a row beside one long call, then one after all of them', async () => {
  const m = await measured(async () => {
    await Promise.all([
      (async () => {
        await call(5);
        await call(5);
      })(),
      call(30),
    ]);
    await call(5);
  });
  expect({ calls: m.calls, sequential: m.sequential }).toEqual({ calls: 4, sequential: 3 });
});

test('outside a request nothing is counted', async () => {
  await call(1);
  expect(currentMetrics()).toBeUndefined();
});
