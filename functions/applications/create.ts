import { createApplication, parseApplication } from '#applications/application-create.js';
import { AttachmentStaging } from '#applications/attachment-upload.js';
import { toApplication } from '#applications/applications.js';
import { api } from '#http/http.js';
import { idempotency } from '#http/idempotency.js';
import { BODY_CONTENT_TYPES, parseBody } from '#http/request-body.js';
import { rethrowIfCrash } from '#platform/faults.js';

export const handler = api(
  'CreateApplication',
  async ({ event, company, principal }) => {
    // Attachments go to S3 as the body is read; whatever the create does not commit is removed again
    // (not after a simulated crash: a dead process removes nothing, and the reconciler must find it, P107).
    const staging = new AttachmentStaging(company!.id);
    try {
      const { fields, files, staged } = await parseBody(event, BODY_CONTENT_TYPES, staging);
      const { input, attachments } = parseApplication(fields, files, staged);
      // The idempotency scope (`#http/idempotency.js`), claimed in the create's transaction (P268).
      const key = event.headers['idempotency-key'];
      const claim = key === undefined ? undefined : JSON.stringify([principal.partnerId, company!.id, key]);
      const created = await createApplication(company!, principal.partnerId, input, attachments, staging, { claim });
      await staging.release();
      const body = toApplication(created.record, created.job, created.channel, 'single');
      return { statusCode: 201, body, headers: created.replayed ? { 'Idempotent-Replayed': 'true' } : undefined };
    } catch (error) {
      rethrowIfCrash(error);
      await staging.release();
      throw error;
    }
  },
  [idempotency()],
);
