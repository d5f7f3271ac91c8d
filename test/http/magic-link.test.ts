/**
 * Invites and the connect page (issue 14, D20) over HTTP, without a browser: the admin commands (the real
 * bin shim against this file's runtime), `magic_link` in the API, and the page's security properties
 * (headers, form token, replay, attempt limits, one "not valid" page, tokens never logged, tenancy), with the Greenhouse
 * simulator on loopback standing in for Greenhouse.
 */
import { jest } from '@jest/globals';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config, db, sqs } from '#platform/clients.js';
import { runWithClock } from '#platform/clock.js';
import { keys } from '#platform/keys.js';
import { logger } from '#platform/logger.js';
import { inviteCompany, reissueMagicLink } from '#companies/invites.js';
import { hashToken } from '#companies/magic-links.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { contractFetch, startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';
import { bareEnv, runAdminTool } from '../helpers/admin-cli.js';

let api: TestRuntime;
let greenhouse: GreenhouseSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;
let other: Awaited<ReturnType<typeof aPartner>>;
const logged: string[] = [];
const written = (chunk: unknown) => logged.push(String(chunk));
/** Every token this file used, to look for in the logs at the end. */
const tokens = new Set<string>();

function cli(...args: string[]): Promise<{ code: number; json: any; stderr: string }> {
  return runAdminTool(args, bareEnv(api.runtime.dataDir));
}

beforeAll(async () => {
  greenhouse = await startGreenhouseSimulator();
  greenhouse.boards.set('acme', { token: 'acme', apiKey: 'the-right-key', jobs: [{ id: 7, title: 'Cook', content: '<p>Cooks.</p>' }] });
  Object.assign(process.env, greenhouse.env);
  api = await startTestRuntime();
  api.runtime.emulators.fauxqs.createQueue(EVENTS_QUEUE);
  api.runtime.emulators.fauxqs.subscribe({ topic: 'his-local-events', queue: EVENTS_QUEUE });
  partner = await aPartner();
  other = await aPartner();
  // Everything the service logs in this process (the page functions run in it) is kept to look for tokens.
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written(chunk), true));
  jest.spyOn(console, 'log').mockImplementation((...args) => written(args.join(' ')));
  jest.spyOn(console, 'info').mockImplementation((...args) => written(args.join(' ')));
  jest.spyOn(console, 'error').mockImplementation((...args) => written(args.join(' ')));
  jest.spyOn(console, 'warn').mockImplementation((...args) => written(args.join(' ')));
  logger.setLogLevel('INFO');
});
afterAll(async () => {
  jest.restoreAllMocks();
  await api.stop();
  await greenhouse.server.stop();
});

const EVENTS_QUEUE = 'events-magic-link';
async function events(): Promise<Record<string, any>[]> {
  await api.runtime.relay.drain(); // events reach the topic through the relay (P115, P240)
  const url = `http://127.0.0.1:${api.runtime.emulators.fauxqs.port}/000000000000/${EVENTS_QUEUE}`;
  const out: Record<string, any>[] = [];
  for (;;) {
    const res = await sqs().send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!res.Messages?.length) return out;
    for (const m of res.Messages) {
      const body = JSON.parse(m.Body!);
      out.push(JSON.parse(body.Message ?? m.Body!));
      await sqs().send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}

const tokenOf = (link: string) => /\/connect\/([A-Za-z0-9_-]{43})$/.exec(link)![1];
const listed = async (key: string, id: number) =>
  (await api.get('/companies/?page_size=50', { key })).body.results.find((c: { id: number }) => c.id === id);

async function invite(name = 'Acme') {
  const company = await inviteCompany({ partner: partner.id, name, contact_email: 'hr@acme.example' }, api.url);
  return { company, token: tokenOf(company.magic_link!) };
}

async function page(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
  const token = /^\/connect\/([^/?]+)/.exec(path)?.[1];
  if (token && token.length > 20) tokens.add(token);
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: form ? { 'Content-Type': 'application/x-www-form-urlencoded', ...headers } : headers,
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  // Whitespace normalised: the templates are formatted as HTML, attributes on lines of their own.
  return { status: response.status, headers: response.headers, text: (await response.text()).replace(/\s+/g, ' ') };
}

const formToken = (html: string) => /name="form_token" value="([^"]+)"/.exec(html)![1];

