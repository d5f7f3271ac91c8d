/**
 * The body sizes the Lambda path (API Gateway → synchronous Lambda invocation) can take, and the WAF rules that
 * answer anything larger with a 413 in the D2 shape before a function is invoked (issue 15).
 *
 * Why a WAF and not a gateway response: a synchronous invocation carries at most 6 MB (6,291,456 bytes, the whole
 * proxy event: the body, Base64-encoded for the binary media types, plus headers and request context). Lambda
 * refuses a larger one (413 RequestEntityTooLargeException), and API Gateway turns every refused invocation into a
 * 500; no gateway response type singles it out, and a gateway response cannot pick its status per cause. The
 * gateway's own 413 only starts at 10 MB. So the size is checked in front of the gateway, on `Content-Length`.
 */
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { SECURITY_HEADERS } from '#http/response-headers.js';

/**
 * Content types API Gateway hands to the functions base64-encoded instead of as text (the same list the
 * local adapter uses): multipart application forms carry files.
 */
export const BINARY_MEDIA_TYPES = ['multipart/form-data', 'application/octet-stream'];

/** Lambda's limit on a synchronous invocation request ("must be smaller than 6291456 bytes"). */
export const LAMBDA_INVOKE_LIMIT_BYTES = 6_291_456;

/**
 * The largest bodies the Lambda path accepts, by how the gateway hands them over. Binary types are Base64-encoded
 * (4/3): 4.5 MB becomes 6,000,000 bytes, leaving 291 kB for the rest of the event. Text (JSON) is embedded as a
 * JSON string: 5.5 MB leaves 791 kB for the event and for escaping (quotes, backslashes, control characters).
 */
export const LAMBDA_PATH_BODY_LIMITS = { binary: 4_500_000, text: 5_500_000 } as const;

/** A regular expression matching a decimal `Content-Length` (leading zeros allowed) of at least `min`. */
export function atLeastPattern(min: number): string {
  if (!Number.isSafeInteger(min) || min < 1) throw new Error(`atLeastPattern: ${min} is not a positive integer`);
  const digits = String(min);
  const length = digits.length;
  const alternatives = [`[1-9]\\d{${length},}`];
  for (let i = 0; i < length; i++) {
    const digit = Number(digits[i]);
    if (digit === 9) continue;
    const rest = length - i - 1;
    alternatives.push(`${digits.slice(0, i)}[${digit + 1}-9]${rest ? `\\d{${rest}}` : ''}`);
  }
  alternatives.push(digits);
  return `^0*(?:${alternatives.join('|')})$`;
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

/** The 413/411 bodies, in the D2 shape, saying where the limit is and why. */
export const BODY_LIMIT_RESPONSES = {
  'payload-too-large-binary': {
    status: 413,
    body: {
      detail: `The request body is too large for this deployment: multipart and binary bodies must stay below ${mb(LAMBDA_PATH_BODY_LIMITS.binary)}. Requests reach AWS Lambda through API Gateway, which passes such bodies Base64-encoded (a third larger), and a Lambda invocation carries at most 6 MB. The interface's 27.5 MB needs the large-body ingest (largeBodies); ask the operator.`,
      code: 'payload_too_large',
    },
  },
  'payload-too-large': {
    status: 413,
    body: {
      detail: `The request body is too large for this deployment: JSON bodies must stay below ${mb(LAMBDA_PATH_BODY_LIMITS.text)}. Requests reach AWS Lambda through API Gateway, and a Lambda invocation carries at most 6 MB including the request's headers and escaping. The interface's 27.5 MB needs the large-body ingest (largeBodies); ask the operator.`,
      code: 'payload_too_large',
    },
  },
  'length-required': {
    status: 411,
    body: {
      detail:
        'Send the request body with a Content-Length header: chunked bodies cannot be checked against the size limit of this deployment.',
      code: 'length_required',
    },
  },
} as const;

type ResponseKey = keyof typeof BODY_LIMIT_RESPONSES;

const header = (name: string) => ({ singleHeader: { Name: name } });
const lowercase = [{ priority: 0, type: 'LOWERCASE' }];
const none = [{ priority: 0, type: 'NONE' }];

function block(key: ResponseKey) {
  return {
    block: {
      customResponse: {
        responseCode: BODY_LIMIT_RESPONSES[key].status,
        customResponseBodyKey: key,
        responseHeaders: Object.entries(SECURITY_HEADERS).map(([name, value]) => ({ name, value })),
      },
    },
  };
}

function rule(name: string, priority: number, statement: CfnWebACL.StatementProperty, key: ResponseKey): CfnWebACL.RuleProperty {
  return {
    name,
    priority,
    action: block(key),
    statement,
    visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: false, metricName: name },
  };
}

/** The web ACL rules (priorities from `first`) and the response bodies they use. */
export function bodyLimitRules(first = 0): {
  rules: CfnWebACL.RuleProperty[];
  bodies: Record<string, CfnWebACL.CustomResponseBodyProperty>;
} {
  const contentLengthAtLeast = (min: number): CfnWebACL.StatementProperty => ({
    regexMatchStatement: { fieldToMatch: header('content-length'), regexString: atLeastPattern(min), textTransformations: none },
  });
  const binaryType: CfnWebACL.StatementProperty = {
    regexMatchStatement: {
      fieldToMatch: header('content-type'),
      regexString: `^\\s*(${BINARY_MEDIA_TYPES.map((t) => t.replace(/[/.+]/g, (c) => `\\${c}`)).join('|')})\\s*(;|$)`,
      textTransformations: lowercase,
    },
  };
  const rules = [
    rule(
      'LambdaPathBinaryBodyTooLarge',
      first,
      { andStatement: { statements: [binaryType, contentLengthAtLeast(LAMBDA_PATH_BODY_LIMITS.binary)] } },
      'payload-too-large-binary',
    ),
    rule('LambdaPathBodyTooLarge', first + 1, contentLengthAtLeast(LAMBDA_PATH_BODY_LIMITS.text), 'payload-too-large'),
    rule(
      'LambdaPathChunkedBody',
      first + 2,
      { regexMatchStatement: { fieldToMatch: header('transfer-encoding'), regexString: 'chunked', textTransformations: lowercase } },
      'length-required',
    ),
  ];
  const bodies = Object.fromEntries(
    Object.entries(BODY_LIMIT_RESPONSES).map(([key, response]) => [
      key,
      { contentType: 'APPLICATION_JSON', content: JSON.stringify(response.body) },
    ]),
  );
  return { rules, bodies };
}
