/**
 * The connector interface every ATS implements (issue 4), and the error classification the sync worker
 * acts on. A connector knows nothing of queues or statuses: it submits, lists, validates, and throws a
 * ConnectorError whose `kind` says what happened. Credentials come in as an argument, opened just before
 * the call, and never travel further (not into errors, logs, events or queue messages).
 */
import type { Readable } from 'node:stream';
import type { CompanyRecord } from '#companies/companies.js';
import type { JobInput } from '#jobs/jobs.js';

export type ConnectorErrorKind =
  | 'duplicate' // the candidate already applied in the ATS
  | 'job_not_published' // the job is closed or unknown in the ATS
  | 'invalid_data' // the ATS refuses the data: permanent
  | 'rate_limited' // retry after `retryAfterSeconds`
  | 'transient' // timeouts, 5xx, network: retry
  | 'credentials_rejected'; // the company's connection is broken: permanent until fixed

/** The `failure_error` name recorded on the application for each kind. */
export const FAILURE_ERROR_NAMES: Record<ConnectorErrorKind, string> = {
  duplicate: 'DuplicateApplicationError',
  job_not_published: 'JobNotPublishedError',
  invalid_data: 'InvalidDataError',
  rate_limited: 'RateLimitedError',
  transient: 'AtsUnavailableError',
  credentials_rejected: 'CredentialsRejectedError',
};

export class ConnectorError extends Error {
  constructor(
    readonly kind: ConnectorErrorKind,
    message: string,
    readonly retryAfterSeconds?: number,
    /** The credential field the ATS's answer points at, if any (credentials checks). */
    readonly field?: string,
  ) {
    super(message);
    this.name = FAILURE_ERROR_NAMES[kind];
  }

  get retryable(): boolean {
    return this.kind === 'transient' || this.kind === 'rate_limited';
  }
}

export interface SubmissionAttachment {
  type: string;
  name: string;
  content_type: string;
  size: number;
  /** Streams the file from storage when the connector sends it. */
  open(): Promise<Readable>;
}

export interface Submission {
  /** Our stable reference for the application: ATSes that support it deduplicate on it, so a retry after
   * a crash between the ATS call and our status write finds the first submission instead of creating a second. */
  reference: string;
  company: CompanyRecord;
  /** The ATS's id of the job to apply to. */
  jobExternalId: string;
  candidate: Record<string, unknown>;
  screeningAnswers: Record<string, string>[];
  customFields: Record<string, unknown>;
  socialLinks: Record<string, string>;
  notes: string | null;
  appliedAt: string;
  source: string | null;
  attachments: SubmissionAttachment[];
}

/** A company's ATS credentials, by the field names of the connector's `credentialFields`. Never logged. */
export type AtsCredentials = Readonly<Record<string, string>>;

export interface CredentialField {
  /** The field name (snake_case), also the name a D2 error uses. */
  name: string;
  /** What it is, for errors and help. */
  description: string;
  /** The connect page's label for it (D20). */
  label: string;
  /** One line of help on the connect page: where to find it in that ATS. */
  help: string;
  /** A secret (a key or token): a password input, never shown again. */
  secret?: boolean;
  pattern: RegExp;
}

export interface AtsConnector {
  slug: string;
  /** The credential fields `connect` asks for; empty when the ATS needs none (sandbox). */
  credentialFields: readonly CredentialField[];
  /** Parallel requests of one import run (for example per-job detail reads). */
  importConcurrency: number;
  /** Submits an application; returns the ATS's id for it when the ATS tells it. */
  submitApplication(submission: Submission, credentials: AtsCredentials): Promise<{ externalId: string | null }>;
  /**
   * The company's published jobs, the complete feed, in the spec's Job field names (the job import
   * validates them). `undefined`: this ATS has no feed for the company (a sandbox company without one), and
   * the run changes nothing. Throws a ConnectorError when the feed cannot be read or is malformed.
   */
  listPublishedJobs(company: CompanyRecord, credentials: AtsCredentials): Promise<JobInput[] | undefined>;
  /**
   * Checks the credentials with the cheapest documented call that proves them (each connector's document
   * says what that call can and cannot prove). Throws a ConnectorError, with `field` naming the credential
   * when the ATS's answer points at one.
   */
  validateCredentials(credentials: AtsCredentials, company: CompanyRecord): Promise<void>;
}
