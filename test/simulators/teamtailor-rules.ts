/**
 * What the Teamtailor simulator checks a request against, each rule with the vendor page it comes from. The
 * pages are the vendor's own documentation: docs.teamtailor.com, built from github.com/Teamtailor/docs
 * (`source/includes/<resource>/_*.md.erb`; cited below as DOCS#<section>). Where the vendor documents no status
 * or body for a refusal, the simulator answers as jsonapi-resources (the JSON:API server library whose error
 * format Teamtailor's `errors` follow) would, marked ASSUMED (P277).
 */
import type { Reply } from './server.js';

export const DOCS = 'https://docs.teamtailor.com/';
export const MEDIA_TYPE = 'application/vnd.api+json';

/** A JSON:API error document (https://jsonapi.org/format/#error-objects, which Teamtailor follows: DOCS#teamtailor-api). */
export function jsonApiError(status: number, title: string, extra: { pointer?: string; detail?: string; code?: string } = {}): Reply {
  return {
    status,
    body: {
      errors: [
        {
          status: String(status),
          title,
          ...(extra.code ? { code: extra.code } : {}),
          ...(extra.detail ? { detail: extra.detail } : {}),
          ...(extra.pointer ? { source: { pointer: extra.pointer } } : {}),
        },
      ],
    },
  };
}

/**
 * DOCS#versioning: "The X-Api-Version header is required when making requests to the API"; versions are dated
 * (the first public one 20161108, DOCS#changelog). Status and body of the refusal: ASSUMED (406, JSON:API error).
 */
export function versionProblem(value: string | undefined): Reply | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(value ?? '');
  const date = match ? new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`) : undefined;
  if (!match || !date || Number.isNaN(date.getTime()) || value! < '20161108' || date.toISOString().slice(0, 10).replace(/-/g, '') !== value)
    return jsonApiError(406, 'Not Acceptable', { detail: 'A dated X-Api-Version header is required' });
  return undefined;
}

/**
 * The attributes a create may carry, per resource: the documented attributes less those marked read only.
 * - candidates: DOCS#candidates "Attributes" (`merge` write only, `send-welcome-message` create only; `sourced` is
 *   marked read only there, yet "Create candidate" says email is required "unless sourced is set to true", so a
 *   create may carry it).
 * - uploads: DOCS#create-a-upload (`url`, `file-name`) and DOCS#uploads (`internal`).
 * - answers: DOCS#answers "Attributes" `boolean`, `choices`, `range`, `text` (`video-token`: "It is not possible
 *   to create file or video answer via API", DOCS#create-answer). There is no `number` or `date`.
 * - job-applications: DOCS#job-applications "Attributes" less `referring-site` (read only) and the timestamps.
 * Anything else is refused as jsonapi-resources refuses an unknown parameter: 400 "Param not allowed", code 105
 * (ASSUMED: Teamtailor documents no status for it).
 */
export const WRITABLE: Record<string, readonly string[]> = {
  candidates: [
    'connected',
    'email',
    'facebook-id',
    'first-name',
    'internal',
    'last-name',
    'linkedin-uid',
    'linkedin-url',
    'merge',
    'phone',
    'picture',
    'pitch',
    'referring-url',
    'resume',
    'set-consent-expiration',
    'send-welcome-message',
    'sourced',
    'tags',
    'unsubscribed',
  ],
  uploads: ['url', 'file-name', 'internal'],
  answers: ['boolean', 'choices', 'range', 'text'],
  'job-applications': ['cover-letter', 'referring-url', 'rejected-at', 'sourced', 'send-default-reply', 'send-user-notifications'],
};

/** The relationships a create takes (DOCS#uploads "Relations", DOCS#answers, DOCS#job-applications). */
export const RELATIONSHIPS: Record<string, readonly string[]> = {
  candidates: ['department', 'role', 'locations', 'regions'],
  uploads: ['candidate', 'job'],
  answers: ['candidate', 'question'],
  'job-applications': ['candidate', 'job', 'stage', 'reject-reason'],
};

/** The first attribute or relationship a create may not carry, as the refusal; undefined when all may. */
export function unknownMember(
  type: string,
  data: { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> },
): Reply | undefined {
  const bad =
    Object.keys(data.attributes ?? {}).find((name) => !WRITABLE[type].includes(name)) ??
    Object.keys(data.relationships ?? {}).find((name) => !RELATIONSHIPS[type].includes(name));
  return bad === undefined ? undefined : jsonApiError(400, 'Param not allowed', { code: '105', detail: `${bad} is not allowed.` });
}

/**
 * DOCS#create-a-upload: "A public `url` is required for the file" (and the candidate's `resume` is a URL,
 * DOCS#create-candidate). A `data:` URI, another scheme, or a URL that does not download is refused; the status
 * and body are ASSUMED (422 at the attribute, as jsonapi-resources reports a validation error).
 */
export function notPublicUrl(value: unknown): boolean {
  if (typeof value !== 'string') return true;
  try {
    const url = new URL(value);
    return url.protocol !== 'http:' && url.protocol !== 'https:';
  } catch {
    return true;
  }
}

/**
 * DOCS#questions: "There are 5 types of question": Boolean, Choice, Text, Range, Video. An answer carries the
 * attribute of its question's type (DOCS#answers); a Video answer cannot be created by API (DOCS#create-answer).
 * The refusal's status and body are ASSUMED (422 at the attribute).
 */
export function answerProblem(questionType: string, attributes: Record<string, unknown>): Reply | undefined {
  const at = (name: string, detail: string) => jsonApiError(422, 'is invalid', { pointer: `/data/attributes/${name}`, detail });
  if (questionType === 'Video') return at('video-token', 'video answers cannot be created via the API');
  if (questionType === 'Boolean' && typeof attributes.boolean !== 'boolean') return at('boolean', 'must be true or false');
  if (questionType === 'Choice' && !Array.isArray(attributes.choices)) return at('choices', 'must be an array');
  if (questionType === 'Range' && attributes.range !== undefined && !Number.isInteger(attributes.range))
    return at('range', 'must be an integer');
  return undefined;
}

/**
 * DOCS#pagination: `page[size]` "Default: 10, max: 30", `page[number]`; `links` first/prev/next/last and `meta`
 * record-count/page-count.
 */
export function paged<T>(items: T[], query: URLSearchParams, linkTo: (number: number, size: number) => string) {
  const size = Math.max(1, Math.min(Number(query.get('page[size]') ?? 10) || 10, 30));
  const number = Math.max(1, Number(query.get('page[number]') ?? 1) || 1);
  const pageCount = Math.max(1, Math.ceil(items.length / size));
  return {
    page: items.slice((number - 1) * size, number * size),
    meta: { 'record-count': items.length, 'page-count': pageCount },
    links: {
      first: linkTo(1, size),
      ...(number > 1 ? { prev: linkTo(number - 1, size) } : {}),
      ...(number < pageCount ? { next: linkTo(number + 1, size) } : {}),
      last: linkTo(pageCount, size),
    },
  };
}
