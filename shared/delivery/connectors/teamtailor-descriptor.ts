/**
 * What the registry knows of Teamtailor without loading its connector (teamtailor.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { AttachmentLimits, ConnectorPacing, ConnectorSetting, ConnectorDescriptor } from '#delivery/connectors/connector.js';

/**
 * Teamtailor documents no list of file types and no size for `resume` or uploads (it downloads the URL), so
 * every type we store goes (P277: Teamtailor's own refusal is `attachment_rejected`); 10 MB is ours (assumed).
 */
export const ATTACHMENTS: AttachmentLimits = { maxBytes: 10 * 1024 * 1024 };
export const API_URL: ConnectorSetting = {
  env: 'TEAMTAILOR_API_URL',
  default: 'https://api.teamtailor.com',
  context: 'teamtailorApiUrl',
  about:
    'the API v1 host. Unset: https://api.teamtailor.com for region eu, https://api.na.teamtailor.com for region na (the region credential picks it); set, every company uses this value whatever its region',
};
// 50 requests per 10 seconds per key (Teamtailor's help centre, as the issue cites it): 4 a second is 40 per 10 s.
export const PACING: ConnectorPacing = {
  requestsPerSecond: 4,
  importConcurrency: 2,
  documented: '50 requests per 10 seconds per API key (429 above); X-Rate-Limit-Limit/-Remaining/-Reset on every answer',
};

export const teamtailorDescriptor: ConnectorDescriptor = {
  slug: 'teamtailor',
  name: 'Teamtailor',
  credentialFields: [
    {
      name: 'api_key',
      flag: '--api-key',
      description: 'the Teamtailor API key (Admin scope, read-write)',
      label: 'API key',
      secret: true,
      help: 'Settings → Integrations → API keys: create a key with the Admin scope and Read-Write permission.',
      pattern: /^[\x21-\x7e]{8,256}$/,
    },
    {
      name: 'region',
      flag: '--region',
      description: 'the Teamtailor data region: eu (api.teamtailor.com) or na (api.na.teamtailor.com)',
      label: 'Region',
      help: 'Where your Teamtailor account is hosted: eu unless your account is on the North American stack (app.na.teamtailor.com).',
      pattern: /^(eu|na)$/,
      default: 'eu',
      choices: ['eu', 'na'],
    },
  ],
  settings: [API_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  // P301: read with the Admin key we hold (job applications need the Admin scope the check proves).
  outcomes: {
    by: 'reading',
    call: 'GET /v1/job-applications/{id}?include=stage,reject-reason (rejected-at, stage name and stage-type, rejected-by-company)',
    source: 'https://docs.teamtailor.com/#job-applications',
  },
  check: {
    call: 'GET /v1/jobs?page[size]=1, then GET /v1/candidates?page[size]=1 (reads only)',
    proves:
      'The API key is valid on the region’s stack (a key of the other region is refused there) and may read jobs and candidates, which only an Admin-scope key may.',
    doesNotProve:
      'That the key may write: Teamtailor has no read-only call that shows a key’s Read-Write permission, and a write would create a candidate. A read-only key shows on the first submission (403 → CredentialsRejectedError).',
  },
};
