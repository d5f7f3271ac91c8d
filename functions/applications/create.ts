import { createApplication, parseApplication, toApplication } from '../../shared/applications.js';
import { api } from '../../shared/http.js';
import { idempotency } from '../../shared/idempotency.js';
import { parseBody } from '../../shared/request-body.js';

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
