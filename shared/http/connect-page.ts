/**
 * The connect page (D20, issue 14): `GET /connect/{token}` and its form's `POST /connect/{token}`. Plain
 * server-rendered HTML without script, in two steps that work without JavaScript: choose the ATS (a GET
 * form, `?ats=`), then enter exactly the credential fields its connector names (label and one line of help
 * each, from the connector) or, for a listed ATS without a connector, a contact for the request.
 *
 * Security: the token is the only authority and acts on its own company only (`openInvitation`). The
 * POST carries a form token bound to the link by an HMAC and used once (a replayed form changes nothing);
 * attempts are counted per client address (every request) and per link (every POST) in fixed one-hour
 * windows in the table (TTL), beyond which a 429 page answers. Every token that opens nothing (malformed,
 * unknown, used, revoked, expired) gets the same plain 404 page, which names no company and not the case (P219).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { ApiError } from '#platform/errors.js';
import { expiringAt, keys } from '#platform/keys.js';
import { derivedSecretKey } from '#platform/derived-keys.js';
import { MagicLinkGoneError } from '#delivery/ats-connections.js';
import {
  connectThroughLink,
  offeredAts,
  offeredAtss,
  openInvitation,
  parseAtsRequest,
  requestAtsThroughLink,
  type Invitation,
  type OfferedAts,
} from '#delivery/onboarding.js';
import { html, type Html, type PageResult } from '#http/pages.js';

type OpenInvitation = Extract<Invitation, { state: 'open' }>;

const WINDOW_SECONDS = 3600;
const FORM_TOKEN_SECONDS = 2 * 3600;
const MAX_FORM_BYTES = 16 * 1024;

const limit = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
/** `CONNECT_ATTEMPTS_PER_ADDRESS` (default 60): connect page requests per client address and hour. */
export const attemptsPerAddress = () => limit('CONNECT_ATTEMPTS_PER_ADDRESS', 60);
/** `CONNECT_ATTEMPTS_PER_LINK` (default 10): form submissions per magic link and hour. */
export const attemptsPerLink = () => limit('CONNECT_ATTEMPTS_PER_LINK', 10);

// ---------------------------------------------------------------------------------------------------
// Attempt limits

/** Counts one attempt in the current window; returns the seconds until the window ends when over the limit. */
async function overLimit(scope: string, max: number): Promise<number | undefined> {
  const nowSeconds = Math.floor(now().getTime() / 1000);
  const window = Math.floor(nowSeconds / WINDOW_SECONDS);
  const windowEnd = (window + 1) * WINDOW_SECONDS;
  const ttl = expiringAt(windowEnd + 60);
  const out = await db().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: keys.attempts(scope, window),
      UpdateExpression: 'ADD attempts :one SET expires_at = :exp',
      ExpressionAttributeValues: { ':one': 1, ':exp': ttl.expires_at },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.attempts ?? 1) > max ? windowEnd - nowSeconds : undefined;
}

/** The client address, hashed: the counter's key never holds the address itself. */
function addressScope(event: APIGatewayProxyEvent): string {
  const address = event.requestContext?.identity?.sourceIp ?? 'unknown';
  return `address#${createHash('sha256').update(address).digest('base64url')}`;
}

// ---------------------------------------------------------------------------------------------------
// Form tokens (CSRF): `issued.nonce.mac`, the MAC over the link's hash, the time and the nonce.

const key = () => derivedSecretKey('his-connect-form-v1');

const mac = (linkHash: string, issued: string, nonce: string) =>
  createHmac('sha256', key()).update(`${linkHash}.${issued}.${nonce}`).digest('base64url');

export function mintFormToken(linkHash: string): string {
  const issued = String(Math.floor(now().getTime() / 1000));
  const nonce = randomBytes(16).toString('base64url');
  return `${issued}.${nonce}.${mac(linkHash, issued, nonce)}`;
}

