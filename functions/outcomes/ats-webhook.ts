import { atsWebhookHandler } from '#http/ats-webhook-endpoint.js';

export const handler = atsWebhookHandler('AtsWebhook');
