/**
 * Named crash points for the fault-injection suite (issue 12). Production code calls `crashPoint(name)` at
 * the places where a process death would hurt most; unarmed, it does nothing. A test arms a point with
 * `armCrashPoint(name)` (in-process runtime) or a spawned process with `CRASH_POINTS=name[,name…]`; the
 * next pass through the point throws a `SimulatedCrash`.
 *
 * A real `kill -9` runs no `catch` and no `finally`, so a `SimulatedCrash` must not trigger compensations:
 * a `catch` that cleans up (deletes an upload, releases a claim) calls `rethrowIfCrash(error)` first, and the
 * local runtime treats the error as the death of the invocation (the HTTP connection is dropped, a queue
 * message is left in flight until its visibility timeout). Guarantees must hold without the cleanups.
 */

export const CRASH_POINTS = [
  /** Sync worker: the ATS accepted the application, the status write has not happened. */
  'sync.after-ats-call',
  /** Sync worker: the fallback e-mail was sent, the status write has not happened. */
  'sync.after-email-send',
  /** Create: the attachments are in S3, the create transaction has not run. */
  'create.after-upload',
  /** Create: the transaction committed, the sync message has not been enqueued. */
  'create.after-transaction',
  /** Outbox relay: the event is on SNS, its outbox item has not been deleted. */
  'relay.after-publish',
  /** Webhook delivery: the partner's endpoint answered, the attempt has not been recorded. */
  'webhook.after-post',
] as const;

export type CrashPointName = (typeof CRASH_POINTS)[number];

export class SimulatedCrash extends Error {
  constructor(readonly point: CrashPointName) {
    super(`simulated crash at ${point}`);
    this.name = 'SimulatedCrash';
  }
}

/** Remaining firings per armed point (in-process arming). */
const armed = new Map<CrashPointName, number>();

/** Arms `point` to crash the next `times` passes (default 1). */
export function armCrashPoint(point: CrashPointName, times = 1): void {
  armed.set(point, times);
}

export function disarmCrashPoints(): void {
  armed.clear();
}

/** How many armed firings of `point` have not happened yet. */
export function pendingCrashes(point: CrashPointName): number {
  return armed.get(point) ?? 0;
}

function armedByEnvironment(point: CrashPointName): boolean {
  const list = process.env.CRASH_POINTS;
  return !!list && list.split(',').some((p) => p.trim() === point);
}

/** Throws a `SimulatedCrash` when `point` is armed; otherwise does nothing. */
export function crashPoint(point: CrashPointName): void {
  const left = armed.get(point) ?? 0;
  if (left > 0) {
    if (left === 1) armed.delete(point);
    else armed.set(point, left - 1);
    throw new SimulatedCrash(point);
  }
  if (armedByEnvironment(point)) throw new SimulatedCrash(point);
}

export function isSimulatedCrash(error: unknown): error is SimulatedCrash {
  return error instanceof SimulatedCrash;
}

/** For `catch` blocks that compensate: a simulated crash, like a real one, must skip the compensation. */
export function rethrowIfCrash(error: unknown): void {
  if (isSimulatedCrash(error)) throw error;
}
