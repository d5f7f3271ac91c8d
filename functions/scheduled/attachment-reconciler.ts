/** Scheduled: deletes attachment objects whose create never committed (issue 12). */
import { reconcilePendingUploads } from '#delivery/orphans.js';

export const handler = async () => reconcilePendingUploads();
