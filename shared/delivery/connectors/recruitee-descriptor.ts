/**
 * What the registry knows of Recruitee without loading its connector (recruitee.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { AttachmentLimits, ConnectorPacing, ConnectorSetting, ConnectorDescriptor } from '#delivery/connectors/connector.js';

/**
 * Recruitee documents no size or type limit for the Careers Site API. 10 MB and the usual CV formats are
 * assumptions (docs/connectors/recruitee.md, "Assumptions"): a file outside them is refused before sending.
 */
export const RECRUITEE_FILE_EXTENSIONS = ['pdf', 'doc', 'docx', 'odt', 'rtf', 'txt'];
export const ATTACHMENTS: AttachmentLimits = { maxBytes: 10 * 1024 * 1024, extensions: RECRUITEE_FILE_EXTENSIONS };
export const API_URL: ConnectorSetting = {
  env: 'RECRUITEE_API_URL',
  default: 'https://{company}.recruitee.com',
  context: 'recruiteeApiUrl',
  about: 'the Careers Site API (the company’s careers-site address)',
};
// No rate limit is documented for the Careers Site API; an import is one request, and 5 per second keeps
// the application POSTs polite.
export const PACING: ConnectorPacing = { requestsPerSecond: 5, importConcurrency: 1, documented: 'none documented' };

export const recruiteeDescriptor: ConnectorDescriptor = {
  slug: 'recruitee',
  name: 'Recruitee',
  credentialFields: [
    {
      name: 'company',
      flag: '--company',
      description: 'the careers-site subdomain ({company}.recruitee.com)',
      label: 'Careers site name',
      help: 'The first part of your careers site address {company}.recruitee.com; also under Settings → Careers site → Domain.',
      pattern: /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/,
    },
  ],
  settings: [API_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  // P303: the Careers Site API needs no credentials and cannot read candidates; reading needs a personal API token.
  outcomes: {
    by: 'none',
    reason:
      'The Careers Site API we use needs no credentials and has no call that reads a candidate back. Reading a candidate’s placements (stage, disqualification) needs the ATS API with a personal API token and the company id (another credential: GET /c/{company_id}/candidates/{id}, https://docs.recruitee.com/reference/candidates-get).',
  },
  check: {
    call: 'GET /api/offers/ on https://{company}.recruitee.com',
    proves:
      'The careers site exists and answers as a Recruitee Careers Site API (a JSON offers list); the API needs no credentials, so this is all there is to prove.',
    doesNotProve:
      'That an offer accepts applications through the API, or which fields its form requires: both show on the first submission.',
  },
};