/** The form token's nonce and expiry when it is genuine, for this link, and fresh; else undefined. */
export function verifyFormToken(linkHash: string, value: string | undefined): { nonce: string; expires: number } | undefined {
  const parts = /^(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
  if (!parts) return undefined;
  const [, issued, nonce, given] = parts;
  const expected = Buffer.from(mac(linkHash, issued, nonce));
  if (!timingSafeEqual(expected, Buffer.from(given))) return undefined;
  const expires = Number(issued) + FORM_TOKEN_SECONDS;
  const nowSeconds = now().getTime() / 1000;
  if (expires < nowSeconds || Number(issued) > nowSeconds + 60) return undefined;
  return { nonce, expires };
}

/** Marks a form as sent; false when it was sent before (a replay). */
async function claimForm(nonce: string, expires: number): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: config().tableName,
        Item: { ...keys.formUse(nonce), ...expiringAt(expires + 60) },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------
// Pages

/**
 * The one answer for every token that opens nothing (malformed, unknown, expired, used, revoked, or its company
 * connected meanwhile): the same status, title and text, so the page tells nobody which case it was (P219).
 * 404 rather than 410: for a token that was never issued, 410 would claim that it once existed.
 */
export const LINK_NOT_VALID_STATUS = 404;
export const linkNotValidPage = (): PageResult => ({
  statusCode: LINK_NOT_VALID_STATUS,
  title: 'Link no longer valid',
  body: html`<h1>This link is no longer valid</h1>
    <p>A link works once and for a limited time, and only when it was opened in full. Ask whoever sent it to you for a new one.</p>`,
});

const tooManyPage = (retryAfter: number): PageResult => ({
  statusCode: 429,
  title: 'Too many attempts',
  headers: { 'Retry-After': String(retryAfter) },
  body: html`<h1>Too many attempts</h1>
    <p>Please wait ${Math.ceil(retryAfter / 60)} minutes and try again.</p>`,
});

type Errors = Map<string, string[]>;

function errorSummary(detail: string | undefined, errors: Errors, labels: Map<string, string>): Html {
  if (!detail && !errors.size) return html``;
  const items = [...errors].map(([field, messages]) =>
    labels.has(field)
      ? html`<li><a href="#field-${field}">${labels.get(field)}: ${messages.join(' ')}</a></li>`
      : html`<li>${messages.join(' ')}</li>`,
  );
  return html`<div class="summary" role="alert" aria-labelledby="summary-title" tabindex="-1" id="error-summary" autofocus>
    <h2 id="summary-title">There is a problem</h2>
    ${detail ? html`<p>${detail}</p>` : ''}
    ${
      items.length
        ? html`<ul>
            ${items}
          </ul>`
        : ''
    }
  </div>`;
}

function heading(invitation: OpenInvitation): Html {
  const partner = invitation.partnerName || 'your partner';
  return html`<h1>Connect ${invitation.company.name} to ${partner}</h1>
    <p class="lead">
      ${partner} receives your jobs and sends you applications through your applicant tracking system (ATS). Connect it here.
    </p>`;
}

function choosePage(invitation: OpenInvitation, statusCode = 200, errors: Errors = new Map()): PageResult {
  const options = offeredAtss().map(
    (a, i) =>
      html`<div class="choice">
        <input
          type="radio"
          name="ats"
          id="${i === 0 ? 'field-ats' : `ats-${a.slug}`}"
          value="${a.slug}"
          ${errors.has('ats') ? html` aria-describedby="ats-error"` : ''}
        />
        <label for="${i === 0 ? 'field-ats' : `ats-${a.slug}`}">${a.name}</label>
      </div>`,
  );
  return {
    statusCode,
    title: `Connect ${invitation.company.name}`,
    body: html`${errorSummary(undefined, errors, new Map([['ats', 'ATS']]))}${heading(invitation)}
      <form method="get" novalidate>
        <fieldset>
          <legend>Which ATS do you use?</legend>
          ${errors.has('ats') ? html`<span class="field-error" id="ats-error">${errors.get('ats')!.join(' ')}</span>` : ''} ${options}
        </fieldset>
        <button type="submit">Continue</button>
      </form>`,
  };
}

interface FormState {
  values?: Map<string, string>;
  errors?: Errors;
  detail?: string;
  statusCode?: number;
}

export function fieldsPage(invitation: OpenInvitation, ats: OfferedAts, state: FormState = {}): PageResult {
  const errors = state.errors ?? new Map<string, string[]>();
  const values = state.values ?? new Map<string, string>();
  const fields = ats.fields
    ? ats.fields.map((f) => ({
        name: f.name,
        label: f.label,
        help: f.help,
        type: f.secret ? 'password' : 'text',
        // The company's ATS credentials are not the person's own: no browser should offer or store them.
        autocomplete: 'off',
        keep: !f.secret,
        optional: f.default,
        choices: f.choices,
      }))
    : [
        // The person's own name and address: named for autofill (WCAG 1.3.5, P271).
        {
          name: 'contact_name',
          label: 'Your name',
          help: 'Whom we contact about the connection.',
          type: 'text',
          autocomplete: 'name',
          keep: true,
        },
        {
          name: 'contact_email',
          label: 'Your e-mail address',
          help: 'Where we write once your ATS can be connected.',
          type: 'email',
          autocomplete: 'email',
          keep: true,
        },
      ];
  const labels = new Map(fields.map((f) => [f.name, f.label]));
  const inputs = fields.map(
    (f: {
      name: string;
      label: string;
      help: string;
      type: string;
      autocomplete: string;
      keep: boolean;
      optional?: string;
      choices?: readonly string[];
    }) => {
      const error = errors.get(f.name);
      const describedBy = `${f.name}-help${error ? ` ${f.name}-error` : ''}`;
      const value = f.keep ? (values.get(f.name) ?? f.optional ?? '') : '';
      const label = html`<label for="field-${f.name}">${f.label}</label>
        <span class="help" id="${f.name}-help">${f.help}</span>
        ${error ? html`<span class="field-error" id="${f.name}-error">${error.join(' ')}</span>` : ''}`;
      if (f.choices)
        return html`${label}
          <select id="field-${f.name}" name="${f.name}" aria-describedby="${describedBy}" ${error ? html` aria-invalid="true"` : ''}>
            ${f.choices.map((c) => html`<option value="${c}" ${c === value ? html`selected` : ''}>${c}</option>`)}
          </select>`;
      return html`${label}
        <input
          type="${f.type}"
          id="field-${f.name}"
          name="${f.name}"
          value="${value}"
          ${f.optional === undefined ? html`required` : ''}
          autocomplete="${f.autocomplete}"
          spellcheck="false"
          aria-describedby="${describedBy}"
          ${error ? html` aria-invalid="true"` : ''}
        />`;
    },
  );
  const intro = ats.fields
    ? html`<p>Enter the details from ${ats.name}. Before saving them, encrypted, we check them with ${ats.name}.</p>
        ${checkSays(ats)}`
    : html`<p>
        We cannot connect to ${ats.name} yet. Leave a contact and we will record your request and tell
        ${invitation.partnerName || 'your partner'}.
      </p>`;
  return {
    statusCode: state.statusCode ?? 200,
    title: `Connect ${invitation.company.name} to ${ats.name}`,
    body: html`${errorSummary(state.detail, errors, labels)}${heading(invitation)}
      <h2>${ats.name}</h2>
      ${intro}
      <form method="post" novalidate>
        <input type="hidden" name="form_token" value="${mintFormToken(invitation.hash)}" />
        <input type="hidden" name="ats" value="${ats.slug}" />
        ${inputs}
        <button type="submit">${ats.fields ? 'Connect' : 'Send request'}</button>
      </form>
      <p><a href="?">Choose another ATS</a></p>`,
  };
}

/** Exactly what the connector's check proves and what it cannot (issue 24): never more than it did. */
function checkSays(ats: OfferedAts) {
  if (!ats.check) return '';
  return html`<p class="check"><strong>What the check proves:</strong> ${ats.check.proves}</p>
    ${ats.check.doesNotProve ? html`<p class="check"><strong>What it cannot prove:</strong> ${ats.check.doesNotProve}</p>` : ''}`;
}

function connectedPage(invitation: OpenInvitation, ats: OfferedAts): PageResult {
  const partner = invitation.partnerName || 'your partner';
  return {
    statusCode: 200,
    title: 'Connected',
    body: html`<h1>${invitation.company.name} is connected to ${ats.name}</h1>
      ${checkSays(ats)}
      <p>What happens next:</p>
      <ul>
        <li>Your published jobs are imported from ${ats.name} within the hour, and kept up to date from then on.</li>
        <li>Applications that candidates send through ${partner} are delivered to ${ats.name}.</li>
      </ul>
      <p>You can close this page. This link has now been used up.</p>`,
  };
}

function requestedPage(invitation: OpenInvitation, ats: OfferedAts): PageResult {
  return {
    statusCode: 200,
    title: 'Request received',
    body: html`<h1>Request received</h1>
      <p>
        We have recorded that ${invitation.company.name} uses ${ats.name} and told ${invitation.partnerName || 'your partner'}. We will
        write to you when ${ats.name} can be connected.
      </p>
      <p>You can close this page. This link has now been used up.</p>`,
  };
}

// ---------------------------------------------------------------------------------------------------
// Handlers

const tokenOf = (event: APIGatewayProxyEvent) => event.pathParameters?.token ?? '';

async function openOrPage(event: APIGatewayProxyEvent): Promise<OpenInvitation | PageResult> {
  const wait = await overLimit(addressScope(event), attemptsPerAddress());
  if (wait !== undefined) return tooManyPage(wait);
  const invitation = await openInvitation(tokenOf(event));
  if (invitation.state !== 'open') return linkNotValidPage();
  return invitation;
}

/** `GET /connect/{token}[?ats=slug]`: the ATS choice, or the chosen ATS's fields. */
export async function showConnectPage({ event }: { event: APIGatewayProxyEvent }): Promise<PageResult> {
  const invitation = await openOrPage(event);
  if (!('state' in invitation)) return invitation;
  const chosen = event.queryStringParameters?.ats;
  if (chosen === undefined) return choosePage(invitation);
  const ats = offeredAts(chosen);
  if (!ats) return choosePage(invitation, 400, new Map([['ats', ['Choose your ATS from the list.']]]));
  return fieldsPage(invitation, ats);
}

/** The urlencoded form body, by field name (a Map: names are the client's). */
function formFields(event: APIGatewayProxyEvent): Map<string, string> | undefined {
  const type = (Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '').split(';')[0];
  if (type.trim().toLowerCase() !== 'application/x-www-form-urlencoded') return undefined;
  const raw = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  if (Buffer.byteLength(raw) > MAX_FORM_BYTES) return undefined;
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(raw)) if (!fields.has(name)) fields.set(name, value);
  return fields;
}

