/**
 * The magic link against the company lifecycle, and the connect form's edges (D17, D20, P271), over HTTP into
 * this file's runtime (its own, so the connect page's attempt counters start at zero): a link never undoes an
 * operator's deactivation, `magic_link` is `null` whenever the link cannot be used, a form that is not a form
 * or is too large is 415/413, and a form sent twice tells what became of the first.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { keys } from '#platform/keys.js';
import { inviteCompany } from '#companies/invites.js';
import { hashToken } from '#companies/magic-links.js';
import { setCompanyFields, setCompanyStatus } from '#companies/company-store.js';
import { MagicLinkGoneError } from '#delivery/ats-connections.js';
import { connectThroughLink, openInvitation, requestAtsThroughLink } from '#delivery/onboarding.js';
import { mintFormToken } from '#http/connect-form.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';
import { bareEnv, runAdminTool } from '../helpers/admin-cli.js';

let api: TestRuntime;
let greenhouse: GreenhouseSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;

function cli(...args: string[]): Promise<{ code: number; json: any }> {
  return runAdminTool(args, bareEnv(api.runtime.dataDir));
}

beforeAll(async () => {
  greenhouse = await startGreenhouseSimulator();
  greenhouse.boards.set('acme', { token: 'acme', apiKey: 'the-right-key', jobs: [{ id: 7, title: 'Cook', content: '<p>Cooks.</p>' }] });
  Object.assign(process.env, greenhouse.env);
  api = await startTestRuntime();
  partner = await aPartner();
});
afterAll(async () => {
  await api.stop();
  await greenhouse.server.stop();
});

const tokenOf = (link: string) => /\/connect\/([A-Za-z0-9_-]{43})$/.exec(link)![1];
const listed = async (id: number) =>
  (await api.get('/companies/?page_size=50', { key: partner.key })).body.results.find((c: { id: number }) => c.id === id);

async function invite(name: string) {
  const company = await inviteCompany({ partner: partner.id, name }, api.url);
  return { company, token: tokenOf(company.magic_link!) };
}

async function page(method: string, path: string, form?: Record<string, string>) {
  return raw(method, path, form && { 'Content-Type': 'application/x-www-form-urlencoded' }, form && new URLSearchParams(form).toString());
}

/** A request with any body and headers; the answer's status, content type and text (whitespace normalised). */
async function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string | FormData) {
  const response = await fetch(`${api.url}${path}`, { method, headers, body });
  return { status: response.status, type: response.headers.get('content-type'), text: (await response.text()).replace(/\s+/g, ' ') };
}

const formToken = (html: string) => /name="form_token" value="([^"]+)"/.exec(html)![1];
const linkState = async (token: string) =>
  (await db().send(new GetCommand({ TableName: config().tableName, Key: keys.magicLink(hashToken(token)), ConsistentRead: true }))).Item
    ?.state;
const greenhouseForm = async (token: string) => ({
  form_token: formToken((await page('GET', `/connect/${token}?ats=greenhouse`)).text),
  ats: 'greenhouse',
  board_token: 'acme',
  api_key: 'the-right-key',
});

