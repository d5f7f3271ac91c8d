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
  // P303: the Job Board API key only posts applications; reading needs Harvest, and the signed web hooks need an inbound receiver.
  outcomes: {
    by: 'none',
    reason:
      'The Job Board API key we hold can only submit applications; reading one needs a Harvest API key (another credential, with the GET applications permission: https://developers.greenhouse.io/harvest.html#get-retrieve-application). Greenhouse can also tell by its web hooks (application status changes, hires, rejections), signed with HMAC-SHA256 of the body in a Signature header (https://developers.greenhouse.io/webhooks.html); we take neither yet.',
  },
  check: {
    call: 'GET /v1/boards/{board_token}/jobs, then POST /v1/boards/{board_token}/jobs/0 with an empty body and the key',
    proves:
      'The job board exists and is public. The API key: Greenhouse answered the empty application for a job that cannot exist without 401, which it sends for a wrong key.',
    doesNotProve:
      'That the key may apply to every job: the key check is a heuristic on Greenhouse’s reported behaviour (authentication before the job lookup), not a documented call.',
  },
};
