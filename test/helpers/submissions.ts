/**
 * Connector test fixtures, for the tests that call a connector straight (no storage): a factory of
 * `Submission`s with a test file's defaults and attachments made from short specs, and `rejection`, which
 * awaits a promise that must fail with a ConnectorError and returns that error.
 */
import { Readable } from 'node:stream';
import { expect } from '@jest/globals';
import type { CompanyRecord } from '#companies/company-schema.js';
import { ConnectorError, type Submission } from '#delivery/connectors/connector.js';

/** One attachment: its bytes default to the factory's `pdf`, its size to their length, its type to `cv`. */
export interface FileSpec {
  name: string;
  type?: string;
  bytes?: Buffer;
  size?: number;
  content_type?: string;
}

export interface SubmissionDefaults {
  company: CompanyRecord;
  /** The bytes of every file that brings none of its own. */
  pdf: Buffer;
  jobExternalId: string;
  candidate: Record<string, unknown>;
  screeningAnswers?: Record<string, string>[];
  /** The files of `submission()` called without any. */
  files?: FileSpec[];
}

type Factory<S> = (overrides?: Partial<Submission>, files?: FileSpec[]) => S;

/**
 * A `submission(overrides, files)` factory. With `recordOpened`, each submission also carries `opened`: the
 * names of its files in the order the connector opened them.
 */
export function submissionFactory(defaults: SubmissionDefaults & { recordOpened: true }): Factory<Submission & { opened: string[] }>;
export function submissionFactory(defaults: SubmissionDefaults & { recordOpened?: false }): Factory<Submission>;
export function submissionFactory(defaults: SubmissionDefaults & { recordOpened?: boolean }): Factory<Submission> {
  return (overrides = {}, files = defaults.files ?? []) => {
    const opened: string[] = [];
    return {
      reference: 'his-application-1',
      company: defaults.company,
      jobExternalId: defaults.jobExternalId,
      candidate: { ...defaults.candidate },
      screeningAnswers: (defaults.screeningAnswers ?? []).map((answer) => ({ ...answer })),
      customFields: {},
      socialLinks: {},
      notes: null,
      appliedAt: '2026-01-01T00:00:00.000Z',
      source: null,
      attachments: files.map((f) => ({
        type: f.type ?? 'cv',
        name: f.name,
        content_type: f.content_type ?? 'application/pdf',
        size: f.size ?? (f.bytes ?? defaults.pdf).length,
        open: async () => {
          opened.push(f.name);
          return Readable.from([f.bytes ?? defaults.pdf]);
        },
      })),
      ...(defaults.recordOpened ? { opened } : {}),
      ...overrides,
    };
  };
}

/** The error `promise` fails with, asserting that it fails and with a ConnectorError. */
export async function rejection(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}