describe('admin commands', () => {
  test('invite prints an invited company whose magic_link is {base}/connect/{token}; the API shows the same link', async () => {
    const out = await cli('company', 'invite', '--partner', String(partner.id), '--name', 'Invited GmbH', '--contact-email', 'a@b.example');
    expect(out.code).toBe(0);
    expect(out.json).toMatchObject({ status: 'invited', name: 'Invited GmbH', contact_email: 'a@b.example', ats: null });
    expect(out.json.magic_link).toMatch(new RegExp(`^${api.url}/connect/[A-Za-z0-9_-]{43}$`));
    expect((await listed(partner.key, out.json.id)).magic_link).toBe(out.json.magic_link);
    // The token is kept only sealed: neither it nor the link is anywhere in the stored company.
    const stored = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.company(out.json.id) }));
    expect(JSON.stringify(stored.Item)).not.toContain(tokenOf(out.json.magic_link));
    expect(stored.Item!.magic_link_token.hash).toBe(hashToken(tokenOf(out.json.magic_link)));
  });

  test('invite-link replaces the link (the old one answers the not-valid page); bad input is a D2 error that changes nothing', async () => {
    const { company, token } = await invite('Relink AG');
    const out = await cli('company', 'invite-link', String(company.id));
    expect(out.code).toBe(0);
    expect(out.json.magic_link).not.toBe(company.magic_link);
    expect((await page('GET', `/connect/${token}`)).status).toBe(404);
    expect((await page('GET', `/connect/${tokenOf(out.json.magic_link)}`)).status).toBe(200);

    const missing = await cli('company', 'invite', '--partner', String(partner.id));
    expect(missing.code).toBe(2);
    const badEmail = await cli('company', 'invite', '--partner', String(partner.id), '--name', 'X', '--contact-email', 'nope');
    expect(badEmail.code).toBe(1);
    expect(Object.keys(badEmail.json.errors)).toEqual(['contact_email']);
    const noPartner = await cli('company', 'invite', '--partner', '999999', '--name', 'X');
    expect(noPartner.json).toMatchObject({ code: 'not_found' });
    const active = await aCompany(partner.id);
    const connected = await cli('company', 'invite-link', String(active.id));
    expect(connected.json).toMatchObject({ code: 'company_connected' });
    expect((await listed(partner.key, active.id)).magic_link).toBeNull();
    expect((await cli('company', 'invite-link', '999999')).json).toMatchObject({ code: 'not_found' });
  });
});

