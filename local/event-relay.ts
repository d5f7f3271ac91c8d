/**
 * The outbox relay of the local runtime (P115): dynalite has no streams, so this drains the outbox
 * partitions in key order (`drainOutbox`), publishing to the emulated topic and deleting each item, the way
 * the stream-fed relay does on AWS. A failed or crashed pass (a `SimulatedCrash` at `relay.after-publish`)
 * leaves its item, and the next pass publishes it again with the same id. `drain()` is for tests; `npm
 * start` polls in the background.
 */
import { drainOutbox } from '#delivery/event-relay.js';
import { isSimulatedCrash } from '#platform/faults.js';
import { logger } from '#platform/logger.js';

export interface EventRelay {
  /** One pass over the outbox; resolves to the events published (0 when the pass died). */
  runOnce(): Promise<number>;
  /** Passes until one finds the outbox empty (or `maxWaitMs` passes); resolves to the events published. */
  drain(maxWaitMs?: number): Promise<number>;
  stop(): Promise<void>;
}

export function startEventRelay(options: { background: boolean; idleMs?: number }): EventRelay {
  let running = options.background;
  let inFlight: Promise<number> = Promise.resolve(0);
  let lastPassFailed = false;

  async function pass(): Promise<number> {
    try {
      const published = await drainOutbox();
      lastPassFailed = false;
      return published;
    } catch (error) {
      lastPassFailed = true;
      if (isSimulatedCrash(error)) logger.warn('event relay died (simulated crash); the next pass resumes', { point: error.point });
      else logger.error('event relay pass failed', { error: error as Error });
      return 0;
    }
  }

  function runOnce(): Promise<number> {
    // One pass at a time, like one relay invocation per stream shard.
    inFlight = inFlight.then(pass, pass);
    return inFlight;
  }

  const loop = running
    ? (async () => {
        while (running) {
          const published = await runOnce();
          if (!published) await new Promise((r) => setTimeout(r, options.idleMs ?? 200));
        }
      })()
    : undefined;

  return {
    runOnce,
    async drain(maxWaitMs = 30_000) {
      const deadline = Date.now() + maxWaitMs;
      let total = 0;
      while (Date.now() < deadline) {
        const published = await runOnce();
        total += published;
        if (!published && !lastPassFailed) return total;
        if (!published) await new Promise((r) => setTimeout(r, 50));
      }
      return total;
    },
    async stop() {
      running = false;
      await loop;
      await inFlight.catch(() => undefined);
    },
  };
}
