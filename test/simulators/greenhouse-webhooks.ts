/**
 * Greenhouse's web hooks, sent by the Greenhouse simulator about the applications it received (issue 43, P310):
 * a recruiter moves an application, and Greenhouse POSTs the event to the web hook's endpoint URL, exactly as
 * https://developers.greenhouse.io/webhooks.html documents it (grnhse/greenhouse-api-docs,
 * source/includes/webhooks/_introduction.md and _candidate_events.md; each rule names its section):
 * - "Authentication": header `Signature: sha256 <hex>`, the HMAC-SHA256 of the whole body under the web hook's
 *   secret key; "Each delivery will include a `Greenhouse-Event-ID` header" (Introduction);
 * - the body is `{action, payload: {application}}` with the "Common Attributes" (`application.id`, `status` one of
 *   `rejected`, `hired`, `active`, `candidate.email_addresses[]`, `jobs[].id`) and the events' own
 *   (`current_stage`, `rejection_reason.type`, `jobs[].job_post_id`), as in the events' examples.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { GreenhouseApplication, GreenhouseSimulator } from './greenhouse.js';

export const GREENHOUSE_WEBHOOKS = 'https://developers.greenhouse.io/webhooks.html';

/** A web hook as a company creates it in Greenhouse: the endpoint URL and the secret key (Creating a web hook). */
export interface GreenhouseWebHook {
  url: string;
  secretKey: string;
}

export interface SentWebhook {
  body: string;
  headers: Record<string, string>;
  status: number;
  answer: unknown;
  /** The receiver's `X-DynamoDB-Capacity` header, when it sent one (our service, locally). */
  capacity?: string;
}

export type GreenhouseMove =
  | { action: 'candidate_stage_change'; stage: string }
  | { action: 'hire_candidate' }
  | { action: 'reject_candidate'; stage: string; rejectionType?: 'We rejected them' | 'They rejected us' | 'None specified' }
  | { action: 'unreject_candidate'; stage: string };

/** Greenhouse's numeric id of a simulated application (the Job Board API never tells it). */
export const greenhouseApplicationId = (sim: GreenhouseSimulator, application: GreenhouseApplication) =>
  4_000_000 + sim.applications.indexOf(application);

/** The event's body, with the documented fields of its example (Candidate Events). */
export function greenhouseEvent(sim: GreenhouseSimulator, application: GreenhouseApplication, move: GreenhouseMove) {
  const status = move.action === 'hire_candidate' ? 'hired' : move.action === 'reject_candidate' ? 'rejected' : 'active';
  const rejected = move.action === 'reject_candidate';
  return {
    action: move.action,
    payload: {
      application: {
        id: greenhouseApplicationId(sim, application),
        rejected_at: rejected ? new Date().toISOString() : null,
        prospect: false,
        status,
        last_activity_at: new Date().toISOString(),
        // "Candidate hired"'s example has no current_stage; the others name the stage the application is in.
        ...('stage' in move ? { current_stage: { id: 71416, name: move.stage, interviews: [] } } : {}),
        rejection_reason: rejected ? { id: 14, name: 'Too Junior', type: { id: 3, name: move.rejectionType ?? 'We rejected them' } } : null,
        candidate: {
          id: 265772,
          first_name: String(application.body.first_name ?? ''),
          last_name: String(application.body.last_name ?? ''),
          email_addresses: [{ value: String(application.body.email ?? ''), type: 'personal' }],
          phone_numbers: application.body.phone ? [{ value: String(application.body.phone), type: 'mobile' }] : [],
        },
        jobs: [{ id: application.jobId + 100000, name: 'Job', job_post_id: application.jobId, status: 'open' }],
      },
    },
  };
}

/** Signs and POSTs a body as Greenhouse does ("Authentication"), and records what was sent and answered. */
export async function postGreenhouseWebhook(hook: GreenhouseWebHook, body: string, sent: SentWebhook[], eventId = randomUUID()) {
  const headers = {
    'Content-Type': 'application/json',
    'Greenhouse-Event-ID': eventId,
    Signature: `sha256 ${createHmac('sha256', hook.secretKey).update(body).digest('hex')}`,
  };
  const response = await fetch(hook.url, { method: 'POST', headers, body });
  const answer = await response.json().catch(() => undefined);
  sent.push({ body, headers, status: response.status, answer, capacity: response.headers.get('x-dynamodb-capacity') ?? undefined });
  return { status: response.status, answer };
}

/** A recruiter moves the application in Greenhouse: the configured web hook fires. */
export async function moveGreenhouseApplication(
  sim: GreenhouseSimulator,
  application: GreenhouseApplication,
  move: GreenhouseMove,
  hook: GreenhouseWebHook,
  sent: SentWebhook[],
) {
  // "Important note on Unicode": Greenhouse escapes non-ASCII and HTML characters before signing; JSON.stringify plus these escapes.
  const body = JSON.stringify(greenhouseEvent(sim, application, move)).replace(
    /[<>&\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return postGreenhouseWebhook(hook, body, sent);
}
