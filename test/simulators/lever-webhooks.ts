/**
 * Lever's webhooks, sent by the Lever simulator about the applications it received (issue 43, P310), following
 * https://hire.lever.co/developer/documentation#webhooks as far as it could be confirmed (the page's own text was
 * not readable here; the shape below is the one the brief and third-party notes give, so partly assumed):
 * - each webhook (one per event) has a signature token Lever generates; the body is
 *   `{triggeredAt, event, signature, token, data}`, `triggeredAt` in milliseconds, `token` a random string of the
 *   delivery, `signature` the hex HMAC-SHA256 of `token + triggeredAt` under the signature token;
 * - `applicationCreated` data `{candidateId, opportunityId, applicationId, contactId, postingId}`,
 *   `candidateStageChange` `{opportunityId, contactId, fromStageId, toStageId}`, `candidateArchiveChange`
 *   `{opportunityId, contactId, fromArchived, toArchived: {archivedAt, reason} | null}`, `candidateHired`
 *   `{opportunityId, contactId}`.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { LeverApplication } from './lever.js';
import type { SentWebhook } from './greenhouse-webhooks.js';

export const LEVER_WEBHOOKS = 'https://hire.lever.co/developer/documentation#webhooks';

export type LeverEvent = 'applicationCreated' | 'candidateStageChange' | 'candidateArchiveChange' | 'candidateHired';

/** The webhooks a company configured in Lever: one URL, and Lever's signature token per event. */
export interface LeverWebhooks {
  url: string;
  signatureTokens: Map<LeverEvent, string>;
}

export const newLeverSignatureToken = () => randomBytes(16).toString('hex');

/** The opportunity Lever made for an application (one per application here; the Postings API answers only applicationId). */
const opportunities = new WeakMap<LeverApplication, string>();
export const leverOpportunityId = (application: LeverApplication) => {
  if (!opportunities.has(application)) opportunities.set(application, randomUUID());
  return opportunities.get(application)!;
};

export type LeverMove =
  | { event: 'applicationCreated' }
  | { event: 'candidateStageChange'; toStageId: string }
  | { event: 'candidateArchiveChange'; reason: string | null }
  | { event: 'candidateHired' };

function dataOf(application: LeverApplication, move: LeverMove): Record<string, unknown> {
  const ids = { opportunityId: leverOpportunityId(application), contactId: application.contactId };
  switch (move.event) {
    case 'applicationCreated':
      return { candidateId: ids.opportunityId, ...ids, applicationId: application.applicationId, postingId: application.postingId };
    case 'candidateStageChange':
      return { ...ids, fromStageId: 'applicant-new', toStageId: move.toStageId };
    case 'candidateArchiveChange':
      return { ...ids, fromArchived: null, toArchived: move.reason === null ? null : { archivedAt: Date.now(), reason: move.reason } };
    case 'candidateHired':
      return ids;
  }
}

/** The signed body of one delivery, as Lever builds it. */
export function leverDelivery(application: LeverApplication, move: LeverMove, signatureToken: string, triggeredAt = Date.now()) {
  const token = randomBytes(16).toString('hex');
  const signature = createHmac('sha256', signatureToken).update(`${token}${triggeredAt}`).digest('hex');
  return JSON.stringify({ triggeredAt, event: move.event, signature, token, data: dataOf(application, move) });
}

export async function postLeverWebhook(url: string, body: string, sent: SentWebhook[]) {
  const headers = { 'Content-Type': 'application/json' };
  const response = await fetch(url, { method: 'POST', headers, body });
  const answer = await response.json().catch(() => undefined);
  sent.push({ body, headers, status: response.status, answer, capacity: response.headers.get('x-dynamodb-capacity') ?? undefined });
  return { status: response.status, answer };
}

/** Something happens to the application in Lever: the event's webhook fires, signed with its own token. */
export async function moveLeverApplication(application: LeverApplication, move: LeverMove, hooks: LeverWebhooks, sent: SentWebhook[]) {
  const signatureToken = hooks.signatureTokens.get(move.event);
  if (!signatureToken) throw new Error(`no ${move.event} webhook configured`);
  return postLeverWebhook(hooks.url, leverDelivery(application, move, signatureToken), sent);
}
