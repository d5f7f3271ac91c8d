/**
 * The connector interface every ATS implements (issue 4), and the error classification the sync worker
 * acts on. A connector knows nothing of queues or statuses: it submits, lists, validates, and throws a
 * ConnectorError whose `kind` says what happened. Credentials come in as an argument, opened just before
 * the call, and never travel further (not into errors, logs, events or queue messages).
 */
import type { Readable } from 'node:stream';
import type { CompanyRecord } from '#companies/company-schema.js';
import type { JobInput } from '#jobs/job-schema.js';

export type ConnectorErrorKind =
  | 'duplicate' // the candidate already applied in the ATS
  | 'job_not_published' // the job is closed or unknown in the ATS
  | 'invalid_data' // the ATS refuses the data: permanent
  | 'rate_limited' // retry after `retryAfterSeconds`
  | 'transient' // timeouts, 5xx, network: retry
  | 'credentials_rejected' // the company's connection is broken: permanent until fixed
  | 'attachment_rejected'; // a file the ATS will not take (too large, or a type it refuses): permanent (P210)

/** The `failure_error` name recorded on the application for each kind. */
export const FAILURE_ERROR_NAMES: Record<ConnectorErrorKind, string> = {
  duplicate: 'DuplicateApplicationError',
  job_not_published: 'JobNotPublishedError',
  invalid_data: 'InvalidDataError',
  rate_limited: 'RateLimitedError',
  transient: 'AtsUnavailableError',
  credentials_rejected: 'CredentialsRejectedError',
  attachment_rejected: 'AttachmentRejectedError',
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
  /**
   * A presigned GET URL of this one stored file, valid for at most an hour, for an ATS that fetches files by
   * URL (Teamtailor, P277). A credential of a sort: never logged, stored or put in an error. Absent where the
   * storage cannot presign.
   */
  url?(): Promise<string>;
}

export interface Submission {
  /** Our stable reference for the application: ATSes that support it deduplicate on it, so a retry after
   * a crash between the ATS call and our status write finds the first submission instead of creating a second. */
  reference: string;
  company: CompanyRecord;
  /** The ATS's id of the job to apply to. */
  jobExternalId: string;
  /**
   * What the ATS's apply call names the job by when that is not `jobExternalId` (P276: Recruitee's offer slug),
   * as the job's import stored it; absent for a job imported without one (for example before the key existed).
   */
  jobApplyKey?: string;
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
  /** The admin CLI's flag for it (`hiring-admin company connect --ats … <flag> VALUE`). A flag two
   * connectors share names the same field in both. */
  flag: `--${string}`;
  /** What it is, for errors and help. */
  description: string;
  /** The connect page's label for it (D20). */
  label: string;
  /** One line of help on the connect page: where to find it in that ATS. */
  help: string;
  /** A secret (a key or token): a password input, never shown again. */
  secret?: boolean;
  pattern: RegExp;
  /** Optional, with this value when not given (for example Teamtailor's region). */
  default?: string;
  /** The only values it takes (a select on the connect page). */
  choices?: readonly string[];
}

/**
 * Where the ATS is: an environment variable with its base URL, the real default, and the CDK context value
 * that sets it on the stack. `{field}` in the default (or in the configured value) is replaced by that
 * credential field, URL-encoded (for example `https://{subdomain}.workable.com`).
 */
export interface ConnectorSetting {
  env: string;
  default: string;
  /** The CDK context key (`cdk deploy -c workableApiUrl=…`). */
  context: string;
  about: string;
}

/** How fast the connector may call the ATS (docs/connectors/<ats>.md says where the numbers come from). */
export interface ConnectorPacing {
  /** Requests per second one process sends to this ATS at most (each leaves 1/rate after the one before it, P375). */
  requestsPerSecond: number;
  /** Parallel requests of one import run (for example per-job detail reads). */
  importConcurrency: number;
  /** The ATS's documented limit, in words. */
  documented: string;
}

/** What the credentials check calls, and exactly what its answer proves and does not. */
export interface CredentialsCheck {
  call: string;
  proves: string;
  /** What it cannot prove (null when it proves every credential). */
  doesNotProve: string | null;
}

/** Per-file limits of what the ATS takes; a file outside them is `attachment_rejected`, never dropped (P210). */
export interface AttachmentLimits {
  maxBytes: number;
  /** File name extensions it takes (lower case, no dot); absent: any. */
  extensions?: readonly string[];
}

/** An application's outcome in the ATS (D21, issue 43): `null` on the application until known. */
export type Outcome = 'PENDING' | 'HIRED' | 'REJECTED' | 'WITHDRAWN';

/** What one reading of an application in the ATS found: our outcome, and the ATS's own stage name. */
export interface OutcomeReading {
  outcome: Outcome;
  /** The ATS's own name of the stage or status (personal data never: a pipeline stage name only), or null. */
  stage: string | null;
}

/** Which application in the ATS to read: what the submission stored. */
export interface OutcomeRef {
  /** The ATS's id of the application (or candidate) as `submitApplication` returned it (`external_id`). */
  externalId: string;
  jobExternalId: string;
  /** Our reference sent with the submission (the application's id). */
  reference: string;
  appliedAt: string;
}

/**
 * How a connector learns what became of an application (D21), from the vendor's own reference:
 * - `reading`: `readOutcome` reads it with the credentials we hold (`call` names the documented call);
 * - `webhook`: the vendor's signed webhooks tell us (`about` says which events and how they are signed);
 * - `none`: not at all, and why (for example, the credentials cannot read applications).
 */
