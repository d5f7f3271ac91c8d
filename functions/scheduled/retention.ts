/** Scheduled: deletes the personal data of applications older than 180 days (D10). */
import { purgeExpiredPersonalData } from '#delivery/retention.js';

export const handler = async () => purgeExpiredPersonalData();
