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
      description: 'an Ashby API key with the candidatesWrite, jobsRead and apiKeysRead permissions',
      label: 'API key',
      secret: true,
      help: 'Admin → Integrations → API Keys: create a key with Candidates write, Jobs read and API keys read.',
      pattern: /^[\x21-\x7e]{8,256}$/,
    },
  ],
  settings: [API_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  check: {
    call: 'GET /posting-api/job-board/{job_board_name}, then POST /apiKey.info with the key',
    proves:
      'The job board exists and is public. The API key: Ashby accepted it and listed its permissions, which include candidatesWrite (applications) and jobsRead (application forms).',
    doesNotProve:
      'That the key belongs to the organization of that job board (neither answer names the organization), and that a given posting still takes applications.',
  },
};
