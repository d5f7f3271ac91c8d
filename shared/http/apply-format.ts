/**
 * What an apply channel format (issue 23 item 2) provides to `POST /apply/{channel}/{token}`
 * (`#http/apply-endpoint.js`): how its deliveries are signed, read, deduplicated and answered.
 */
import { ApiError } from '#platform/errors.js';
import type { DeliveryIdentity } from '#applications/apply-deliveries.js';

/** 401: the delivery's signature is missing or does not verify with the channel's secret. */
export class InvalidSignatureError extends ApiError {
  constructor(detail = 'The request signature is missing or not valid for this channel.') {
    super(401, 'invalid_signature', detail);
  }
}

export interface ApplyResponse {
  statusCode: number;
  body: unknown;
}

/** A request header by its lower-case name. */
export type HeaderLookup = (name: string) => string | undefined;

export interface ApplyFormatHandler {
  /** Throws `InvalidSignatureError` unless the body is signed with the channel's secret. */
  verify(secret: string, headers: HeaderLookup, body: Buffer): void;
  /** Our application fields from the body, and what identifies the delivery for replays. */
  read(body: Buffer, headers: HeaderLookup): { fields: Record<string, unknown>; identity: DeliveryIdentity };
  /** The answer to a new application. */
  created(result: { id: number; application: Record<string, unknown> }): ApplyResponse;
  /** The answer to a replay or a duplicate, given the earlier application's id and its company. */
  duplicate(applicationId: number, companyId: number): Promise<ApplyResponse>;
  /** The answer to a typed error (the format may map its status). */
  error(error: ApiError): ApplyResponse;
}
