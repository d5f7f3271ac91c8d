/**
 * Lever's webhooks (issue 43, P310–P312), as https://hire.lever.co/developer/documentation#webhooks describes them
 * (the page's text could not be read here; what follows is its summary in the brief and in third-party notes, so
 * it is partly assumed, see docs/connectors/lever.md):
 * - the body is `{triggeredAt, event, signature, token, data}`; `signature` is the hex HMAC-SHA256 of
 *   `token + triggeredAt` under the webhook's signature token, which Lever generates per webhook (so the company
 *   gives it to us: the `webhook_signature_tokens` credential, P310); `triggeredAt` is in milliseconds;
 * - events: `applicationCreated` (`data.applicationId`, `data.opportunityId`), `candidateStageChange`
 *   (`data.opportunityId`, `data.toStageId`), `candidateArchiveChange` (`data.opportunityId`, `data.toArchived`
 *   `{archivedAt, reason}` or null when unarchived) and `candidateHired` (`data.opportunityId`).
 * The postings apply answers `applicationId` (our `external_id`); the later events name the opportunity, so
 * `applicationCreated` links one to the other (P311). A delivery older than 5 minutes is refused, and a signature
 * seen within that time is a replay (P312).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, invalidField } from '#platform/errors.js';
import type { OutcomeWebhooks, WebhookOutcome } from '#delivery/connectors/connector.js';

export const LEVER_WEBHOOKS_URL = 'https://hire.lever.co/developer/documentation#webhooks';
/** How old (or how far ahead) a delivery's `triggeredAt` may be. */
export const LEVER_TOLERANCE_MS = 5 * 60_000;

const badSignature = (detail = 'The signature is missing or not valid for this webhook.') => new ApiError(401, 'invalid_signature', detail);

const object = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const idText = (value: unknown): string | undefined =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;

/** The hex HMAC-SHA256 of `token + triggeredAt` under one signature token. */
export function leverSignature(signatureToken: string, token: string, triggeredAt: number | string): string {
  return createHmac('sha256', signatureToken).update(`${token}${triggeredAt}`).digest('hex');
}

export const leverWebhooks: OutcomeWebhooks = {
  secrets: { by: 'credential', field: 'webhook_signature_tokens' },
  parks: true,
  deliveryRefs: ({ externalId }) => (externalId ? [`lever-application:${externalId}`] : []),
  verify(body, _header, secrets, nowMs) {
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      throw new ApiError(400, 'malformed_json', 'The request body is not valid JSON.');
    }
    const fields = object(json);
    if (!fields) throw invalidField('body', 'Must be a JSON object.');
    const { token, signature, triggeredAt } = fields;
    if (typeof token !== 'string' || typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) throw badSignature();
    if (typeof triggeredAt !== 'number' || !Number.isSafeInteger(triggeredAt)) throw badSignature();
    const given = Buffer.from(signature.toLowerCase(), 'hex');
    let valid = false;
    for (const secret of secrets) if (timingSafeEqual(Buffer.from(leverSignature(secret, token, triggeredAt), 'hex'), given)) valid = true;
    if (!valid) throw badSignature();
    if (Math.abs(nowMs - triggeredAt) > LEVER_TOLERANCE_MS) throw badSignature('The webhook is older than 5 minutes (triggeredAt).');
    return { replayKey: signature.toLowerCase(), rememberSeconds: (2 * LEVER_TOLERANCE_MS) / 1000, json: fields };
  },
  read(json): WebhookOutcome | undefined {
    if (typeof json.event !== 'string') throw invalidField('event', 'Must be a string.');
    const event = json.event;
    if (!['applicationCreated', 'candidateStageChange', 'candidateArchiveChange', 'candidateHired'].includes(event)) return undefined;
    const data = object(json.data);
    if (!data) throw invalidField('data', 'Must be an object.');
    const opportunity = idText(data.opportunityId);
    if (!opportunity) throw invalidField('data.opportunityId', 'Must be an id.');
    const byOpportunity = [`lever-opportunity:${opportunity}`];
    if (event === 'applicationCreated') {
      const application = idText(data.applicationId);
      if (!application) throw invalidField('data.applicationId', 'Must be an id.');
      return {
        refs: [`lever-application:${application}`, ...byOpportunity],
        jobIds: [],
        link: byOpportunity[0],
        reading: { outcome: 'PENDING', stage: null },
        keeps: ['HIRED', 'REJECTED', 'WITHDRAWN'],
        // Before the sync worker kept the applicationId (its write is milliseconds after Lever's answer): the
        // opportunity is parked as naming it, and the next event of the opportunity links them (P348).
        park: { ref: `lever-application:${application}` },
      };
    }
    if (event === 'candidateHired') return { refs: byOpportunity, jobIds: [], reading: { outcome: 'HIRED', stage: null } };
    if (event === 'candidateStageChange') {
      // Lever names the stage by id only; its name needs the Lever API's stages (another credential): the id is the stage (P313).
      const stage = idText(data.toStageId);
      if (!stage) throw invalidField('data.toStageId', 'Must be an id.');
      return { refs: byOpportunity, jobIds: [], reading: { outcome: 'PENDING', stage }, keeps: ['HIRED', 'REJECTED', 'WITHDRAWN'] };
    }
    if (!('toArchived' in data)) throw invalidField('data.toArchived', 'Required.');
    if (data.toArchived !== null && !object(data.toArchived)) throw invalidField('data.toArchived', 'Must be an object or null.');
    // Archived: no longer in the pipeline, REJECTED (the reason is an id only); a hired opportunity Lever archives stays HIRED.
    return data.toArchived === null
      ? { refs: byOpportunity, jobIds: [], reading: { outcome: 'PENDING', stage: null } }
      : { refs: byOpportunity, jobIds: [], reading: { outcome: 'REJECTED', stage: null }, keeps: ['HIRED'] };
  },
};