/** `POST /connect/{token}`: checks the form token, the limits, then connects or records the request. */
export async function submitConnectForm({ event }: { event: APIGatewayProxyEvent }): Promise<PageResult> {
  const invitation = await openOrPage(event);
  if (!('state' in invitation)) return invitation;
  const form = formFields(event) ?? new Map<string, string>();
  const ats = offeredAts(form.get('ats') ?? '');
  const formToken = verifyFormToken(invitation.hash, form.get('form_token'));
  const expired = 'This form has expired or was not sent from this page. Nothing was saved; please fill it in again.';
  if (!formToken) {
    return ats
      ? fieldsPage(invitation, ats, { statusCode: 403, detail: expired, values: form })
      : choosePage(invitation, 403, new Map([['ats', [expired]]]));
  }
  const wait = await overLimit(`link#${invitation.hash}`, attemptsPerLink());
  if (wait !== undefined) return tooManyPage(wait);
  if (!(await claimForm(formToken.nonce, formToken.expires))) {
    const replayed = 'This form was sent already; sending it again changes nothing. Please fill in the form below.';
    return ats
      ? fieldsPage(invitation, ats, { statusCode: 409, detail: replayed, values: form })
      : choosePage(invitation, 409, new Map([['ats', [replayed]]]));
  }
  if (!ats) return choosePage(invitation, 400, new Map([['ats', ['Choose your ATS from the list.']]]));
  const input = Object.create(null) as Record<string, string>;
  for (const [name, value] of form) if (name !== 'form_token' && name !== 'ats') input[name] = value;
  try {
    if (ats.fields) {
      await connectThroughLink(invitation, ats.slug, input);
      return connectedPage(invitation, ats);
    }
    await requestAtsThroughLink(invitation, ats.slug, parseAtsRequest(input));
    return requestedPage(invitation, ats);
  } catch (error) {
    if (error instanceof MagicLinkGoneError) return linkNotValidPage();
    if (error instanceof ApiError && error.statusCode < 500) {
      const errors: Errors = new Map(Object.entries(error.errors ?? {}));
      return fieldsPage(invitation, ats, { statusCode: 400, detail: pageDetail(error, ats), errors, values: form });
    }
    throw error;
  }
}

/** What failed, in the page's words. */
function pageDetail(error: ApiError, ats: OfferedAts): string {
  if (error.code === 'credentials_rejected') return `${ats.name} did not accept these details. Check them and try again.`;
  if (error.code === 'ats_unreachable') return `${ats.name} could not be reached to check the details. Please try again in a few minutes.`;
  if (error.code === 'ats_invalid_response') return `${ats.name} answered the check with something unexpected. Please try again later.`;
  return 'Some details are missing or not valid. Check the fields marked below.';
}