describe('the link and the company lifecycle', () => {
  test('deactivating an invited company takes its link away: the page, a form opened before, the API and invite-link', async () => {
    const { company, token } = await invite('Deactivated Link GmbH');
    const connect = await greenhouseForm(token);
    const request = {
      form_token: formToken((await page('GET', `/connect/${token}?ats=workday`)).text),
      ats: 'workday',
      contact_name: 'Dora',
      contact_email: 'dora@deactivated.example',
    };
    const out = await cli('company', 'set-status', String(company.id), 'deactivated');
    expect(out.json).toMatchObject({ status: 'deactivated', magic_link: null });
    expect(await listed(company.id)).toMatchObject({ status: 'deactivated', magic_link: null });
    expect(await linkState(token)).toBe('revoked');
    const shown = await page('GET', `/connect/${token}`);
    expect(shown.status).toBe(404);
    expect(shown.text).toContain('This link is no longer valid');
    // Forms opened before the deactivation connect nothing and request nothing: it stays deactivated.
    expect((await page('POST', `/connect/${token}`, connect)).status).toBe(404);
    expect((await page('POST', `/connect/${token}`, request)).status).toBe(404);
    expect(await listed(company.id)).toMatchObject({ status: 'deactivated', ats: null, contact_name: null, magic_link: null });
    // No new link for it while deactivated; set back to invited, it gets one, and that one works.
    expect((await cli('company', 'invite-link', String(company.id))).json).toMatchObject({ code: 'company_inactive' });
    expect((await cli('company', 'set-status', String(company.id), 'invited')).json).toMatchObject({ magic_link: null });
    const fresh = await cli('company', 'invite-link', String(company.id));
    expect(fresh.code).toBe(0);
    expect((await page('GET', `/connect/${token}`)).status).toBe(404);
    expect((await page('GET', `/connect/${tokenOf(fresh.json.magic_link)}`)).status).toBe(200);
    expect((await listed(company.id)).magic_link).toBe(fresh.json.magic_link);
  });

  test('a deactivation between opening the link and submitting wins over the submission', async () => {
    for (const submit of ['connect', 'request'] as const) {
      const { company, token } = await invite(`Raced ${submit} AG`);
      const opened = await openInvitation(token);
      if (opened.state !== 'open') throw new Error('the invitation should open');
      // The operator's write lands after the page opened the link, and even leaves the lookup item active:
      // only the check on the company as it is written decides.
      await setCompanyFields(company.id, { status: 'deactivated' });
      const attempt =
        submit === 'connect'
          ? connectThroughLink(opened, 'greenhouse', { board_token: 'acme', api_key: 'the-right-key' })
          : requestAtsThroughLink(opened, 'workday', { contact_name: 'Rae', contact_email: 'rae@raced.example' });
      await expect(attempt).rejects.toBeInstanceOf(MagicLinkGoneError);
      expect(await listed(company.id)).toMatchObject({ status: 'deactivated', ats: null, magic_link: null });
      expect(await linkState(token)).toBe('active');
    }
  });

  test('magic_link is null whenever the link cannot be used: a connected, failing, deleted or deactivated company', async () => {
    for (const status of ['active', 'failing', 'deleted', 'deactivated'] as const) {
      const { company, token } = await invite(`Stored ${status} Oy`);
      // As stored before P271: the status moved, the record still holds the sealed link.
      await setCompanyFields(company.id, { status });
      expect({ status, magic_link: (await listed(company.id)).magic_link }).toEqual({ status, magic_link: null });
      expect((await page('GET', `/connect/${token}`)).status).toBe(404);
    }
    // set-status takes the link away for good: back to invited, the old link stays dead.
    const { company, token } = await invite('Set Active Ltd');
    expect((await cli('company', 'set-status', String(company.id), 'active')).json).toMatchObject({ magic_link: null });
    expect(await linkState(token)).toBe('revoked');
    await setCompanyStatus(company.id, 'invited');
    expect((await listed(company.id)).magic_link).toBeNull();
    expect((await page('GET', `/connect/${token}`)).status).toBe(404);
  });

  test('a requested company keeps its link, and may later connect a supported ATS through a new one', async () => {
    const { company, token } = await invite('Requested Later SA');
    await setCompanyStatus(company.id, 'requested');
    expect((await listed(company.id)).magic_link).toBe(company.magic_link);
    const form = await page('GET', `/connect/${token}?ats=workday`);
    const requested = await page('POST', `/connect/${token}`, {
      form_token: formToken(form.text),
      ats: 'workday',
      contact_name: 'Rita',
      contact_email: 'rita@later.example',
    });
    expect(requested.status).toBe(200);
    expect(await listed(company.id)).toMatchObject({ status: 'requested', ats: 'workday', magic_link: null });
    const again = await cli('company', 'invite-link', String(company.id));
    expect(again.code).toBe(0);
    const next = tokenOf(again.json.magic_link);
    expect((await page('POST', `/connect/${next}`, await greenhouseForm(next))).status).toBe(200);
    expect(await listed(company.id)).toMatchObject({ status: 'active', ats: 'greenhouse', magic_link: null });
  });
});

