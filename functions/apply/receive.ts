import { applyHandler } from '#http/apply-endpoint.js';

export const handler = applyHandler('ApplyWebhook');
