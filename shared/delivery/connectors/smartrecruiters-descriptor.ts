/**
 * What the registry knows of SmartRecruiters without loading its connector (smartrecruiters.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { AttachmentLimits, ConnectorPacing, ConnectorSetting, ConnectorDescriptor } from '#delivery/connectors/connector.js';

/** The files the Application API takes (PDF, DOC(X), RTF, JPG, PNG), by extension. */
export const SMARTRECRUITERS_FILE_EXTENSIONS = ['pdf', 'doc', 'docx', 'rtf', 'jpg', 'jpeg', 'png'];
/** "The current limit is 2 MB per file" (read as 2 MiB of file, before Base64). */
export const SMARTRECRUITERS_MAX_FILE_BYTES = 2 * 1024 * 1024;
export const ATTACHMENTS: AttachmentLimits = { maxBytes: SMARTRECRUITERS_MAX_FILE_BYTES, extensions: SMARTRECRUITERS_FILE_EXTENSIONS };
export const API_URL: ConnectorSetting = {
  env: 'SMARTRECRUITERS_API_URL',
  default: 'https://api.smartrecruiters.com',
  context: 'smartrecruitersApiUrl',
  about: 'the Posting API and the Application API',
};
// 10 requests per second per credential are documented; 8 leaves room for another client of the same key.
export const PACING: ConnectorPacing = {
  requestsPerSecond: 8,
  importConcurrency: 4,
  documented: '10 requests per second and 8 concurrent requests per credential (429 above, X-RateLimit-* headers, no Retry-After)',
};

export const smartrecruitersDescriptor: ConnectorDescriptor = {
  slug: 'smartrecruiters',
  name: 'SmartRecruiters',
  credentialFields: [
    {
      name: 'company_identifier',
      flag: '--company-identifier',
      description: 'the SmartRecruiters company identifier (jobs.smartrecruiters.com/{company_identifier})',
      label: 'Company identifier',
      help: 'The part after jobs.smartrecruiters.com/ in your career page address; also under Settings → Company information.',
      pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/,
    },
    {
      name: 'api_key',
      flag: '--api-key',
      description: 'the API key, sent as X-SmartToken',
      label: 'API key (SmartToken)',
      secret: true,
      help: 'An Administrator generates it in SmartRecruiters under Settings → Apps & Integrations (API key, “SmartToken”).',
      pattern: /^[\x21-\x7e]{16,256}$/,
    },
  ],
  settings: [API_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  // P301: the Application API's status read, with the same key (and rights) as the application itself.
  outcomes: {
    by: 'reading',
    call: 'GET /postings/{uuid}/candidates/{candidateId}/status with X-SmartToken (NEW, IN-REVIEW, INTERVIEW, OFFER, HIRE, REJECTED, WITHDRAWN, LEAD, TRANSFERRED)',
    source: 'https://developers.smartrecruiters.com/docs/get-candidate-application-status',
  },
  check: {
    call: 'GET /v1/companies/{company_identifier}/postings?limit=1&offset=0, then GET /postings/{uuid}/configuration with X-SmartToken for the first posting listed',
    proves:
      'The company identifier has a public postings feed, and the Application API accepts the API key and shows it this company’s posting (a wrong key is 401/403, another company’s key 404). Neither call creates anything.',
    doesNotProve:
      'That the key may create candidates and read their application status (a key or OAuth client without candidate_applications_manage, or a System role without that right, can still read the configuration). For a company that publishes no posting: the company identifier (an unknown one may answer an empty list), and the key only by a heuristic (the configuration of a posting that cannot exist; only 401/403 counts as a rejected key).',
  },
};
