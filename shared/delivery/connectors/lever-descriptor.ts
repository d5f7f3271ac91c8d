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
  ],
  settings: [API_URL],
  // Application POSTs are spaced per key by LEVER_MIN_INTERVAL_MS (`paced` in lever.ts); the bucket covers the reads.
  pacing: { requestsPerSecond: 2, importConcurrency: 1, documented: '2 application POSTs per second per key (429 above)' },
  attachments: ATTACHMENTS,
  // P303: the Postings API key only posts applications; reading needs the Lever API, and the signed webhooks need an inbound receiver.
  outcomes: {
    by: 'none',
    reason:
      'The Postings API key we hold can only submit applications; reading an opportunity needs a Lever API key or OAuth token with opportunities read (another credential: https://hire.lever.co/developer/documentation#retrieve-a-single-opportunity). Lever can also tell by its webhooks (candidateStageChange, candidateArchiveChange, candidateHired), signed with HMAC-SHA256 under the webhook’s signature token (https://hire.lever.co/developer/documentation#webhooks); we take neither yet.',
  },
  check: {
    call: 'GET /v0/postings/{site}?mode=json&skip=0&limit=1',
    proves: 'The postings site exists and is public.',
    doesNotProve:
      'The API key: Lever uses it only on the application POST, and no documented call checks it without creating a candidate. A wrong key shows on the first submission.',
  },
};
