/**
 * Runs the scheduled functions of `shared/background-functions.ts` in the local runtime, as EventBridge schedules
 * would: at their rate (scaled by LOCAL_SCHEDULE_SPEEDUP for trying things by hand), never two runs of
 * one schedule at once. `run(id)` runs one now, for tests and operators.
 */
import { logger } from '#platform/logger.js';
import { backgroundFunctions, rateMilliseconds, type BackgroundFunctionDefinition } from '#delivery/background-functions.js';

type ScheduledHandler = (event: unknown, context: unknown) => Promise<unknown>;

export interface Scheduler {
  run(id: string): Promise<unknown>;
  stop(): void;
}

export function startScheduler(options: { enabled: boolean; speedup?: number }): Scheduler {
  const running = new Map<string, Promise<unknown>>();
  const timers: NodeJS.Timeout[] = [];

  const schedules = backgroundFunctions.filter((f) => f.trigger.kind === 'schedule');

  async function load(schedule: BackgroundFunctionDefinition): Promise<ScheduledHandler> {
    const module = (await import(`../functions/${schedule.handler}.js`)) as { handler: ScheduledHandler };
    return module.handler;
  }

  function run(id: string): Promise<unknown> {
    const schedule = schedules.find((s) => s.id === id);
    if (!schedule) return Promise.reject(new Error(`no schedule ${id}`));
    const inFlight = running.get(id);
    if (inFlight) return inFlight;
    const event = { source: 'aws.scheduler', 'detail-type': 'Scheduled Event', time: new Date().toISOString(), detail: {} };
    const started = load(schedule)
      .then((handler) => handler(event, { functionName: schedule.id, awsRequestId: `schedule-${Date.now()}` }))
      .finally(() => running.delete(id));
    running.set(id, started);
    return started;
  }

  if (options.enabled) {
    for (const schedule of schedules) {
      const override = schedule.localIntervalMinutesVariable ? Number(process.env[schedule.localIntervalMinutesVariable]) : NaN;
      const rate = override > 0 ? override * 60_000 : rateMilliseconds((schedule.trigger as { expression: string }).expression);
      const every = rate / (options.speedup ?? 1);
      const timer = setInterval(() => {
        run(schedule.id).catch((error: Error) => logger.error('scheduled run failed', { schedule: schedule.id, error }));
      }, every);
      timer.unref();
      timers.push(timer);
    }
  }

  return {
    run,
    stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
