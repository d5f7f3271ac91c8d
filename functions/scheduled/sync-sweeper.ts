/** Scheduled: re-queues applications whose sync is due but has no message in flight (D12). */
import { sweepDueSyncs } from '#delivery/sync.js';

export const handler = async () => sweepDueSyncs();
