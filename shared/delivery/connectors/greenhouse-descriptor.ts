/**
 * What the registry knows of Greenhouse without loading its connector (greenhouse.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { AttachmentLimits, ConnectorPacing, ConnectorSetting, ConnectorDescriptor } from '#delivery/connectors/connector.js';

/** "Must be a supported file type (pdf, doc, docx, txt, rtf)" (the page's Validations on POST Requests). */
export const GREENHOUSE_FILE_EXTENSIONS = ['pdf', 'doc', 'docx', 'txt', 'rtf'];
/** The page names no size limit: 20 MB per file is assumed (docs/connectors/greenhouse.md). */
export const ATTACHMENTS: AttachmentLimits = { maxBytes: 20 * 1024 * 1024, extensions: GREENHOUSE_FILE_EXTENSIONS };
export const API_URL: ConnectorSetting = {
  env: 'GREENHOUSE_API_URL',
  default: 'https://boards-api.greenhouse.io',
  context: 'greenhouseApiUrl',
  about: 'the Job Board API',
};
// No rate limit is documented for the Job Board API; 10 per second keeps an import polite.
export const PACING: ConnectorPacing = { requestsPerSecond: 10, importConcurrency: 4, documented: 'none documented' };

export const greenhouseDescriptor: ConnectorDescriptor = {
  slug: 'greenhouse',
  name: 'Greenhouse',
  credentialFields: [
    {
      name: 'board_token',
      flag: '--board-token',
      description: 'the job board token (boards.greenhouse.io/{board_token})',
      label: 'Job board token',
      help: 'The last part of your job board address boards.greenhouse.io/…; also under Configure → Job Board.',
      pattern: /^[A-Za-z0-9_-]{1,100}$/,
    },
    {
      name: 'api_key',
      flag: '--api-key',
      description: 'the Job Board API key',
      label: 'Job Board API key',
      secret: true,
      help: 'Configure → Dev Center → API Credential Management: create a key of type "Job Board".',
      pattern: /^[\x21-\x7e]{8,256}$/,
    },
  ],
  settings: [API_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  // P310: Greenhouse's signed web hooks tell outcomes (the Job Board API key cannot read them; Harvest is another credential).
  outcomes: {
    by: 'webhook',
    about:
      'Web hooks "Candidate stage change", "Candidate hired", "Candidate/Prospect rejected", "Candidate/Prospect unrejected" and "Candidate unhired" to the URL we give, signed with the secret key we give (Signature: sha256 HMAC-SHA256 of the body); matched by the candidate e-mail and job post, then by Greenhouse’s application id.',
    source: 'https://developers.greenhouse.io/webhooks.html',
  },
  check: {
    call: 'GET /v1/boards/{board_token}/jobs, then POST /v1/boards/{board_token}/jobs/0 with an empty body and the key',
    proves:
      'The job board exists and is public. The API key: Greenhouse answered the empty application for a job that cannot exist without 401, which it sends for a wrong key.',
    doesNotProve:
      'That the key may apply to every job: the key check is a heuristic on Greenhouse’s reported behaviour (authentication before the job lookup), not a documented call.',
  },
};
