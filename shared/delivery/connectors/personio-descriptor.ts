/**
 * What the registry knows of Personio without loading its connector (personio.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { AttachmentLimits, ConnectorPacing, ConnectorSetting, ConnectorDescriptor } from '#delivery/connectors/connector.js';

/** Personio's documented upload limit per document. */
export const PERSONIO_MAX_FILE_BYTES = 20 * 1024 * 1024;
export const ATTACHMENTS: AttachmentLimits = { maxBytes: PERSONIO_MAX_FILE_BYTES };
export const API_URL: ConnectorSetting = {
  env: 'PERSONIO_API_URL',
  default: 'https://api.personio.de',
  context: 'personioApiUrl',
  about: 'the Recruiting API',
};
export const FEED_URL: ConnectorSetting = {
  env: 'PERSONIO_FEED_URL',
  default: 'https://{subdomain}.jobs.personio.de/xml',
  context: 'personioFeedUrl',
  about: 'the public XML job feed',
};
// 2,000 requests per minute per IP: 30 per second stays under it.
export const PACING: ConnectorPacing = { requestsPerSecond: 30, importConcurrency: 1, documented: '2,000 requests per minute per IP (v1)' };

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
  ],
  settings: [API_URL, FEED_URL],
  pacing: PACING,
  attachments: ATTACHMENTS,
  check: {
    call: 'GET the XML feed, then POST /v1/recruiting/applications with an empty body',
    proves:
      'The subdomain (its public job feed answers) and the token with the company id (Personio authenticates the empty application, then refuses it as invalid, so nothing is created).',
    doesNotProve: null,
  },
};
