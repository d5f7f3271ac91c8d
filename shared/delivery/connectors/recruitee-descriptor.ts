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
/**
 * P351: the ATS API (`https://api.recruitee.com`, a personal API token as `Authorization: Bearer`), used only to read
 * outcomes when the company gave the optional `api_token` (https://docs.recruitee.com/reference/getting-started).
 */
export const ATS_API_URL: ConnectorSetting = {
  env: 'RECRUITEE_ATS_API_URL',
  default: 'https://api.recruitee.com',
  context: 'recruiteeAtsApiUrl',
  about: 'the ATS API (outcome readings with the optional API token)',
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
    {
      // P357: the Careers Site API's own token, sent as `X-Careers-Sites-Token` on the offers and the apply POST.
      // Recruitee: "Deadline for introducing the token to calls is 10 February 2027. Calls without the authorization
      // header will return the 401 Unauthorized error" (https://docs.recruitee.com/reference/authentication-1).
      // Optional until then, so that connected companies keep working while they make one.
      name: 'careers_token',
      flag: '--careers-token',
      description: 'a Careers API token, sent as X-Careers-Sites-Token (required by Recruitee from 10 February 2027)',
      label: 'Careers API token (required by Recruitee from 10 February 2027)',
      secret: true,
      help: 'Settings → Apps and plugins → Careers API tokens → + Add token → Careers API token (https://docs.recruitee.com/reference/authentication-1). From 10 February 2027 Recruitee refuses Careers Site API calls without it.',
      pattern: /^[\x21-\x7e]{16,256}$/,
      default: '',
    },
    {
      // P351: optional, as Lever's webhook signature tokens (P310): only outcome readings need it, submissions do not.
      name: 'api_token',
      flag: '--api-token',
      description: 'a personal API token of the ATS API, to read what becomes of applications (optional)',
      label: 'ATS API token (optional: to report hired or rejected)',
      secret: true,
      help: 'Settings → Apps and plugins → Personal API tokens → + New token (https://docs.recruitee.com/reference/getting-started). It acts with the permissions of the user who makes it: one who may see candidates of the jobs you publish. Leave empty to deliver applications without reporting their outcome.',
      pattern: /^[\x21-\x7e]{16,256}$/,
      default: '',
    },
  ],
  settings: [API_URL, ATS_API_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  // P351 (was P303/P324): the Careers Site API cannot read a candidate back; with the optional personal API token the ATS
  // API reads the candidate the application created (its id is in the apply answer) and its placement's stage.
  outcomes: {
    by: 'reading',
    call: 'GET /c/{company}/candidates/{id} on the ATS API (the placement for the job: its stage, hired or disqualified)',
    source: 'https://docs.recruitee.com/reference/candidates-get',
    needs: {
      field: 'api_token',
      otherwise:
        'The Careers Site API we use needs no credentials and has no call that reads a candidate back. Give the optional ATS API token (api_token, a personal API token: Settings → Apps and plugins → Personal API tokens, https://docs.recruitee.com/reference/getting-started) and we read each candidate’s stage, hire or disqualification with GET /c/{company}/candidates/{id}.',
    },
  },
  check: {
    call: 'GET /api/offers/ on https://{company}.recruitee.com (with X-Careers-Sites-Token when a Careers API token is given); with the API token, GET /c/{company}/candidates?limit=1 on https://api.recruitee.com',
    proves:
      'The careers site exists and answers as a Recruitee Careers Site API (a JSON offers list), and accepts the Careers API token when one is given (401 names careers_token). With the optional API token: the ATS API accepts it for that company and its user may list candidates (P351).',
    doesNotProve:
      'That an offer accepts applications through the API, or which fields its form requires: both show on the first submission.',
  },
};
