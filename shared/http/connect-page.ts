/**
 * The connect page (D20, issue 14): `GET /connect/{token}` and its form's `POST /connect/{token}`. Plain
 * server-rendered HTML without script, in two steps that work without JavaScript: choose the ATS (a GET
 * form, `?ats=`), then enter exactly the credential fields its connector names (label and one line of help
 * each, from the connector) or, for a listed ATS without a connector, a contact for the request.
 *
 * Security: the token is the only authority and acts on its own company only (`openInvitation`). The
 * POST carries a form token bound to the link by an HMAC and used once (a replayed form changes nothing);
 * attempts are counted per client address (every request) and per link (every POST) in fixed one-hour
 * windows in the table (TTL), beyond which a 429 page answers (`connect-form.ts`). Every token that opens
 * nothing (malformed, unknown, used, revoked, expired) gets the same plain 404 page, which names no company and
 * not the case (P219); the one exception is the very form that used the link, sent again, which gets the
 * outcome page again (P271). A body that is not a web form is 415, one over 16 KB 413 (D2).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiError } from '#platform/errors.js';
import { MagicLinkGoneError, outcomeStatusOf } from '#delivery/ats-connections.js';
import { atsWebhookSetup, type AtsWebhookSetup } from '#delivery/ats-webhooks.js';
import {
  connectThroughLink,
  invitationStillOpen,
  offeredAts,
  offeredAtss,
  openInvitation,
  parseAtsRequest,
  requestAtsThroughLink,
  settledInvitation,
  type Invitation,
  type OfferedAts,
  type SettledInvitation,
} from '#delivery/onboarding.js';
import {
  addressScope,
  attemptsPerAddress,
  attemptsPerLink,
  claimForm,
  formFields,
  formUse,
  markFormRefused,
  MAX_FORM_BYTES,
  mintFormToken,
  overLimit,
  verifyFormToken,
} from '#http/connect-form.js';
import { html, type Html, type PageResult } from '#http/pages.js';
import { publicBase } from '#http/public-base.js';

type OpenInvitation = Extract<Invitation, { state: 'open' }>;
/** What the outcome pages name: the company and the partner. */
type Shown = Pick<OpenInvitation, 'company' | 'partnerName'>;

/**
 * How long a form sent twice waits for the first submission's outcome (its credentials check) before saying it is
 * still running: `CONNECT_RESUBMIT_WAIT_MS`, 3 s by default (tests on a loaded machine wait longer).
 */
const resubmitWaitMs = () => Number(process.env.CONNECT_RESUBMIT_WAIT_MS ?? 3000);
const RESUBMIT_POLL_MS = 250;

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

/** A POST whose body is not a web form (JSON, multipart, none): 415 (D2), nothing read or saved. */
const notAFormPage = (): PageResult => ({
  statusCode: 415,
  title: 'Form not readable',
  body: html`<h1>This form could not be read</h1>
    <p>It did not arrive as a web form from this page, so nothing was read and nothing was saved.</p>
    <p><a href="?">Open the form again</a> and send it from there.</p>`,
});

/** A form body over 16 KB: 413 (D2), nothing read or saved. */
const formTooLargePage = (): PageResult => ({
  statusCode: 413,
  title: 'Form too large',
  body: html`<h1>This form is too large</h1>
    <p>
      A form may hold at most ${MAX_FORM_BYTES / 1024} KB, and this one held more, so nothing was read and nothing was saved. Check that
      each field holds only the detail it asks for.
    </p>
    <p><a href="?">Open the form again</a> and send it from there.</p>`,
});