describe('the connect page', () => {
  test('sends a strict CSP without script, X-Frame-Options DENY, no referrer, no caching', async () => {
    const { token } = await invite();
    for (const response of [
      await page('GET', `/connect/${token}`),
      await page('GET', `/connect/${token}?ats=greenhouse`),
      await page('GET', '/connect/x'),
    ]) {
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self'");
      expect(csp).not.toMatch(/script-src|unsafe-inline/);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.text).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
    }
  });

  test('lists the ATSs, then exactly the connector fields with labels and help tied to them', async () => {
    const { token } = await invite('Fields KG');
    const choose = await page('GET', `/connect/${token}`);
    expect(choose.text).toContain('Connect Fields KG to');
    for (const name of ['Greenhouse', 'Lever', 'Personio', 'Workday']) expect(choose.text).toContain(`>${name}</label>`);
    expect(choose.text).not.toContain('Sandbox');
    const fields = await page('GET', `/connect/${token}?ats=greenhouse`);
    const inputs = [...fields.text.matchAll(/<input type="(text|password)" id="field-([a-z_]+)"[^>]*aria-describedby="([^"]+)"/g)];
    expect(inputs.map((m) => m[2])).toEqual(['board_token', 'api_key']);
    expect(inputs.map((m) => m[1])).toEqual(['text', 'password']);
    for (const [, , name, describedBy] of inputs) {
      expect(fields.text).toContain(`<label for="field-${name}">`);
      expect(fields.text).toContain(`id="${describedBy}"`);
    }
    expect((await page('GET', `/connect/${token}?ats=nope`)).status).toBe(400);
  });

  test('wrong credentials bring the form back with the error tied to the field; right ones connect once', async () => {
    const { company, token } = await invite('Connect SE');
    const form = await page('GET', `/connect/${token}?ats=greenhouse`);
    const wrong = await page('POST', `/connect/${token}`, {
      form_token: formToken(form.text),
      ats: 'greenhouse',
      board_token: 'wrong-board',
      api_key: 'the-right-key',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Greenhouse did not accept these details');
    expect(wrong.text).toMatch(/id="field-board_token"[^>]*aria-describedby="board_token-help board_token-error" aria-invalid="true"/);
    // What was typed comes back, except the secret.
    expect(wrong.text).toContain('value="wrong-board"');
    expect(wrong.text).not.toContain('the-right-key');
    expect(await listed(partner.key, company.id)).toMatchObject({ status: 'invited', ats: null, magic_link: company.magic_link });

    const missing = await page('POST', `/connect/${token}`, { form_token: formToken(wrong.text), ats: 'greenhouse', board_token: 'acme' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('api_key-error');

    const right = { form_token: formToken(missing.text), ats: 'greenhouse', board_token: 'acme', api_key: 'the-right-key' };
    const done = await page('POST', `/connect/${token}`, right);
    expect(done.status).toBe(200);
    expect(done.text).toContain('is connected to Greenhouse');
    expect(done.text).toContain('within the hour');
    expect(await listed(partner.key, company.id)).toMatchObject({
      status: 'active',
      ats: 'greenhouse',
      magic_link: null,
      job_sync_active: true,
      candidate_sync_active: true,
    });
    // Used up: the page answers the not-valid page; the very form that used it, sent again (a reload), gets the
    // same answer again and changes nothing (P271).
    expect((await page('GET', `/connect/${token}`)).status).toBe(404);
    const reloaded = await page('POST', `/connect/${token}`, right);
    expect(reloaded.status).toBe(200);
    expect(reloaded.text).toContain('is connected to Greenhouse');
  });

  test('a form without a valid token is refused (403), a replayed form changes nothing (409)', async () => {
    const { company, token } = await invite('Csrf BV');
    const other = await invite('Other BV');
    const base = { ats: 'greenhouse', board_token: 'acme', api_key: 'the-right-key' };
    expect((await page('POST', `/connect/${token}`, base)).status).toBe(403);
    expect((await page('POST', `/connect/${token}`, { ...base, form_token: 'forged.x.y' })).status).toBe(403);
    // A form token minted for another link does not work on this one.
    const foreign = formToken((await page('GET', `/connect/${other.token}?ats=greenhouse`)).text);
    const refused = await page('POST', `/connect/${token}`, { ...base, form_token: foreign });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('This form has expired or was not sent from this page');
    // A form as a JSON body is not a form (415, P271).
    const json = await fetch(`${api.url}/connect/${token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(base),
    });
    expect(json.status).toBe(415);
    expect(await listed(partner.key, company.id)).toMatchObject({ status: 'invited' });

    const sent = formToken((await page('GET', `/connect/${token}?ats=greenhouse`)).text);
    expect((await page('POST', `/connect/${token}`, { ...base, board_token: 'wrong-board', form_token: sent })).status).toBe(400);
    const replay = await page('POST', `/connect/${token}`, { ...base, form_token: sent });
    expect(replay.status).toBe(409);
    expect(replay.text).toContain('sending it again changes nothing');
    expect(await listed(partner.key, company.id)).toMatchObject({ status: 'invited', ats: null });
  });

  test('an ATS without a connector is recorded as a request with the contact, and an event is emitted', async () => {
    const { company, token } = await invite('Request Oy');
    const form = await page('GET', `/connect/${token}?ats=workday`);
    expect(form.text).toContain('field-contact_email');
    const bad = await page('POST', `/connect/${token}`, {
      form_token: formToken(form.text),
      ats: 'workday',
      contact_name: '',
      contact_email: 'x',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('contact_name-error');
    expect(await listed(partner.key, company.id)).toMatchObject({ status: 'invited' });
    const ok = await page('POST', `/connect/${token}`, {
      form_token: formToken(bad.text),
      ats: 'workday',
      contact_name: 'Hanna HR',
      contact_email: 'hanna@request.example',
    });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('Request received');
    expect(await listed(partner.key, company.id)).toMatchObject({
      status: 'requested',
      ats: 'workday',
      contact_name: 'Hanna HR',
      contact_email: 'hanna@request.example',
      magic_link: null,
    });
    const emitted = (await events()).filter((e) => e.company === company.id);
    expect(emitted.map((e) => [e.type, e.data])).toEqual([['company.ats_requested', { ats: 'workday', status: 'requested' }]]);
  });

  test('malformed, unknown, expired, used and revoked tokens all get one page: same status, same text, no company (P219)', async () => {
    const expired = await runWithClock(new Date(Date.now() - 15 * 86_400_000), () => invite('Expired Ltd'));
    const revoked = await invite('Revoked Ltd');
    expect((await cli('company', 'invite-link', String(revoked.company.id))).code).toBe(0);
    const used = await invite('Used Ltd');
    const ats = await page('GET', `/connect/${used.token}?ats=workday`);
    expect(
      (
        await page('POST', `/connect/${used.token}`, {
          form_token: formToken(ats.text),
          ats: 'workday',
          contact_name: 'Ada',
          contact_email: 'ada@used.example',
        })
      ).status,
    ).toBe(200);
    const answers = new Map([
      ['unknown', await page('GET', `/connect/${'A'.repeat(43)}`)],
      ['short', await page('GET', '/connect/short')],
      ['markup', await page('GET', `/connect/${encodeURIComponent('<script>')}`)],
      ['bad percent-encoding', await page('GET', '/connect/%E0%A4%A')],
      ['lone percent', await page('GET', '/connect/%')],
      ['NUL', await page('GET', '/connect/%00')],
      ['unknown, posted', await page('POST', `/connect/${'A'.repeat(43)}`, { ats: 'greenhouse' })],
      ['bad percent-encoding, posted', await page('POST', '/connect/%E0%A4%A', { ats: 'greenhouse' })],
      ['expired', await page('GET', `/connect/${expired.token}`)],
      ['expired, with ?ats', await page('GET', `/connect/${expired.token}?ats=greenhouse`)],
      ['revoked', await page('GET', `/connect/${revoked.token}`)],
      ['used', await page('GET', `/connect/${used.token}`)],
    ]);
    const body = (text: string) => /<main id="main">(.*)<\/main>/.exec(text)?.[1];
    const first = answers.get('unknown')!;
    expect(first.status).toBe(404);
    expect(body(first.text)).toContain('This link is no longer valid');
    for (const [name, answer] of answers) {
      expect({ name, status: answer.status, type: answer.headers.get('content-type'), body: body(answer.text) }).toEqual({
        name,
        status: 404,
        type: 'text/html; charset=utf-8',
        body: body(first.text),
      });
      expect(answer.text).not.toMatch(/Expired Ltd|Revoked Ltd|Used Ltd|Acme|<form|expired|used already|revoked/i);
    }
    // Nothing was stored for any of them: the expired link's company is as it was, the used one stays requested.
    expect(await listed(partner.key, expired.company.id)).toMatchObject({ status: 'invited', magic_link: null });
    expect(await listed(partner.key, used.company.id)).toMatchObject({ status: 'requested' });
  });

  test('the other token pages answer a malformed token with their own HTML page, never JSON (P220)', async () => {
    for (const path of ['/r/%E0%A4%A', '/r/%E0%A4%A/unsubscribe', '/r/%']) {
      const response = await fetch(`${api.url}${path}`, { redirect: 'manual' });
      expect({ path, status: response.status, type: response.headers.get('content-type') }).toEqual({
        path,
        status: 404,
        type: 'text/html; charset=utf-8',
      });
    }
  });

  test('the API outside the pages still answers a bad path segment in the D2 shape (nothing changes there)', async () => {
    const response = await contractFetch(`${api.url}/companies/%E0%A4%A`, { headers: { Authorization: `Bearer ${partner.key}` } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/(problem\+)?json/);
    expect(await response.json()).toMatchObject({ code: expect.any(String), detail: expect.any(String) });
  });

  test('attempts are limited per link (form posts) and per address (every request): 429 with Retry-After', async () => {
    const { token } = await invite('Limited Inc');
    process.env.CONNECT_ATTEMPTS_PER_LINK = '3';
    try {
      let last = await page('GET', `/connect/${token}?ats=greenhouse`);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        last = await page('POST', `/connect/${token}`, {
          form_token: formToken(last.text),
          ats: 'greenhouse',
          board_token: 'wrong-board',
          api_key: 'the-right-key',
        });
        statuses.push(last.status);
        if (last.status === 429) break;
      }
      expect(statuses).toEqual([400, 400, 400, 429]);
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(last.text).toContain('Too many attempts');
    } finally {
      delete process.env.CONNECT_ATTEMPTS_PER_LINK;
    }
    process.env.CONNECT_ATTEMPTS_PER_ADDRESS = '1';
    try {
      // This address has made many requests this hour already: even an unknown token gets the 429 now.
      expect((await page('GET', `/connect/${'B'.repeat(43)}`)).status).toBe(429);
    } finally {
      delete process.env.CONNECT_ATTEMPTS_PER_ADDRESS;
    }
  });

  test('a token only acts on its own company; another partner sees neither the company nor its link', async () => {
    const { company, token } = await invite('Tenant A');
    const foreign = await inviteCompany({ partner: other.id, name: 'Tenant B' }, api.url);
    expect(await listed(other.key, company.id)).toBeUndefined();
    expect(await listed(partner.key, foreign.id)).toBeUndefined();
    // The page of A's token names A only, whatever else the request names.
    const shown = await page('GET', `/connect/${token}?company=${foreign.id}&ats=greenhouse`);
    expect(shown.text).toContain('Tenant A');
    expect(shown.text).not.toContain('Tenant B');
    const done = await page('POST', `/connect/${token}`, {
      form_token: formToken(shown.text),
      ats: 'greenhouse',
      board_token: 'acme',
      api_key: 'the-right-key',
    });
    expect(done.status).toBe(200);
    expect(await listed(other.key, foreign.id)).toMatchObject({ status: 'invited', ats: null });
    expect((await listed(other.key, foreign.id)).magic_link).toBe(foreign.magic_link);
    // A company key of A sees its own link only; the PATCH response shows it too.
    const reissued = await reissueMagicLink(foreign.id, api.url);
    const key = (await import('#companies/api-keys.js')).createApiKey;
    const companyKey = await key({ company: foreign.id });
    const patched = await api.request('PATCH', `/companies/${foreign.id}/`, {
      key: companyKey.key,
      companyId: foreign.id,
      body: { city: 'Oslo' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.magic_link).toBe(reissued.magic_link);
  });

  test('no token is ever written to the logs', () => {
    const all = logged.join('\n');
    expect(all).toContain('"route":"ConnectSubmit"');
    expect(all).not.toMatch(/\/connect\//);
    expect(tokens.size).toBeGreaterThan(10);
    for (const token of tokens) expect(all).not.toContain(token);
  });
});
