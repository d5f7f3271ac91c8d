/** Every ATS the connector contract runs against: one import line and one entry per driver module. */
import type { DriverModule, StartedSimulator } from './driver.js';
import { sandboxDriver } from './sandbox.js';
import { personioDriver } from './personio.js';
import { greenhouseDriver } from './greenhouse.js';
import { leverDriver } from './lever.js';
import { teamtailorDriver } from './teamtailor.js';
import { recruiteeDriver } from './recruitee.js';
import { ashbyDriver } from './ashby.js';
import { smartrecruitersDriver } from './smartrecruiters.js';
import { workableDriver } from './workable.js';

// prettier-ignore
export const driverModules: DriverModule[] = [
  sandboxDriver,
  greenhouseDriver,
  leverDriver,
  personioDriver,
  smartrecruitersDriver,
  workableDriver,
  recruiteeDriver,
  teamtailorDriver,
  ashbyDriver,
];

/** Starts every driver module's simulator and points the connectors at them (their environments). */
export async function startSimulators(): Promise<StartedSimulator[]> {
  const simulators = await Promise.all(driverModules.map((m) => m.start()));
  for (const simulator of simulators) Object.assign(process.env, simulator.env);
  return simulators;
}