/** A form sent again while its first submission is still being checked with the ATS: 409, the second changes nothing. */
const stillCheckingPage = (ats: OfferedAts | undefined): PageResult => ({
  statusCode: 409,
  title: 'Still being checked',
  body: html`<h1>Your details are still being checked</h1>
    <p>
      This form was sent twice. The first submission is still being checked${ats ? html` with ${ats.name}` : ''}; sending it again changes
      nothing.
    </p>
    <p>
      Wait a minute, then <a href="?">open this link again</a>. If the connection worked, the link has been used up and says it is no longer
      valid; otherwise it shows the form.
    </p>`,
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
        ${checkSays(ats)} ${outcomesSay(ats)}`
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

/**
 * P310: for an ATS that tells outcomes by its signed webhooks, the URL (and our secret, where the vendor takes one)
 * to paste into it. Shown right after connecting; a page shown again later without it points to the partner.
 */
function webhookSays(ats: OfferedAts, hook: AtsWebhookSetup | undefined) {
  if (!hook) return '';
  return html`<h2>Tell us what becomes of each application</h2>
    <p>${ats.name} reports progress by webhooks. Add one with this URL: <code>${hook.url}</code></p>
    ${
      hook.secret
        ? html`<p>Its secret key: <code>${hook.secret}</code> (keep it private; it is shown only here and to your partner).</p>`
        : html`<p>${ats.name} gives each webhook its own signature token: send them to your partner, who adds them to the connection.</p>`
    }
    <p>Events: ${hook.events} (<a href="${hook.source}">${ats.name}’s documentation</a>)</p>`;
}

/** Whether outcomes are tracked (P323): how, or why not and what the vendor offers instead. */
function outcomesSay(ats: OfferedAts) {
  const outcomes = ats.outcomes;
  if (!outcomes) return '';
  const says =
    outcomes.tracked === 'none'
      ? html`not tracked. ${outcomes.detail}`
      : outcomes.tracked === 'webhook'
        ? html`${ats.name} tells us through its webhooks: ${outcomes.detail}`
        : html`read from ${ats.name} (${outcomes.detail}).`;
  return html`<p class="check outcomes"><strong>What becomes of applications (hired, rejected):</strong> ${says}</p>`;
}

function connectedPage(invitation: Shown, ats: OfferedAts, hook?: AtsWebhookSetup): PageResult {
  const partner = invitation.partnerName || 'your partner';
  return {
    statusCode: 200,
    title: 'Connected',
    body: html`<h1>${invitation.company.name} is connected to ${ats.name}</h1>
      ${checkSays(ats)} ${outcomesSay(ats)}
      <p>What happens next:</p>
      <ul>
        <li>Your published jobs are imported from ${ats.name} within the hour, and kept up to date from then on.</li>
        <li>Applications that candidates send through ${partner} are delivered to ${ats.name}.</li>
      </ul>
      ${webhookSays(ats, hook)}
      <p>You can close this page. This link has now been used up.</p>`,
  };
}

function requestedPage(invitation: Shown, ats: OfferedAts): PageResult {
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

/** The page of a settled link: what its connection or request left. */
function settledPage(settled: SettledInvitation): PageResult | undefined {
  const ats = offeredAts(settled.company.ats ?? '');
  if (!ats) return undefined;
  // P351: what the company's own connection does about outcomes (an optional credential given or not).
  return settled.state === 'connected'
    ? connectedPage(settled, { ...ats, outcomes: outcomeStatusOf(settled.company) })
    : requestedPage(settled, ats);
}

/**
 * A form sent again after its link was used (a reload of the answer, a second click that came late): when the
 * form is genuine for this link and was sent before, the outcome page again, else undefined (the "no longer
 * valid" page). Nothing is written.
 */
async function resentAfterUse(event: APIGatewayProxyEvent): Promise<PageResult | undefined> {
  const form = formFields(event);
  if (!(form instanceof Map)) return undefined;
  const settled = await settledInvitation(tokenOf(event));
  const formToken = settled && verifyFormToken(settled.hash, form.get('form_token'));
  if (!formToken || !(await formUse(formToken.nonce))) return undefined;
  return settledPage(settled);
}

/**
 * A form whose nonce was claimed already (P271): two submissions of one form, say a double click. Waits up to
 * `CONNECT_RESUBMIT_WAIT_MS` for the first to settle: the link used, then its outcome page (200, the same answer the first
 * got); the first refused, then the form again (409); still running, the "still being checked" page (409).
 */
async function sentBefore(
  event: APIGatewayProxyEvent,
  invitation: OpenInvitation,
  nonce: string,
  ats: OfferedAts | undefined,
  form: Map<string, string>,
) {
  const deadline = Date.now() + resubmitWaitMs();
  for (;;) {
    if (!(await invitationStillOpen(invitation))) {
      const settled = await settledInvitation(tokenOf(event));
      return (settled && settledPage(settled)) ?? linkNotValidPage();
    }
    if ((await formUse(nonce))?.refused) {
      const replayed = 'This form was sent already; sending it again changes nothing. Please fill in the form below.';
      return ats
        ? fieldsPage(invitation, ats, { statusCode: 409, detail: replayed, values: form })
        : choosePage(invitation, 409, new Map([['ats', [replayed]]]));
    }
    if (Date.now() >= deadline) return stillCheckingPage(ats);
    await new Promise((resolve) => setTimeout(resolve, RESUBMIT_POLL_MS));
  }
}

/** `POST /connect/{token}`: checks the body, the form token, the limits, then connects or records the request. */
export async function submitConnectForm({ event }: { event: APIGatewayProxyEvent }): Promise<PageResult> {
  const wait = await overLimit(addressScope(event), attemptsPerAddress());
  if (wait !== undefined) return tooManyPage(wait);
  const invitation = await openInvitation(tokenOf(event));
  if (invitation.state !== 'open') return (await resentAfterUse(event)) ?? linkNotValidPage();
  const form = formFields(event);
  if (form === 415) return notAFormPage();
  if (form === 413) return formTooLargePage();
  const ats = offeredAts(form.get('ats') ?? '');
  const formToken = verifyFormToken(invitation.hash, form.get('form_token'));
  const expired = 'This form has expired or was not sent from this page. Nothing was saved; please fill it in again.';
  if (!formToken) {
    return ats
      ? fieldsPage(invitation, ats, { statusCode: 403, detail: expired, values: form })
      : choosePage(invitation, 403, new Map([['ats', [expired]]]));
  }
  const linkWait = await overLimit(`link#${invitation.hash}`, attemptsPerLink());
  if (linkWait !== undefined) return tooManyPage(linkWait);
  if (!(await claimForm(formToken.nonce, formToken.expires))) return sentBefore(event, invitation, formToken.nonce, ats, form);
  if (!ats) {
    await markFormRefused(formToken.nonce);
    return choosePage(invitation, 400, new Map([['ats', ['Choose your ATS from the list.']]]));
  }
  const input = Object.create(null) as Record<string, string>;
  for (const [name, value] of form) if (name !== 'form_token' && name !== 'ats') input[name] = value;
  try {
    if (ats.fields) {
      const outcomes = await connectThroughLink(invitation, ats.slug, input);
      return connectedPage(
        invitation,
        { ...ats, outcomes },
        await atsWebhookSetup({ id: invitation.company.id, ats: ats.slug }, publicBase(event)),
      );
    }
    await requestAtsThroughLink(invitation, ats.slug, parseAtsRequest(input));
    return requestedPage(invitation, ats);
  } catch (error) {
    if (error instanceof MagicLinkGoneError) return linkNotValidPage();
    // Whatever else failed, a resend of this form shows the form again rather than waiting on it (P271).
    await markFormRefused(formToken.nonce);
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
