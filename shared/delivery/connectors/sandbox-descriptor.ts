/**
 * What the registry knows of Sandbox ATS without loading its connector (sandbox.ts), P283: its slug, name, credential
 * fields, settings, pacing, check and attachment limits. It imports nothing but types, so that every function
 * that lists ATSs carries this and no connector code; the connector spreads it into its `AtsConnector`.
 */
import type { ConnectorDescriptor } from '#delivery/connectors/connector.js';

export const sandboxDescriptor: ConnectorDescriptor = {
  slug: 'sandbox',
  name: 'Sandbox ATS',
  credentialFields: [],
  settings: [],
  pacing: { requestsPerSecond: 1000, importConcurrency: 1, documented: 'none: it is our own table' },
  attachments: { maxBytes: Number.MAX_SAFE_INTEGER },
  outcomes: {
    by: 'reading',
    call: "reads the application's receipt in the sandbox's own table: +hired and +rejected e-mails move SANDBOX_OUTCOME_SECONDS after acceptance",
    source: 'README.md (the sandbox ATS)',
  },
  check: {
    call: "reads the sandbox's state for the company",
    proves: 'Nothing beyond the sandbox itself: it needs no credentials (a sandbox set to reject credentials is refused).',
    doesNotProve: null,
  },
};
