/**
 * @hiring-integration/client: a typed client for the Hiring Integration Service API.
 *
 * ```ts
 * const client = createHiringClient({ baseUrl: 'https://api.example.com', apiKey: process.env.HIRING_API_KEY! });
 * for await (const company of client.companies.list()) console.log(company.id, company.name);
 * ```
 */
export { createHiringClient, type CompanyClient, type CreateOptions, type HiringClient, type HiringClientOptions } from './client.js';
export { attachmentFromBuffer, attachmentFromFile, contentTypeFor, CONTENT_TYPES, type AttachmentOptions } from './attachments.js';
export {
  AuthenticationError,
  ConflictError,
  HiringApiError,
  HiringClientError,
  IdempotencyMismatchError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ValidationError,
} from './errors.js';
export { PageIterator } from './pagination.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';
export type * from './types.js';
