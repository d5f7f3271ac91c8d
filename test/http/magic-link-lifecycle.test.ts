/**
 * The magic link against the company lifecycle, and the connect form's edges (D17, D20, P271), over HTTP into
 * this file's runtime (its own, so the connect page's attempt counters start at zero): a link never undoes an
 * operator's deactivation, `magic_link` is `null` whenever the link cannot be used, a form that is not a form
 * or is too large is 415/413, and a form sent twice tells what became of the first.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { keys } from '#platform/keys.js';
import { inviteCompany } from '#companies/invites.js';
import { hashToken } from '#companies/magic-links.js';
import { setCompanyFields, setCompanyStatus } from '#companies/company-store.js';
import { MagicLinkGoneError } from '#delivery/ats-connections.js';
import { connectThroughLink, openInvitation, requestAtsThroughLink } from '#delivery/onboarding.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';

let api: TestRuntime;
let greenhouse: GreenhouseSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;

function cli(...args: string[]): Promise<{ code: number; json: any }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: api.runtime.dataDir, LOG_LEVEL: 'SILENT' };
  return new Promise((resolve) => {
    execFile(process.execPath, [join(process.cwd(), 'bin', 'hiring-admin.js'), ...args], { env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      let json: unknown;
      try {
        json = JSON.parse(code === 0 ? stdout : stderr);
      } catch {
        json = undefined;
      }
      resolve({ code, json });
    });
  });
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
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  return { status: response.status, text: (await response.text()).replace(/\s+/g, ' ') };
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
