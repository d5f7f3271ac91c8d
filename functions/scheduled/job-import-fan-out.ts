/** Scheduled: one job import message per company with job sync active (D14). */
import { fanOutJobImports } from '#delivery/job-import.js';

export const handler = async () => fanOutJobImports();
