/**
 * P320: outcome readings grow rarer as an application ages. `readingWindows` is simulated over 91 days of
 * hourly passes (and of 45-minute passes) for applications applied at arbitrary instants: each must be read at
 * every pass in its first day, every 6 hours until day 7, then daily until OUTCOME_TRACK_DAYS, and never after.
 */
import { readingWindows, type ReadingWindow } from '#delivery/outcomes.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const inWindow = (applied: string, w: ReadingWindow) => applied >= w.from && (w.to === undefined || applied < w.to);

/** The instants (ms) of the passes that read an application applied at `applied`, passes every `pollMs` from `start`. */
function readings(applied: number, start: number, pollMs: number, trackDays: number): number[] {
  const at: number[] = [];
  const iso = new Date(applied).toISOString();
  // Each pass runs a little after its scheduled instant (EventBridge's jitter), never past the next one.
  for (let t = start; t < applied + (trackDays + 2) * DAY; t += pollMs) {
    if (t + 7_000 < applied) continue; // not applied yet
    const windows = readingWindows(new Date(t + 7_000), pollMs, trackDays, iso); // it is its shard's oldest watch
    if (windows.some((w) => inWindow(iso, w))) at.push(t);
  }
  return at;
}

const gaps = (at: number[]) => at.slice(1).map((t, i) => t - at[i]);

test.each([
  ['hourly passes', HOUR],
  ['45-minute passes', 45 * 60_000],
])('%s: every pass the first day, every 6 hours to day 7, daily to day 90, then never', (_, pollMs) => {
  const start = Date.UTC(2026, 0, 1);
  for (const offset of [17 * 60_000 + 123, 5 * HOUR + 59 * 60_000]) {
    const applied = start + offset;
    const at = readings(applied, start, pollMs, 90);
    const age = (t: number) => t - applied; // relative to the pass's scheduled instant
    const firstDay = at.filter((t) => age(t) <= DAY);
    const week = at.filter((t) => age(t) > DAY && age(t) <= 7 * DAY);
    const later = at.filter((t) => age(t) > 7 * DAY);
    // The first pass after it was applied reads it, and then every pass for a day.
    expect(firstDay[0] - applied).toBeLessThan(pollMs);
    expect(gaps(firstDay).every((g) => g === pollMs)).toBe(true);
    expect(firstDay.length).toBeGreaterThanOrEqual(Math.floor(DAY / pollMs));
    // Then once every 6 hours, then once a day: never two readings closer, never a longer gap.
    expect(gaps(week)).toEqual(Array(week.length - 1).fill(6 * HOUR));
    expect(week).toHaveLength(24);
    expect(gaps(later)).toEqual(Array(later.length - 1).fill(DAY));
    expect(later).toHaveLength(83);
    // None past the tracking window.
    expect(age(at[at.length - 1])).toBeLessThanOrEqual(90 * DAY);
  }
});

test('a pass queries few ranges: none older than the oldest watch, none past OUTCOME_TRACK_DAYS', () => {
  const at = new Date(Date.UTC(2026, 5, 1, 12, 30));
  const all = readingWindows(at, HOUR, 90);
  // 1 for the first day, 24 for days 1–7, 83 for days 7–90.
  expect(all).toHaveLength(1 + 24 + 83);
  expect(all[0]).toEqual({ from: '2026-05-31T12:00:00.000Z' });
  expect(all[1]).toEqual({ from: '2026-05-31T11:00:00.000Z', to: '2026-05-31T12:00:00.000Z' });
  expect(all.every((w) => w.from >= new Date(at.getTime() - 90 * DAY).toISOString())).toBe(true);
  // Only what is newer than the oldest watch (3 days old): the first day and the 6-hour ranges of ages 1 d to 2 d 18 h.
  const oldest = new Date(at.getTime() - 3 * DAY).toISOString();
  expect(readingWindows(at, HOUR, 90, oldest)).toHaveLength(1 + 8);
  // A tracking window of 2 days ends the ranges there; passes as long as a tier's interval read it whole.
  expect(readingWindows(at, HOUR, 2)).toHaveLength(1 + 4);
  expect(readingWindows(at, DAY, 90)).toEqual([
    { from: '2026-05-31T00:00:00.000Z' },
    { from: '2026-05-25T00:00:00.000Z', to: '2026-05-31T00:00:00.000Z' },
    { from: new Date(at.getTime() - 90 * DAY).toISOString(), to: '2026-05-25T00:00:00.000Z' },
  ]);
});
