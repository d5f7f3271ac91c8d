/**
 * What the registry knows of Personio without loading its connector (personio.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { AttachmentLimits, ConnectorPacing, ConnectorSetting, ConnectorDescriptor } from '#delivery/connectors/connector.js';

/** Personio's documented upload limit per document ("Maximum file size: 20MB", Personio's OpenAPI, github:personio/api-docs). */
export const PERSONIO_MAX_FILE_BYTES = 20 * 1024 * 1024;
/**
 * The documents endpoint's file types ("Must be one of the supported types: …", Personio's OpenAPI, github:personio/api-docs), plus
 * `jpeg` and `tiff`, the other names of its `jpg` and `tif` (an assumption, P282). Checked before any upload,
 * so a refused file leaves no orphan document in Personio.
 */
export const PERSONIO_FILE_TYPES = [
  'pdf',
  'pptx',
  'xlsx',
  'docx',
  'doc',
  'xls',
  'ppt',
  'ods',
  'odt',
  '7z',
  'gz',
  'rar',
  'zip',
  'bmp',
  'gif',
  'jpg',
  'png',
  'tif',
  'csv',
  'txt',
  'rtf',
  'mp4',
  '3gp',
  'mov',
  'avi',
  'wmv',
  'jpeg',
  'tiff',
] as const;
export const ATTACHMENTS: AttachmentLimits = { maxBytes: PERSONIO_MAX_FILE_BYTES, extensions: PERSONIO_FILE_TYPES };
export const API_URL: ConnectorSetting = {
  env: 'PERSONIO_API_URL',
  default: 'https://api.personio.de',
  context: 'personioApiUrl',
  about: 'the Recruiting API',
};
// 2,000 requests per minute per IP (https://developer.personio.de/changelog/ip-address-based-rate-limiting-v1-endpoints):
// 30 per second stays under it.
// The documents and applications endpoints' own 20 requests in 60 seconds per company are kept by personio.ts (P363).
export const PACING: ConnectorPacing = {
  requestsPerSecond: 30,
  importConcurrency: 1,
  documented: '2,000 requests per minute per IP (v1); 20 requests in 60 seconds per company on the documents and applications endpoints',
};
export const PERSONIO_FEED_URL: ConnectorSetting = {
  env: 'PERSONIO_FEED_URL',
  default: 'https://{subdomain}.jobs.personio.de/xml',
  context: 'personioFeedUrl',
  about: 'the public XML job feed',
};

/** The feed's languages: `language` is a required query parameter of `GET /xml` in Personio's OpenAPI (P282). */
export const PERSONIO_FEED_LANGUAGES = ['de', 'en', 'fr', 'es', 'nl', 'it', 'pt'] as const;
/** A connection made before the `feed_language` field existed reads the feed in German (P282). */
export const PERSONIO_DEFAULT_LANGUAGE = 'de';

export const personioDescriptor: ConnectorDescriptor = {
  slug: 'personio',
  name: 'Personio',
  credentialFields: [
    {
      name: 'subdomain',
      flag: '--subdomain',
      description: 'the career site subdomain ({subdomain}.jobs.personio.de)',
      label: 'Career site subdomain',
      help: 'The first part of your career site address ….jobs.personio.de.',
      pattern: /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i,
    },
    {
      name: 'personio_company_id',
      flag: '--personio-company-id',
      description: 'the Personio company id (X-Company-ID)',
      label: 'Company ID',
      help: 'Settings → Integrations → API credentials shows your company ID.',
      pattern: /^\d{1,20}$/,
    },
    {
      name: 'token',
      flag: '--token',
      description: 'the Recruiting API token',
      label: 'Recruiting API token',
      secret: true,
      help: 'Settings → Integrations → API credentials: generate a Recruiting API access token.',
      pattern: /^[\x21-\x7e]{8,512}$/,
    },
    {
      name: 'feed_language',
      flag: '--feed-language',
      description: 'the language of the job feed (`language`, one of de, en, fr, es, nl, it, pt)',
      label: 'Job feed language',
      help: 'The career site language to import the jobs in; postings not written in it come in the default language.',
      pattern: /^(de|en|fr|es|nl|it|pt)$/,
      default: PERSONIO_DEFAULT_LANGUAGE,
      choices: PERSONIO_FEED_LANGUAGES,
    },
    {
      // P358: optional, as Recruitee's api_token (P351): only outcome readings need them, submissions do not.
      name: 'api_client_id',
      flag: '--api-client-id',
      description: 'an API v2 client id with the personio:recruiting:read scope, to read what becomes of applications (optional)',
      label: 'API v2 client ID (optional: to report hired or rejected)',
      secret: true,
      help: 'Settings → Integrations → API credentials → create credentials with the Recruiting read scope (personio:recruiting:read); see https://developer.personio.de/reference/post_v2-auth-token. Leave empty to deliver applications without reporting their outcome.',
      pattern: /^[\x21-\x7e]{8,256}$/,
      default: '',
    },
    {
      name: 'api_client_secret',
      flag: '--api-client-secret',
      description: 'the API v2 client secret of that client id (optional, with it)',
      label: 'API v2 client secret (optional, with the client ID)',
      secret: true,
      help: 'Shown once when the API v2 credentials are created, beside the client ID.',
      pattern: /^[\x21-\x7e]{8,512}$/,
      default: '',
    },
  ],
  settings: [API_URL, PERSONIO_FEED_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  // P358 (was P303/P324): the Recruiting API token only posts applications; with the optional API v2 client credentials
  // the application is found after the submission and read with GET /v2/recruiting/applications/{id}.
  outcomes: {
    by: 'reading',
    call: 'GET /v2/recruiting/applications/{id} on the API v2, with the optional client credentials (its current stage: hired, rejected, withdrawn)',
    source: 'https://developer.personio.de/reference/get_v2-recruiting-applications-id',
    needs: {
      field: 'api_client_id',
      otherwise:
        'The Recruiting API token we hold can only submit applications (POST /v1/recruiting/applications). Give the optional API v2 client credentials (api_client_id and api_client_secret, with the personio:recruiting:read scope: Settings → Integrations → API credentials, https://developer.personio.de/reference/post_v2-auth-token) and we read each application’s stage with GET /v2/recruiting/applications/{id} (https://developer.personio.de/reference/get_v2-recruiting-applications-id).',
    },
  },
  check: {
    call: 'GET the XML feed, then POST /v1/recruiting/applications with an empty body; with the API v2 client credentials, POST /v2/auth/token and GET /v2/recruiting/applications?limit=1',
    proves:
      'The subdomain (its public job feed answers) and the token with the company id (Personio authenticates the empty application, then refuses it as invalid, so nothing is created). With the optional API v2 client credentials: Personio issues a token for them and it may list applications (personio:recruiting:read, P360).',
    doesNotProve: null,
  },
};
