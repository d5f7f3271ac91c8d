import { createApplication, parseApplication } from '#applications/application-create.js';
import { toApplication } from '#applications/applications.js';
import { api } from '#http/http.js';
import { idempotency } from '#http/idempotency.js';
import { parseBody } from '#http/request-body.js';

export const handler = api(
  'CreateApplication',
  async ({ event, company, principal }) => {
    const { fields, files } = await parseBody(event);
    const { input, attachments } = parseApplication(fields, files);
    const created = await createApplication(company!, principal.partnerId, input, attachments);
    return { statusCode: 201, body: toApplication(created.record, created.job, created.channel, 'single') };
  },
  [idempotency()],
);
