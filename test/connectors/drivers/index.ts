/** Every ATS the connector contract runs against: one import line and one entry per driver module. */
import type { DriverModule } from './driver.js';
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
