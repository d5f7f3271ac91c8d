/**
 * `Idempotency-Key` on creates (D8, Stripe semantics) with Powertools idempotency: the first response
 * is stored for 24 h under a key scoped to the partner, the Company-Id and the client's key; a retry with
 * the same body gets that response again (header `Idempotent-Replayed: true`) without running the
 * handler; a retry with another body is a 422; one still in progress is a 409.
 */
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import type { MiddlewareObj } from '@middy/core';
import { config, dynamoClient } from '#platform/clients.js';
import { invalidField } from '#platform/errors.js';
import { tableDefinition } from '#platform/table.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

const idempotencyConfig = new IdempotencyConfig({
  // Null (no idempotency) when the header is absent; headers are lower-cased by the api() middleware.
  eventKeyJmesPath: 'headers."idempotency-key" && [requestContext.authorizer.partnerId, headers."company-id", headers."idempotency-key"]',
  payloadValidationJmesPath: '[headers."content-type", body]',
  throwOnNoIdempotencyKey: false,
  expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
  responseHook: (response) => {
    const replayed = response as { headers?: Record<string, string> };
    replayed.headers = { ...(replayed.headers ?? {}), 'Idempotent-Replayed': 'true' };
    return replayed;
  },
});

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
  return {
    before: async (request) => {
      const key = (request.event as { headers?: Record<string, string | undefined> })?.headers?.['idempotency-key'];
      if (key !== undefined && (key.length < 1 || key.length > 255)) throw invalidField('Idempotency-Key', 'Must be 1 to 255 characters.');
      return current().before!(request as never);
    },
    after: async (request) => current().after!(request as never),
    onError: async (request) => current().onError!(request as never),
  };
}