describe('the form: what is not a form, and a form sent twice', () => {
  test('a body that is not a web form is 415, one over 16 KB is 413, each a page saying so; nothing is saved and the form still works', async () => {
    const { company, token } = await invite('Form Bodies KG');
    const form = await greenhouseForm(token);
    const path = `/connect/${token}`;
    const multipart = new FormData();
    for (const [name, value] of Object.entries(form)) multipart.append(name, value);
    const notForms = new Map([
      ['json', await raw('POST', path, { 'Content-Type': 'application/json' }, JSON.stringify(form))],
      ['multipart', await raw('POST', path, {}, multipart)],
      ['text', await raw('POST', path, { 'Content-Type': 'text/plain' }, new URLSearchParams(form).toString())],
      ['none', await raw('POST', path)],
    ]);
    for (const [name, answer] of notForms) {
      expect({ name, status: answer.status, type: answer.type }).toEqual({ name, status: 415, type: 'text/html; charset=utf-8' });
      expect(answer.text).toContain('<h1>This form could not be read</h1>');
      expect(answer.text).toContain('nothing was saved');
    }
    const padded = new URLSearchParams({ ...form, note: 'x'.repeat(16 * 1024) }).toString();
    const large = await raw('POST', path, { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' }, padded);
    expect({ status: large.status, type: large.type }).toEqual({ status: 413, type: 'text/html; charset=utf-8' });
    expect(large.text).toContain('<h1>This form is too large</h1>');
    expect(large.text).toContain('at most 16 KB');
    expect(await listed(company.id)).toMatchObject({ status: 'invited', ats: null });
    // None of them used the form: sent as a form, it connects.
    const sent = await page('POST', path, form);
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('is connected to Greenhouse');
    // A used link keeps its one page for anything else (P219), whatever the body.
    expect((await raw('POST', path, { 'Content-Type': 'application/json' }, '{}')).status).toBe(404);
  });

  test('two submissions of one form while the first is checked: both answer that it connected, and it connected once', async () => {
    const { company, token } = await invite('Double Click GmbH');
    const form = await greenhouseForm(token);
    const board = greenhouse.boards.get('acme')!;
    const checks = () => greenhouse.requestsTo(/^\/greenhouse\/v1\/boards\/acme\/jobs$/).filter((r) => r.method === 'GET').length;
    const checksBefore = checks();
    board.listDelayMs = 1200;
    // The second waits for the first's outcome; on a loaded machine the first's check can outlast the 3 s default.
    process.env.CONNECT_RESUBMIT_WAIT_MS = '30000';
    try {
      const first = page('POST', `/connect/${token}`, form);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = await page('POST', `/connect/${token}`, form);
      for (const answer of [await first, second]) {
        expect(answer.status).toBe(200);
        expect(answer.text).toContain('<h1>Double Click GmbH is connected to Greenhouse</h1>');
      }
    } finally {
      board.listDelayMs = undefined;
      delete process.env.CONNECT_RESUBMIT_WAIT_MS;
    }
    // One credentials check reached Greenhouse: the second submission waited for the first instead.
    expect(checks() - checksBefore).toBe(1);
    expect(await listed(company.id)).toMatchObject({ status: 'active', ats: 'greenhouse', magic_link: null });
    // Sent again later (a reload of the answer): the same page again; another genuine form of the link, never
    // sent, gets the one "no longer valid" page (P219).
    const reloaded = await page('POST', `/connect/${token}`, form);
    expect(reloaded.status).toBe(200);
    expect(reloaded.text).toContain('is connected to Greenhouse');
    const unsent = { ...form, form_token: mintFormToken(hashToken(token)) };
    expect((await page('POST', `/connect/${token}`, unsent)).status).toBe(404);
  });

  test('a request sent twice answers "request received" both times', async () => {
    const { company, token } = await invite('Double Request AB');
    const form = {
      form_token: formToken((await page('GET', `/connect/${token}?ats=workday`)).text),
      ats: 'workday',
      contact_name: 'Dag',
      contact_email: 'dag@double.example',
    };
    process.env.CONNECT_RESUBMIT_WAIT_MS = '30000'; // as above: the second waits out the first however slow the machine
    const answers = await Promise.all([page('POST', `/connect/${token}`, form), page('POST', `/connect/${token}`, form)]).finally(
      () => delete process.env.CONNECT_RESUBMIT_WAIT_MS,
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('<h1>Request received</h1>');
    }
    expect(await listed(company.id)).toMatchObject({ status: 'requested', ats: 'workday', contact_name: 'Dag' });
  });

  test('a form sent again while the first submission is still running says so (409) and changes nothing', async () => {
    const { company, token } = await invite('Slow Check SE');
    const form = await greenhouseForm(token);
    // The first submission has claimed the form and is still at the ATS (it never finishes here).
    const nonce = form.form_token.split('.')[1];
    await db().send(new PutCommand({ TableName: config().tableName, Item: { ...keys.formUse(nonce) } }));
    const started = Date.now();
    const second = await page('POST', `/connect/${token}`, form);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
    expect(second.status).toBe(409);
    expect(second.text).toContain('<h1>Your details are still being checked</h1>');
    expect(second.text).toContain('The first submission is still being checked with Greenhouse');
    expect(await listed(company.id)).toMatchObject({ status: 'invited', ats: null, magic_link: company.magic_link });
  });
});
