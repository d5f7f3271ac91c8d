/**
 * The service clock. `FAKE_NOW` (an ISO date-time) starts the clock of the local runtime and the admin
 * tool at that instant, advancing in real time, so time-dependent behaviour can be tried by hand. Inside
 * Lambda it is ignored. A test that needs another clock for its requests sets it per request
 * (`runWithClock`, which the local HTTP adapter applies for the test-only `X-Fake-Now` header, P183), not
 * through `FAKE_NOW`, which every concurrent request of the process shares. Tests of the in-process runtime may also move this
 * process's clock forward with `advanceClock` (for example past a 5-day threshold), which Lambda never calls.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const startedAt = Date.now();
let advancedMs = 0;
/** The clock of one async context (a request of the local adapter): its offset from real time, in ms. */
const contextOffset = new AsyncLocalStorage<number>();

/** Tests: moves the service clock of this process `ms` forward (cumulative); `resetClock` undoes it. */
export function advanceClock(ms: number): void {
  advancedMs += ms;
}

export function resetClock(): void {
  advancedMs = 0;
}

function inLambda(): boolean {
  return !!process.env.AWS_LAMBDA_FUNCTION_NAME;
}

/**
 * Runs `fn` with the service clock starting at `at` for `fn`'s async context only (what it awaits and
 * starts), advancing in real time; other work of the process keeps its clock. Overrides `FAKE_NOW`.
 * Inside Lambda the clock is not changed.
 */
export function runWithClock<T>(at: Date, fn: () => T): T {
  if (inLambda()) return fn();
  if (Number.isNaN(at.getTime())) throw new Error('runWithClock needs a valid date');
  return contextOffset.run(at.getTime() - Date.now(), fn);
}

function fakeStart(): number | undefined {
  const value = process.env.FAKE_NOW;
  if (!value || inLambda()) return undefined;
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) throw new Error(`FAKE_NOW is not an ISO date-time: ${value}`);
  return parsed;
}

export function now(): Date {
  const offset = contextOffset.getStore();
  if (offset !== undefined) return new Date(Date.now() + offset + advancedMs);
  const start = fakeStart();
  return new Date((start === undefined ? Date.now() : start + (Date.now() - startedAt)) + advancedMs);
}

/** D7: `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export function isoNow(): string {
  return now().toISOString();
}
