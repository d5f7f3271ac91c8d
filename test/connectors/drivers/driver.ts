/**
 * The connector contract's driver port: one module per ATS under this folder (listed in `./index.ts`) starts
 * its ATS's simulator and drives it for the shared scenarios of `../contract.test.ts`.
 */

export const PDF = Buffer.from('%PDF-1.5\ncontract test resume\n%%EOF');
export const COVER = Buffer.from('%PDF-1.5\ncontract test cover letter\n%%EOF');

/**
 * The contract's application to `job` (the body of `POST /applications/`): Grace Hopper, one screening answer, a CV
 * and a cover letter, less the files the driver's ATS does not take.
 */
export function contractApplication(driver: Pick<Driver, 'attachmentTypes'>, job: number, email: string) {
  return {
    job,
    candidate: { email, first_name: 'Grace', last_name: 'Hopper', phone: '+49 30 1234' },
    screening_questions: [{ id: '123', question: 'Why us?', answer_type: 'text', answer: 'Because.' }],
    attachments: [
      { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') },
      { type: 'cover_letter', name: 'cover.pdf', content_type: 'application/pdf', data: COVER.toString('base64') },
    ].filter((a) => driver.attachmentTypes?.includes(a.type) ?? true),
  };
}

export type Key = 'a' | 'b' | 'c';
export interface FeedJob {
  key: Key;
  title: string;
}

export interface Driver {
  ats: string;
  ids: Record<Key, string>;
  credentials: Record<string, string>;
  /** Whether a successful submission carries the ATS's id of the application (`external_id`). */
  returnsExternalId: boolean;
  publish(jobs: FeedJob[]): Promise<void>;
  breakFeed(): Promise<void>;
  rejectCredentials(on: boolean): Promise<void>;
  close(key: Key): Promise<void>;
  /** Makes the next submission rate limited once; returns the e-mail to apply with. */
  rateLimitOnce(): Promise<string>;
  /** Makes an e-mail a known candidate; returns the e-mail to apply with. */
  duplicate(email: string): Promise<string>;
  duplicateOutcome: { sync_status: string; failure_error: string | null };
  /** Asserts the exact request the ATS received for the last application. */
  checkSubmission(email: string, externalJobId: string): Promise<void>;
  /** Asserts that the ATS saw a 429 and then accepted. */
  checkRateLimited(): void;
  rawId(key: Key): unknown;
  /**
   * The attachment types the contract's application carries (default: a CV and a cover letter). An ATS
   * that takes fewer (Lever: the CV only, P281) names them; its own test shows the others refused.
   */
  attachmentTypes?: readonly string[];
}

/** What a driver module's simulator gives the runtime: the environment to point the connector at it. */
export interface StartedSimulator {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * One ATS in the contract: `start()` runs once (in `beforeAll`, before any `driver()`), `driver()` once per
 * company the scenarios create.
 */
export interface DriverModule {
  ats: string;
  start(): Promise<StartedSimulator>;
  driver(companyId: number): Driver;
}
