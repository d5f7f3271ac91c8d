/**
 * What the registry knows of Ashby without loading its connector (ashby.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { AttachmentLimits, ConnectorPacing, ConnectorSetting, ConnectorDescriptor } from '#delivery/connectors/connector.js';

/** Ashby documents no file limit for applicationForm.submit; 20 MB is what the service accepts in total. */
export const ASHBY_MAX_FILE_BYTES = 20 * 1024 * 1024;
export const ATTACHMENTS: AttachmentLimits = { maxBytes: ASHBY_MAX_FILE_BYTES };
export const API_URL: ConnectorSetting = {
  env: 'ASHBY_API_URL',
  default: 'https://api.ashbyhq.com',
  context: 'ashbyApiUrl',
  about: 'the public posting API and the RPC API',
};
// Ashby limits per API key but publishes no numbers; 5 per second keeps an import and the submissions polite.
export const PACING: ConnectorPacing = {
  requestsPerSecond: 5,
  importConcurrency: 2,
  documented: 'per-API-key limits without published numbers (429 with Retry-After)',
};

export const ashbyDescriptor: ConnectorDescriptor = {
  slug: 'ashby',
  name: 'Ashby',
  credentialFields: [
    {
      name: 'job_board_name',
      flag: '--job-board-name',
      description: 'the job board name (jobs.ashbyhq.com/{job_board_name})',
      label: 'Job board name',
      help: 'The last part of your job board address jobs.ashbyhq.com/…',
      pattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
    },
    {
      name: 'api_key',
      flag: '--api-key',
      description:
        'an Ashby API key with the candidatesWrite and jobsRead permissions (apiKeysRead lets the check prove them; candidatesRead lets outcomes be read)',
      label: 'API key',
      secret: true,
      help: 'Admin → Integrations → API Keys: create a key with Candidates write and Jobs read (and API keys read, so that the check can prove both; Candidates read, so that outcomes can be read).',
      pattern: /^[\x21-\x7e]{8,256}$/,
    },
  ],
  settings: [API_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  // P301: application.info by the submitted form instance id, with the key we hold (candidatesRead).
  outcomes: {
    by: 'reading',
    call: 'POST /application.info {submittedFormInstanceId} (status Active/Hired/Archived/Lead, currentInterviewStage.title, archiveReason.reasonType; permission candidatesRead)',
    source: 'https://developers.ashbyhq.com/reference/applicationinfo',
  },
  check: {
    call: 'GET /posting-api/job-board/{job_board_name}, then POST /apiKey.info with the key; when that lists no permissions (or the key lacks apiKeysRead), POST /jobPosting.info of a posting of the board (jobPosting.list for an empty board)',
    proves:
      "The job board exists and is public, and Ashby accepted the API key. When apiKey.info lists the key's permissions: they include candidatesWrite (applications) and jobsRead (application forms). Otherwise: the key has jobsRead, and (with a posting on the board) belongs to the board's organization.",
    doesNotProve:
      "When apiKey.info lists no permissions (Ashby's reference documents no such list) or the key lacks apiKeysRead: the candidatesWrite permission the applications need. A key without it fails at the first submission (403 missing_endpoint_permission → CredentialsRejectedError naming candidatesWrite). Never: the candidatesRead permission outcomes need (a key without it fails at the first outcome reading: 403 missing_endpoint_permission → CredentialsRejectedError naming candidatesRead); that a given posting still takes applications; nor, for an empty board, that the key belongs to the board's organization.",
  },
};
