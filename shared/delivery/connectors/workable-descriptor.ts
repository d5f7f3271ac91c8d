/**
 * What the registry knows of Workable without loading its connector (workable.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { AttachmentLimits, ConnectorPacing, ConnectorSetting, ConnectorDescriptor } from '#delivery/connectors/connector.js';

/** Résumé formats we send (Workable documents none for the API; see the document's assumptions). */
export const WORKABLE_FILE_EXTENSIONS = ['pdf', 'doc', 'docx', 'odt', 'rtf', 'txt'];
/** Per-file limit we apply when the job's form names none (Workable documents none for the résumé). */
export const WORKABLE_MAX_FILE_BYTES = 10 * 1024 * 1024;
export const ATTACHMENTS: AttachmentLimits = { maxBytes: WORKABLE_MAX_FILE_BYTES, extensions: WORKABLE_FILE_EXTENSIONS };
export const API_URL: ConnectorSetting = {
  env: 'WORKABLE_API_URL',
  default: 'https://{subdomain}.workable.com',
  context: 'workableApiUrl',
  about: 'the SPI v3 API of the account ({subdomain} is the account subdomain)',
};
// The per-token limit is kept by the rolling window and Workable's own headers (`waitForSlot`); the process-wide
// bucket stays at the highest documented limit of any token kind (50 per 10 s), so that one process never sends
// more than any Workable client may, whatever the accounts (P278).
export const PACING: ConnectorPacing = {
  requestsPerSecond: 5,
  importConcurrency: 2,
  documented:
    '10 requests per 10 seconds per account token (50 per 10 seconds for OAuth and partner tokens); X-Rate-Limit-Limit/-Remaining/-Reset on every answer, 429 above',
};

export const workableDescriptor: ConnectorDescriptor = {
  slug: 'workable',
  name: 'Workable',
  credentialFields: [
    {
      name: 'subdomain',
      flag: '--subdomain',
      description: 'the account subdomain ({subdomain}.workable.com)',
      label: 'Account subdomain',
      help: 'The first part of your Workable address ….workable.com (also under Settings → Company profile).',
      pattern: /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i,
    },
    {
      name: 'token',
      flag: '--token',
      description: 'the SPI v3 access token (scopes r_jobs, w_candidates and, for outcomes, r_candidates)',
      label: 'API access token',
      secret: true,
      help: 'Settings → Integrations → Apps → API access token: generate one with the r_jobs, w_candidates and r_candidates scopes (shown only once).',
      pattern: /^[\x21-\x7e]{8,512}$/,
    },
  ],
  settings: [API_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  // P301: read with the token we hold; it needs the r_candidates scope as well.
  outcomes: {
    by: 'reading',
    call: 'GET /spi/v3/candidates/{id} (stage, disqualified, withdrew, hired_at; scope r_candidates)',
    source: 'https://workable.readme.io/reference/job-candidates-show',
  },
  check: {
    call: 'GET /spi/v3/jobs?limit=1 with the token',
    proves:
      'The subdomain (a Workable account answers there) and the token, with the r_jobs scope the job import needs (401/403 otherwise). Nothing is created.',
    doesNotProve:
      'The w_candidates scope the applications need and the r_candidates scope outcomes need: Workable has no documented call that checks them without creating or reading a candidate, so a token without w_candidates shows on the first submission and one without r_candidates on the first outcome reading (403 → CredentialsRejectedError).',
  },
};
