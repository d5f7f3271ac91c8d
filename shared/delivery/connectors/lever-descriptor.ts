/**
 * What the registry knows of Lever without loading its connector (lever.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { AttachmentLimits, ConnectorSetting, ConnectorDescriptor } from '#delivery/connectors/connector.js';

export const ATTACHMENTS: AttachmentLimits = { maxBytes: 20 * 1024 * 1024 };
export const API_URL: ConnectorSetting = {
  env: 'LEVER_API_URL',
  default: 'https://api.lever.co',
  context: 'leverApiUrl',
  about: 'the Postings API',
};

export const leverDescriptor: ConnectorDescriptor = {
  slug: 'lever',
  name: 'Lever',
  credentialFields: [
    {
      name: 'site',
      flag: '--site',
      description: 'the Lever site name (jobs.lever.co/{site})',
      label: 'Site name',
      help: 'The last part of your job site address jobs.lever.co/….',
      pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/,
    },
    {
      name: 'api_key',
      flag: '--api-key',
      description: 'the Postings API key',
      label: 'Postings API key',
      secret: true,
      help: 'Settings → Integrations and API → API credentials: create a Postings API key.',
      pattern: /^[\x21-\x7e]{8,256}$/,
    },
    {
      // P310: Lever generates each webhook's signature token; outcomes need them (optional: deliveries do not).
      name: 'webhook_signature_tokens',
      flag: '--webhook-signature-tokens',
      description: 'the signature tokens of the Lever webhooks that report outcomes, comma-separated (optional)',
      label: 'Webhook signature tokens (optional)',
      secret: true,
      help: 'Settings → Integrations and API → Webhooks: after you add our URL to applicationCreated, candidateStageChange, candidateArchiveChange and candidateHired, copy each signature token here, comma-separated.',
      pattern: /^[A-Za-z0-9_-]{8,200}(,[A-Za-z0-9_-]{8,200}){0,7}$/,
      default: '',
    },
  ],
  settings: [API_URL],
  // Application POSTs are spaced per key by LEVER_MIN_INTERVAL_MS (`paced` in lever.ts); the bucket covers the reads.
  pacing: { requestsPerSecond: 2, importConcurrency: 1, documented: '2 application POSTs per second per key (429 above)' },
  attachments: ATTACHMENTS,
  // P310: Lever's signed webhooks tell outcomes (the Postings API key cannot read them); Lever makes their signature tokens.
  outcomes: {
    by: 'webhook',
    about:
      'Webhooks applicationCreated, candidateStageChange, candidateArchiveChange and candidateHired to the URL we give, each signed by Lever with its own signature token (HMAC-SHA256 of token + triggeredAt), which the company gives us as webhook_signature_tokens; older than 5 minutes or replayed is refused.',
    source: 'https://hire.lever.co/developer/documentation#webhooks',
  },
  check: {
    call: 'GET /v0/postings/{site}?mode=json&skip=0&limit=1',
    proves: 'The postings site exists and is public.',
    doesNotProve:
      'The API key: Lever uses it only on the application POST, and no documented call checks it without creating a candidate. A wrong key shows on the first submission.',
  },
};
