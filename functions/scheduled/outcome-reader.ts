/** Scheduled: reads the outcome of every watched application from its ATS (D21, issue 43; P298–P300). */
import { readOutcomes } from '#delivery/outcomes.js';

export const handler = async () => readOutcomes();
