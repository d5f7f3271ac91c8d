/**
 * `Idempotency-Key` on creates (D8, Stripe semantics) with Powertools idempotency: the first response
 * is stored for 24 h under a key scoped to the partner, the company (the parsed Company-Id, so `055` and
 * `55` are one scope) and the client's key; a retry with the same body gets that response again (header
 * `Idempotent-Replayed: true`) without running the handler; a retry with another body is a 422; one still
 * in progress is a 409 with `Retry-After`.
 *
 * Powertools' middleware deletes the stored record in `onError` whatever failed, including its own 422 and
 * 409, which let the next retry run the handler again (a second application). This wrapper hands
 * `onError` on only when this request owns the record: it saved the in-progress record itself, and then
 * its handler failed (a rejected request is not remembered, P25).
 */
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
import { config, dynamoClient } from '#platform/clients.js';
import { invalidField } from '#platform/errors.js';
import { isSimulatedCrash } from '#platform/faults.js';
import { tableDefinition } from '#platform/table.js';
import { streamedBody } from '#http/streamed-body.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** What Powertools sees instead of the proxy event: the scope and the payload, both already parsed. */
interface IdempotencySubject {
  scope: [string, string, string] | null;
  payload: [string, string];
}

const idempotencyConfig = new IdempotencyConfig({
  // Null (no idempotency) when the request has no Idempotency-Key.
  eventKeyJmesPath: 'scope',
  payloadValidationJmesPath: 'payload',
  throwOnNoIdempotencyKey: false,
  expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
  responseHook: (response) => {
    const replayed = response as { headers?: Record<string, string> };
    replayed.headers = { ...(replayed.headers ?? {}), 'Idempotent-Replayed': 'true' };
    return replayed;
  },
});

interface ApiContextLike {
  api?: { principal: { partnerId: number }; company?: { id: number } };
}

const OWNER = 'his.idempotency.owner';
/** The SHA-256 of a streamed body (the lean body path), which stands for the body in the payload. */
const DIGEST = 'his.idempotency.body-digest';

function subjectOf(request: Request): IdempotencySubject {
  const event = request.event as { headers?: Record<string, string | undefined>; body?: string | null };
  const headers = event.headers ?? {};
  const key = headers['idempotency-key'];
  const api = (request.context as ApiContextLike).api;
  const scope: IdempotencySubject['scope'] =
    key === undefined || !api?.company ? null : [String(api.principal.partnerId), String(api.company.id), key];
  const digest = (request.internal as Record<string, unknown>)[DIGEST];
  return { scope, payload: [headers['content-type'] ?? '', typeof digest === 'string' ? `sha256:${digest}` : (event.body ?? '')] };
}

/** A middleware for the create route; the persistence layer follows the current clients (local runtime restarts). */
export function idempotency(): MiddlewareObj {
  let client: ReturnType<typeof dynamoClient> | undefined;
  let inner: ReturnType<typeof makeHandlerIdempotent> | undefined;
  const current = () => {
    if (!inner || client !== dynamoClient()) {
      client = dynamoClient();
      inner = makeHandlerIdempotent({
        persistenceStore: new DynamoDBPersistenceLayer({
          tableName: config().tableName,
          keyAttr: tableDefinition.partitionKey,
          sortKeyAttr: tableDefinition.sortKey,
          staticPkValue: 'IDEMPOTENCY',
          expiryAttr: tableDefinition.ttlAttribute,
          awsSdkV3Client: client,
        }),
        config: idempotencyConfig,
      });
    }
    return inner;
  };
  // Powertools reads `event` and `response` and keeps its state in `internal`, which stays shared.
  const view = (request: Request) => ({ ...request, event: subjectOf(request) }) as never;
  return {
    before: async (request) => {
      const key = (request.event as { headers?: Record<string, string | undefined> })?.headers?.['idempotency-key'];
      if (key !== undefined && (key.length < 1 || key.length > 255)) throw invalidField('Idempotency-Key', 'Must be 1 to 255 characters.');
      // A streamed body is compared by its digest: with a key, the body is read (held as chunks) before the route runs.
      const streamed = streamedBody(request.event);
      if (key !== undefined && streamed) (request.internal as Record<string, unknown>)[DIGEST] = await streamed.digest();
      const replay: unknown = await current().before!(view(request));
      // No replay and no error: this request saved the in-progress record (or idempotency does not apply).
      if (replay === undefined) (request.internal as Record<string, unknown>)[OWNER] = true;
      return replay;
    },
    after: async (request) => current().after!(view(request)),
    onError: async (request) => {
      // A dead invocation does not clean up: its record stays in progress until it expires, as after `kill -9`.
      if (isSimulatedCrash(request.error)) return;
      if ((request.internal as Record<string, unknown>)[OWNER] === true) await current().onError!(view(request));
    },
  };
}
