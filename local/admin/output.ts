/**
 * The tool's output contract: a successful command prints exactly one JSON document on stdout and exits 0;
 * a failed one prints nothing on stdout and exactly one JSON document `{detail, code, errors?}` (the API's
 * D2 shape) on stderr, exiting 2 for a bad command line (code `invalid`) and 1 for everything else.
 */

export type ErrorBody = { detail: string; code: string; errors?: Record<string, string[]> };

/** A bad command line: printed in the D2 shape with code `invalid`, exit code 2. */
export class UsageError extends Error {
  constructor(
    readonly errors: Record<string, string[]>,
    detail?: string,
  ) {
    super(detail ?? describe(errors));
  }

  body(): ErrorBody {
    return { detail: this.message, code: 'invalid', errors: this.errors };
  }
}

/** A failure of the tool's environment (data directory locked, storage unreachable): exit code 1. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

function describe(errors: Record<string, string[]>): string {
  const fields = Object.keys(errors);
  if (fields.length === 1) return `Invalid value for "${fields[0]}": ${errors[fields[0]].join(' ')}`;
  return `Invalid values for ${fields.map((f) => `"${f}"`).join(', ')}.`;
}

/**
 * A domain error's field names as the flags or arguments the operator typed (`board_token` → `--board-token`);
 * a detail that named the fields is said again with the new names (P272).
 */
export async function withFlagNames<T>(work: () => Promise<T>, names: Record<string, string>): Promise<T> {
  const { ApiError, ValidationError } = await import('#platform/errors.js');
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError) || !error.errors) throw error;
    const renamed = Object.fromEntries(Object.entries(error.errors).map(([field, messages]) => [names[field] ?? field, messages]));
    const detail = error.detail === new ValidationError(error.errors).detail ? describe(renamed) : error.detail;
    throw new ApiError(error.statusCode, error.code, detail, renamed, error.headers);
  }
}

/** Writes a string as is, anything else as one pretty-printed JSON document; resolves once it is flushed. */
export function write(stream: NodeJS.WriteStream, value: unknown): Promise<void> {
  const text = typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`;
  return new Promise((done) => stream.write(text, () => done()));
}

/**
 * The SDK's errors that mean the AWS credentials are missing, expired or not accepted (P272): by name, since a
 * message that merely says "credential" (a missing CREDENTIALS_KMS_KEY_ID, an ATS's) is no AWS credentials problem.
 */
const AWS_CREDENTIAL_ERRORS = new Set([
  'CredentialsProviderError',
  'TokenProviderError',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'MissingAuthenticationToken',
  'MissingAuthenticationTokenException',
]);

/** The error document and exit code for anything a command throws. `embeddedDataDir` is the data directory
 *  of embedded mode once its emulators are starting: dynalite's lock errors then mean another process has it. */
export async function errorBody(error: unknown, embeddedDataDir: string | undefined): Promise<{ body: ErrorBody; exitCode: number }> {
  if (error instanceof UsageError) return { body: error.body(), exitCode: 2 };
  if (embeddedDataDir !== undefined && /Database is (closed|not open)|\bLOCK\b/.test((error as Error)?.message ?? '')) {
    error = dataDirInUse(embeddedDataDir);
  }
  if (error instanceof ToolError) return { body: { detail: error.message, code: error.code }, exitCode: 1 };
  const { ApiError } = await import('#platform/errors.js');
  if (error instanceof ApiError) return { body: error.body() as ErrorBody, exitCode: 1 };
  const e = error as Error;
  if (AWS_CREDENTIAL_ERRORS.has(e?.name)) {
    return { body: { detail: `AWS credentials: ${e.message}`, code: 'aws_credentials' }, exitCode: 1 };
  }
  if (process.env.HIRING_ADMIN_DEBUG) process.stderr.write(`${e?.stack ?? String(error)}\n`);
  return { body: { detail: `${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`, code: 'internal_error' }, exitCode: 1 };
}

function dataDirInUse(dataDir: string): ToolError {
  return new ToolError(
    'data_dir_in_use',
    `The data directory ${dataDir} is locked by another process (a server whose runtime.json is missing?). Stop it, or point DATA_DIR elsewhere.`,
  );
}
