/**
 * Lambda REQUEST authorizer: answers "who is this key" (D3). Its result is cached by API Gateway per
 * Authorization header, so it grants the whole API and carries only the principal; whether the key may
 * act for a Company-Id is decided in every route, never here.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { bearerToken, principalToContext, resolveApiKey } from '#companies/api-keys.js';
import { header } from '#platform/headers.js';
import { logger } from '#platform/logger.js';

function apiWideResource(methodArn: string): string {
  // arn:aws:execute-api:region:account:apiId/stage/METHOD/path → every method and path of the stage.
  const [arnPrefix, stage] = methodArn.split('/');
  return `${arnPrefix}/${stage}/*`;
}

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const token = bearerToken(header({ headers: event.headers ?? {} }, 'authorization'));
  const principal = token ? await resolveApiKey(token) : undefined;
  if (!principal) {
    logger.info('authorization denied', { reason: token ? 'unknown or revoked key' : 'no bearer token' });
    // API Gateway answers 401 for exactly this error message.
    throw new Error('Unauthorized');
  }
  return {
    principalId: `key:${principal.keyId}`,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: apiWideResource(event.methodArn) }],
    },
    context: principalToContext(principal),
  };
}
