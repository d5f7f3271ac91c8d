/**
 * The connector interface every ATS implements (issue 4), and the error classification the sync worker
 * acts on. A connector knows nothing of queues or statuses: it submits, lists, validates, and throws a
 * ConnectorError whose `kind` says what happened.
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

export interface AtsConnector {
  slug: string;
  /** Submits an application; returns the ATS's id for it. */
  submitApplication(submission: Submission): Promise<{ externalId: string }>;
  /** The company's published jobs, in the spec's Job field names (used by the job import). */
  listPublishedJobs(company: CompanyRecord): Promise<JobInput[]>;
  /** Whether the company's stored credentials work. */
  validateCredentials(company: CompanyRecord): Promise<boolean>;
}
