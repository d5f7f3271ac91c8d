/** Scheduled: the external apply follow-up's one reminder (issue 23 item 3, P207). */
import { sendDueReminders } from '#delivery/external-apply.js';

export const handler = async () => sendDueReminders();
