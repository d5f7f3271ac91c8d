/**
 * The service clock. `FAKE_NOW` (an ISO date-time) starts the clock of the local runtime and the admin
 * tool at that instant, advancing in real time, so time-dependent behaviour can be tried by hand and in
 * tests. Inside Lambda it is ignored. Tests of the in-process runtime may also move this process's clock
 * forward with `advanceClock` (for example past a 5-day threshold), which Lambda never calls.
 */
const startedAt = Date.now();
let advancedMs = 0;

/** Tests: moves the service clock of this process `ms` forward (cumulative); `resetClock` undoes it. */
export function advanceClock(ms: number): void {
  advancedMs += ms;
}

export function resetClock(): void {
  advancedMs = 0;
}

function fakeStart(): number | undefined {
  const value = process.env.FAKE_NOW;
  if (!value || process.env.AWS_LAMBDA_FUNCTION_NAME) return undefined;
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) throw new Error(`FAKE_NOW is not an ISO date-time: ${value}`);
  return parsed;
}

export function now(): Date {
  const start = fakeStart();
  return new Date((start === undefined ? Date.now() : start + (Date.now() - startedAt)) + advancedMs);
}

/** D7: `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export function isoNow(): string {
  return now().toISOString();
}
