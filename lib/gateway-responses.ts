/**
 * The answers API Gateway gives itself, before or instead of a function, in the D2 error shape
 * `{"detail": "...", "code": "..."}`, so a client parses one shape whoever answered.
 */
import { ResponseType } from 'aws-cdk-lib/aws-apigateway';

export interface GatewayResponseDefinition {
  id: string;
  type: ResponseType;
  /** Omitted: keep the status the gateway chose (the DEFAULT_* types cover many). */
  statusCode?: string;
  code: string;
  /** A Velocity expression that renders a JSON string literal (with its quotes). */
  detail: string;
  headers?: Record<string, string>;
}

const text = (sentence: string) => JSON.stringify(sentence);

export const gatewayResponses: readonly GatewayResponseDefinition[] = [
  {
    id: 'Unauthorized',
    type: ResponseType.UNAUTHORIZED,
    statusCode: '401',
    code: 'not_authenticated',
    detail: text('Authentication credentials were not provided or are not valid.'),
    headers: { 'WWW-Authenticate': 'Bearer' },
  },
  {
    id: 'AccessDenied',
    type: ResponseType.ACCESS_DENIED,
    statusCode: '403',
    code: 'permission_denied',
    detail: text('The API key is not allowed to call this route.'),
  },
  {
    // REST APIs answer an unknown path or method with 403 "Missing Authentication Token"; say what it is.
    id: 'MissingAuthenticationToken',
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    statusCode: '404',
    code: 'not_found',
    detail: text('No route for this method and path.'),
  },
  {
    // API Gateway's own 10 MB limit. Smaller bodies the Lambda path cannot take get the web ACL's 413 first
    // (lambda-body-limits.ts); this one answers what reaches the gateway all the same.
    id: 'RequestTooLarge',
    type: ResponseType.REQUEST_TOO_LARGE,
    statusCode: '413',
    code: 'payload_too_large',
    detail: text(
      'The request body is too large: API Gateway takes at most 10 MB, and the Lambda path behind it less (see the API documentation).',
    ),
  },
  {
    id: 'Throttled',
    type: ResponseType.THROTTLED,
    statusCode: '429',
    code: 'throttled',
    detail: text('Too many requests; retry after the number of seconds in Retry-After.'),
    headers: { 'Retry-After': '1' },
  },
  {
    id: 'QuotaExceeded',
    type: ResponseType.QUOTA_EXCEEDED,
    statusCode: '429',
    code: 'quota_exceeded',
    detail: text('The request quota of this API has been used up.'),
    headers: { 'Retry-After': '3600' },
  },
  {
    id: 'Default4xx',
    type: ResponseType.DEFAULT_4XX,
    code: 'bad_request',
    // messageString is the gateway's own sentence, already a quoted JSON string.
    detail: '$context.error.messageString',
  },
  {
    id: 'Default5xx',
    type: ResponseType.DEFAULT_5XX,
    code: 'internal_error',
    detail: '"Internal server error. Quote request id $context.requestId when you contact support."',
  },
];

/**
 * The response body template. Like the functions' 500s, gateway 5xx name the request id (API Gateway's, which it
 * also returns in the `x-amzn-RequestId` header of every response).
 */
export function responseTemplate(definition: GatewayResponseDefinition): string {
  const requestId = definition.type === ResponseType.DEFAULT_5XX ? ', "request_id": "$context.requestId"' : '';
  return `{"detail": ${definition.detail}, "code": "${definition.code}"${requestId}}`;
}
