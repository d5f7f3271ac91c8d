/**
 * Greenhouse's web hooks (issue 43, P310–P312), as https://developers.greenhouse.io/webhooks.html documents them
 * (source: grnhse/greenhouse-api-docs, source/includes/webhooks/_introduction.md and _candidate_events.md):
 * - "Authentication": a `Signature` header, `sha256 <hex>`, the HMAC-SHA256 of the whole body under the secret key
 *   the company entered when it created the web hook (here: the one we generated and showed it, P310);
 * - the body is `{action, payload}`; `candidate_stage_change`, `hire_candidate`, `reject_candidate`,
 *   `unreject_candidate`, `unhire_candidate` carry `payload.application` with `id`, `status` (one of `rejected`,
 *   `hired`, `active`), `current_stage.name`, `rejection_reason.type.name`, `candidate.email_addresses[].value`
 *   and `jobs[].job_post_id` ("Common Attributes" and each event's example);
 * - no timestamp is signed: a replay is refused by remembering the signature for the tracking window (P312).
 * The Job Board API's application POST answers no id (`{"success": …}`), so a delivered application is found by
 * the candidate's e-mail (keyed, P311) and the job post, and from its first web hook on by Greenhouse's own id.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, invalidField } from '#platform/errors.js';
import type { Outcome, OutcomeWebhooks, WebhookOutcome } from '#delivery/connectors/connector.js';

export const GREENHOUSE_WEBHOOKS_URL = 'https://developers.greenhouse.io/webhooks.html';

/** The events that move an application; any other action (a ping, a job event) is taken and changes nothing. */
const APPLICATION_ACTIONS = new Set([
  'candidate_stage_change',
  'hire_candidate',
  'reject_candidate',
  'unreject_candidate',
  'unhire_candidate',
]);

const badSignature = (detail = 'The Signature header is missing or not valid for this web hook.') =>
  new ApiError(401, 'invalid_signature', detail);

/** `sha256 <hex>`, compared in constant time with each secret's HMAC of the raw body. */
export function greenhouseSignatureValid(body: Buffer, header: string | undefined, secrets: readonly string[]): boolean {
  const match = /^sha256 ([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1].toLowerCase(), 'hex');
  let valid = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(body).digest();
    if (timingSafeEqual(expected, given)) valid = true;
  }
  return valid;
}

const object = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const idText = (value: unknown): string | undefined =>
  (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && /^\w{1,64}$/.test(value))
    ? String(value)
    : undefined;

/** Our outcome for the application's `status` and the event (a rejection whose type is "They rejected us" is WITHDRAWN). */
function outcomeOf(action: string, application: Record<string, unknown>): Outcome {
  const status = application.status;
  if (action === 'hire_candidate' || status === 'hired') return 'HIRED';
  if (action === 'reject_candidate' || status === 'rejected') {
    // Greenhouse's default rejection reason types: "We rejected them", "They rejected us", "None specified" (assumed names).
    const type = object(object(application.rejection_reason)?.type)?.name;
    return type === 'They rejected us' ? 'WITHDRAWN' : 'REJECTED';
  }
  return 'PENDING';
}

export const greenhouseWebhooks: OutcomeWebhooks = {
  secrets: { by: 'ours' },
  deliveryRefs: ({ email }) => (email ? [`email:${email.trim().toLowerCase()}`] : []),
  verify(body, header, secrets, _nowMs) {
    const signature = header('signature');
    if (!greenhouseSignatureValid(body, signature, secrets)) throw badSignature();
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      throw new ApiError(400, 'malformed_json', 'The request body is not valid JSON.');
    }
    if (!object(json)) throw invalidField('body', 'Must be a JSON object.');
    // No timestamp is signed: the signature (a hash of the body) is remembered for the tracking window (P312).
    return { replayKey: signature!.trim().toLowerCase(), json: json as Record<string, unknown> };
  },
  read(json): WebhookOutcome | undefined {
    if (typeof json.action !== 'string') throw invalidField('action', 'Must be a string.');
    if (!APPLICATION_ACTIONS.has(json.action)) return undefined;
    const application = object(object(json.payload)?.application);
    if (!application) throw invalidField('payload.application', 'Must be an object.');
    const id = idText(application.id);
    if (!id) throw invalidField('payload.application.id', 'Must be an id.');
    const emails = Array.isArray(object(application.candidate)?.email_addresses)
      ? (object(application.candidate)!.email_addresses as unknown[])
          .map((entry) => object(entry)?.value)
          .filter((value): value is string => typeof value === 'string' && value.length <= 254)
          .slice(0, 5)
      : [];
    const jobIds = Array.isArray(application.jobs)
      ? (application.jobs as unknown[]).map((job) => idText(object(job)?.job_post_id)).filter((v): v is string => v !== undefined)
      : [];
    const stage = object(application.current_stage)?.name;
    return {
      refs: [`greenhouse:${id}`, ...emails.map((email) => `email:${email.trim().toLowerCase()}`)],
      jobIds,
      link: `greenhouse:${id}`,
      reading: { outcome: outcomeOf(json.action, application), stage: typeof stage === 'string' && stage ? stage.slice(0, 200) : null },
    };
  },
};