export type OutcomeTracking =
  | {
      by: 'reading';
      call: string;
      source: string;
      /**
       * P351: reading needs an optional credential field (Recruitee's ATS API token): a company that did not give it
       * is `none` with `otherwise` as the reason (which names that field and where the vendor makes it).
       */
      needs?: { field: string; otherwise: string };
    }
  | { by: 'webhook'; about: string; source: string }
  | { by: 'none'; reason: string };

/**
 * How one company's connection learns outcomes (P351): the connector's declaration, where a reading that needs an
 * optional credential the company did not give (`given`: the optional fields its connection recorded) is `none`.
 */
export function trackingOf(outcomes: OutcomeTracking, given: readonly string[] | undefined): OutcomeTracking {
  if (outcomes.by === 'reading' && outcomes.needs && !given?.includes(outcomes.needs.field))
    return { by: 'none', reason: outcomes.needs.otherwise };
  return outcomes;
}

/**
 * What one inbound ATS webhook says of an application (P311): the references it names the application by (looked
 * up among those kept at delivery or linked by an earlier event), the job ids it names (to tell apart several
 * applications of one candidate), a reference later events will use (`link`), and the reading, if any.
 */
export interface WebhookOutcome {
  refs: string[];
  jobIds: string[];
  link?: string;
  reading?: OutcomeReading;
  /** A reading that never replaces these outcomes (Lever: an archive after a hire). */
  keeps?: readonly Outcome[];
  /**
   * When no application matches yet (P348): keep `link` as naming whatever `ref` names, so that a later webhook
   * naming `link` finds the application once the sync worker kept `ref` (Lever's `applicationCreated` may arrive
   * before we stored the `applicationId` its apply answered).
   */
  park?: { ref: string };
}

/** A verified webhook delivery: what identifies it for replays, how long that is remembered, and its JSON. */
export interface VerifiedWebhook {
  replayKey: string;
  /** How long the delivery is remembered; the outcome tracking window (OUTCOME_TRACK_DAYS) when not given. */
  rememberSeconds?: number;
  json: Record<string, unknown>;
}

/**
 * How a connector whose outcomes come `by: 'webhook'` takes the vendor's signed webhooks (P310–P312). Signature
 * and body errors are thrown as ApiErrors (401 a bad or stale signature, 400 a malformed body), each before
 * anything is stored.
 */
export interface OutcomeWebhooks {
  /** Where the signing secrets come from: ours (generated at connect, shown to the company) or a credential field. */
  secrets: { by: 'ours' } | { by: 'credential'; field: string };
  /** Whether its webhooks may park a link for later (P348; Lever): an unmatched webhook then looks for one. */
  parks?: boolean;
  /** The references kept when the ATS accepted an application (before any keying, never stored as given). */
  deliveryRefs(delivered: { externalId: string | null; jobExternalId: string; email: string | undefined }): string[];
  verify(body: Buffer, header: (name: string) => string | undefined, secrets: readonly string[], nowMs: number): VerifiedWebhook;
  /** What the event says; undefined for an event that says nothing of an outcome (a ping, another event). */
  read(json: Record<string, unknown>): WebhookOutcome | undefined;
}

export interface AtsConnector {
  slug: string;
  /** The display name (`ats_name`). */
  name: string;
  /** The credential fields `connect` asks for; empty when the ATS needs none (sandbox). */
  credentialFields: readonly CredentialField[];
  /** Its base-URL environment variables, with defaults. */
  settings: readonly ConnectorSetting[];
  pacing: ConnectorPacing;
  check: CredentialsCheck;
  attachments: AttachmentLimits;
  /** How it learns outcomes (D21). */
  outcomes: OutcomeTracking;
  /** Submits an application; returns the ATS's id for it when the ATS tells it. */
  submitApplication(submission: Submission, credentials: AtsCredentials): Promise<{ externalId: string | null }>;
  /**
   * The company's published jobs, the complete feed, in the spec's Job field names (the job import
   * validates them). `undefined`: this ATS has no feed for the company (a sandbox company without one), and
   * the run changes nothing. Throws a ConnectorError when the feed cannot be read or is malformed.
   */
  listPublishedJobs(company: CompanyRecord, credentials: AtsCredentials): Promise<JobInput[] | undefined>;
  /**
   * Checks the credentials with the cheapest documented call that proves them (`check` says what that call
   * can and cannot prove). Throws a ConnectorError, with `field` naming the credential when the ATS's answer
   * points at one. It never creates anything in the ATS.
   */
  validateCredentials(credentials: AtsCredentials, company: CompanyRecord): Promise<void>;
  /**
   * Reads the application's outcome in the ATS (only where `outcomes.by` is `reading`). Throws a ConnectorError
   * as the other calls do (a retryable one: the next scheduled reading tries again).
   */
  readOutcome?(ref: OutcomeRef, credentials: AtsCredentials, company: CompanyRecord): Promise<OutcomeReading>;
  /** Takes the vendor's signed webhooks (only where `outcomes.by` is `webhook`, P310). */
  outcomeWebhooks?: OutcomeWebhooks;
}

/**
 * What the registry holds of a connector without loading it (P283): everything but the three calls. Each
 * connector's `<ats>-descriptor.ts` declares it and imports nothing but types; `registry.ts` loads the
 * connector itself (`loadConnector`) only where one of its calls is made.
 */
export type ConnectorDescriptor = Omit<
  AtsConnector,
  'submitApplication' | 'listPublishedJobs' | 'validateCredentials' | 'readOutcome' | 'outcomeWebhooks'
>;
