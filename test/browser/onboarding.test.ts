/**
 * The connect page and the API reference in a real browser (issue 14): Debian's Chromium (`/usr/bin/chromium`,
 * or CHROMIUM_PATH) driven headless by playwright-core against this file's local runtime, with the
 * Greenhouse simulator on loopback standing in for Greenhouse. Every page is checked with axe-core (its
 * source evaluated in the page: the pages' CSP allows no injected script tag) for serious and critical
 * violations. `WRITE_SCREENSHOT=1` also writes docs/connect-page.png for the README.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { inviteCompany, reissueMagicLink } from '#companies/invites.js';
import { runWithClock } from '#platform/clock.js';
import { openApiDocument } from '#http/openapi.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';

/** The page's document, in the functions that run in the browser (the project compiles without the DOM library). */
declare const document: { body: { innerText: string }; activeElement: { id: string; getAttribute(name: string): string | null } | null };

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const AXE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

let api: TestRuntime;
let greenhouse: GreenhouseSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;
let profile: string;
let browser: BrowserContext;
let page: Page;
/** Requests the pages made to any other origin than the service's, and how each ended. */
const foreign: { url: string; outcome: string }[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)`);
  greenhouse = await startGreenhouseSimulator();
  greenhouse.boards.set('acme', { token: 'acme', apiKey: 'the-right-key', jobs: [{ id: 7, title: 'Cook', content: '<p>Cooks.</p>' }] });
  Object.assign(process.env, greenhouse.env);
  api = await startTestRuntime();
  partner = await aPartner('Jobboard Partner');
  profile = mkdtempSync(join(tmpdir(), 'his-chromium-'));
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  page = browser.pages()[0] ?? (await browser.newPage());
  const elsewhere = (url: string) => !url.startsWith(api.url) && !url.startsWith('data:');
  page.on('requestfinished', (request) => {
    if (elsewhere(request.url())) foreign.push({ url: request.url(), outcome: 'loaded' });
  });
  page.on('requestfailed', (request) => {
    if (elsewhere(request.url())) foreign.push({ url: request.url(), outcome: request.failure()?.errorText ?? 'failed' });
  });
});

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await api?.stop();
  await greenhouse?.server.stop();
});

/** axe-core on the current page: no violation of serious or critical impact (but for rules `known` names). */
async function expectAccessible(known: string[] = []) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
    return (result.violations as { id: string; impact: string; nodes: { target: string[]; failureSummary: string }[] }[]).map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
  });
  expect(violations.filter((v) => (v.impact === 'serious' || v.impact === 'critical') && !known.includes(v.id))).toEqual([]);
}

const invite = async (name: string) => (await inviteCompany({ partner: partner.id, name }, api.url)).magic_link!;
const listed = async (id: number) =>
  (await api.get('/companies/?page_size=50', { key: partner.key })).body.results.find((c: { id: number }) => c.id === id);
const idOf = async (name: string) =>
  ((await api.get('/companies/?page_size=50', { key: partner.key })).body.results as { id: number; name: string }[]).find(
    (c) => c.name === name,
  )!.id;

test('invite → open the link → Greenhouse → a wrong board token shows the error → the right one connects', async () => {
  const link = await invite('Acme Bakery');
  const opened = await page.goto(link);
  expect(opened!.status()).toBe(200);
  expect(await page.locator('h1').innerText()).toBe('Connect Acme Bakery to Jobboard Partner');
  await expectAccessible();

  // Keyboard only: the first ATS is the first stop; arrows move within the group; Enter submits.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('value'))).toBe('greenhouse');
  await page.keyboard.press('Space');
  await Promise.all([page.waitForURL(/\?ats=greenhouse$/), page.keyboard.press('Enter')]);
  expect(await page.getByRole('textbox', { name: 'Job board token' }).count()).toBe(1);
  expect(await page.getByLabel('Job Board API key').getAttribute('type')).toBe('password');
  // The company's credentials are not the person's: no autofill offers or stores them (P271).
  for (const label of ['Job board token', 'Job Board API key'])
    expect(await page.getByLabel(label).getAttribute('autocomplete')).toBe('off');
  // The page says exactly what the check will prove, and what it cannot (issue 24).
  expect(await page.locator('main').innerText()).toContain('What the check proves');
  expect(await page.locator('main').innerText()).toContain('What it cannot prove');
  await expectAccessible();
  if (process.env.WRITE_SCREENSHOT === '1')
    await page.screenshot({ path: join(process.cwd(), 'docs', 'connect-page.png'), fullPage: true });

  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('field-board_token');
  await page.keyboard.type('wrong-board');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('field-api_key');
  await page.keyboard.type('the-right-key');
  await Promise.all([page.waitForLoadState('load'), page.keyboard.press('Enter')]);
  await page.waitForSelector('#error-summary');
  // Focus lands on the error summary (announced as an alert), whose links lead to the fields.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('error-summary');
  expect(await page.locator('#error-summary').innerText()).toContain('Greenhouse did not accept these details');
  expect(await page.locator('#error-summary a').getAttribute('href')).toBe('#field-board_token');
  const field = page.locator('#field-board_token');
  expect(await field.getAttribute('aria-invalid')).toBe('true');
  expect(await field.inputValue()).toBe('wrong-board');
  expect(await page.locator('#field-api_key').inputValue()).toBe('');
  // The error is part of the field's accessible description.
  expect(await page.locator(`#${(await field.getAttribute('aria-describedby'))!.split(' ')[1]}`).innerText()).toContain(
    'no job board with that token',
  );
  await expectAccessible();

  // The right board with a wrong Job Board API key is refused too (P211), on the key's own field.
  await field.fill('acme');
  await page.locator('#field-api_key').fill('a-wrong-key');
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Connect' }).click()]);
  await page.waitForSelector('#error-summary');
  expect(await page.locator('#error-summary a').getAttribute('href')).toBe('#field-api_key');
  expect(await page.locator('#field-api_key').getAttribute('aria-invalid')).toBe('true');
  expect(await listed(await idOf('Acme Bakery'))).toMatchObject({ status: 'invited' });

  await page.locator('#field-board_token').fill('acme');
  await page.locator('#field-api_key').fill('the-right-key');
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Connect' }).click()]);
  await page.waitForSelector('text=What happens next');
  expect(await page.locator('h1').innerText()).toBe('Acme Bakery is connected to Greenhouse');
  expect(await page.locator('main').innerText()).toContain('within the hour');
  await expectAccessible();

  expect(await listed(await idOf('Acme Bakery'))).toMatchObject({ status: 'active', ats: 'greenhouse', magic_link: null });

  // The used link now shows the one page for links that open nothing (P219).
  const used = await page.goto(link);
  expect(used!.status()).toBe(404);
  expect(await page.locator('h1').innerText()).toBe('This link is no longer valid');
  await expectAccessible();
});

test('the page says whether outcomes are tracked: read from Workable; Recruitee and Personio not, why, and what they offer (P323)', async () => {
  const link = await invite('Outcome Bakery');
  const says = async (ats: string) => {
    expect((await page.goto(`${link}?ats=${ats}`))!.status()).toBe(200);
    return page.locator('p.outcomes').innerText();
  };
  const workable = await says('workable');
  expect(workable).toContain('read from Workable');
  expect(workable).not.toContain('not tracked');
  const recruitee = await says('recruitee');
  expect(recruitee).toContain('not tracked');
  expect(recruitee).toContain('personal API token');
  const personio = await says('personio');
  expect(personio).toContain('not tracked');
  expect(personio).toContain('personio:recruiting:read');
  await expectAccessible();
});

test('malformed, unknown, expired and revoked links all show the same HTML page with the same status (P219)', async () => {
  const expired = await runWithClock(new Date(Date.now() - 15 * 86_400_000), () => invite('Old Invite Ltd'));
  const revoked = await invite('Revoked Invite Ltd');
  await reissueMagicLink(await idOf('Revoked Invite Ltd'), api.url);
  const links = new Map([
    ['expired', expired],
    ['revoked', revoked],
    ['unknown', `${api.url}/connect/${'A'.repeat(43)}`],
    ['not a token', `${api.url}/connect/not-a-token`],
    // Malformed percent-encoding used to fail in path decoding, before the page, with the API's JSON 404.
    ['bad percent-encoding', `${api.url}/connect/%E0%A4%A`],
    ['a lone percent sign', `${api.url}/connect/%`],
    ['an encoded NUL', `${api.url}/connect/%00`],
    ['cut-off link with a query', `${api.url}/connect/${expired.split('/').pop()!.slice(0, 20)}?ats=greenhouse`],
  ]);
  const seen = new Map<string, { status: number; type: string | undefined; h1: string; main: string }>();
  for (const [name, url] of links) {
    const response = (await page.goto(url))!;
    seen.set(name, {
      status: response.status(),
      type: (await response.allHeaders())['content-type'],
      h1: await page.locator('h1').innerText(),
      main: await page.locator('main').innerText(),
    });
    expect(seen.get(name)!.main).not.toMatch(/Old Invite|Revoked Invite|Jobboard Partner/);
    await expectAccessible();
  }
  const expected = { status: 404, type: 'text/html; charset=utf-8', h1: 'This link is no longer valid', main: seen.get('unknown')!.main };
  for (const [name, answer] of seen) expect({ name, ...answer }).toEqual({ name, ...expected });
});

test('a link submitted after it stopped working shows the same page, and nothing is stored', async () => {
  const link = await invite('Late Submit Ltd');
  await page.goto(`${link}?ats=workday`);
  await page.getByLabel('Your name').fill('Lena Late');
  await page.getByLabel('Your e-mail address').fill('lena@late.example');
  await reissueMagicLink(await idOf('Late Submit Ltd'), api.url);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Send request' }).click(),
  ]);
  await page.waitForLoadState('load');
  expect(response.status()).toBe(404);
  expect(await page.locator('h1').innerText()).toBe('This link is no longer valid');
  await expectAccessible();
  expect(await listed(await idOf('Late Submit Ltd'))).toMatchObject({ status: 'invited', ats: null });
});

test('an ATS without a connector ends `requested` with the contact', async () => {
  const link = await invite('Workday User AG');
  await page.goto(link);
  await page.getByLabel('Workday').check();
  await Promise.all([page.waitForURL(/\?ats=workday$/), page.getByRole('button', { name: 'Continue' }).click()]);
  await page.getByRole('button', { name: 'Send request' }).click();
  await page.waitForSelector('#error-summary');
  await expectAccessible();
  // The person's own name and address are named for autofill (WCAG 1.3.5, P271).
  expect(await page.getByLabel('Your name').getAttribute('autocomplete')).toBe('name');
  expect(await page.getByLabel('Your e-mail address').getAttribute('autocomplete')).toBe('email');
  await page.getByLabel('Your name').fill('Hanna HR');
  await page.getByLabel('Your e-mail address').fill('hanna@workday-user.example');
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Send request' }).click()]);
  await page.waitForSelector('text=Request received');
  await expectAccessible();
  expect(await listed(await idOf('Workday User AG'))).toMatchObject({
    status: 'requested',
    ats: 'workday',
    contact_email: 'hanna@workday-user.example',
    magic_link: null,
  });
});

test('at 320 CSS pixels a long single-word company name wraps: nothing scrolls sideways (WCAG 1.4.10, P271)', async () => {
  const name = 'Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaft';
  const link = await invite(name);
  const wide = page.viewportSize();
  await page.setViewportSize({ width: 320, height: 640 });
  try {
    for (const url of [link, `${link}?ats=greenhouse`, `${link}?ats=workday`]) {
      expect((await page.goto(url))!.status()).toBe(200);
      expect(await page.locator('h1').innerText()).toContain(name);
      const layout = await page.evaluate(() => {
        const doc = (globalThis as any).document;
        const main = doc.querySelector('main');
        return {
          // The stylesheet applied (the CSP allows it by its hash), and the page is no wider than the viewport.
          wrap: (globalThis as any).getComputedStyle(main).overflowWrap,
          scrollWidth: doc.documentElement.scrollWidth,
          clientWidth: doc.documentElement.clientWidth,
          mainScrollWidth: main.scrollWidth,
          mainClientWidth: main.clientWidth,
        };
      });
      expect(layout.wrap).toBe('anywhere');
      expect(layout.clientWidth).toBe(320);
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
      expect(layout.mainScrollWidth).toBeLessThanOrEqual(layout.mainClientWidth);
      await expectAccessible();
    }
  } finally {
    await page.setViewportSize(wide ?? { width: 1280, height: 720 });
  }
});

test('the keyboard focus ring contrasts at least 3:1 with what it is drawn on, on every kind of control (WCAG 1.4.11, P271)', async () => {
  const link = await invite('Focus Ring GmbH');
  /** The focused element's outline, and its contrast with the background of the nearest ancestor that has one. */
  const ring = () =>
    page.evaluate(() => {
      const g = globalThis as any;
      const element = g.document.activeElement;
      const style = g.getComputedStyle(element);
      const rgba = (color: string) => {
        const [r, gr, b, a = 1] = (color.match(/[\d.]+/g) ?? []).map(Number);
        return { rgb: [r, gr, b], alpha: a };
      };
      let background = [255, 255, 255];
      for (let node = element.parentElement; node; node = node.parentElement) {
        const color = rgba(g.getComputedStyle(node).backgroundColor);
        if (color.alpha > 0) {
          background = color.rgb;
          break;
        }
      }
      const channel = (v: number) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
      const luminance = ([r, gr, b]: number[]) => 0.2126 * channel(r) + 0.7152 * channel(gr) + 0.0722 * channel(b);
      const [light, dark] = [luminance(rgba(style.outlineColor).rgb), luminance(background)].sort((x, y) => y - x);
      return {
        tag: `${element.tagName.toLowerCase()}${element.type ? `[${element.type}]` : ''}`,
        style: style.outlineStyle,
        width: parseFloat(style.outlineWidth),
        contrast: Math.round(((light + 0.05) / (dark + 0.05)) * 100) / 100,
      };
    });
  const seen: Awaited<ReturnType<typeof ring>>[] = [];
  await page.goto(link);
  await page.keyboard.press('Tab'); // the first ATS (a radio button)
  seen.push(await ring());
  await page.goto(`${link}?ats=greenhouse`);
  await page.keyboard.press('Tab'); // the first credential field
  seen.push(await ring());
  await page.locator('button[type=submit]').focus();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab'); // the button, reached by keyboard
  seen.push(await ring());
  await page.keyboard.press('Tab'); // "Choose another ATS"
  seen.push(await ring());
  expect(seen.map((s) => s.tag)).toEqual(['input[radio]', 'input[text]', 'button[submit]', 'a']);
  for (const focus of seen) {
    expect({ tag: focus.tag, style: focus.style }).toEqual({ tag: focus.tag, style: 'solid' });
    expect(focus.width).toBeGreaterThanOrEqual(2);
    expect({ tag: focus.tag, enough: focus.contrast >= 3 }).toEqual({ tag: focus.tag, enough: true });
  }
});

test('/docs renders every operation of the interface', async () => {
  const response = await page.goto(`${api.url}/docs`);
  expect(response!.status()).toBe(200);
  const operations = Object.values(openApiDocument().paths as Record<string, Record<string, { summary: string; tags?: string[] }>>).flatMap(
    (p) => Object.values(p),
  );
  expect(operations.length).toBeGreaterThan(5);
  // Redoc hydrates the pre-rendered page; its navigation lists every operation under its tag, opened by a click.
  await page.waitForFunction(() => !document.body.innerText.includes('Loading...'), undefined, { timeout: 20_000 });
  // (One tag open at a time: what each showed is collected.)
  let seen = '';
  for (const tag of new Set(operations.flatMap((o) => o.tags ?? []))) {
    const ofTag = operations.filter((o) => o.tags?.includes(tag)).map((o) => o.summary);
    if (!ofTag.every((summary) => seen.includes(summary))) {
      const before = await page.locator('body').innerText();
      if (!ofTag.every((summary) => before.includes(summary))) await page.getByText(tag, { exact: true }).first().click();
      await page.waitForFunction((names) => names.every((n) => document.body.innerText.includes(n)), ofTag, { timeout: 5_000 });
    }
    seen += await page.locator('body').innerText();
    // No rule excused: the build fixes Redoc's contrast and names its dropdowns by their visible text (P147).
    await expectAccessible();
  }
  for (const { summary } of operations) expect(seen).toContain(summary);
});

test('no page loaded anything from another host: the CSP blocks what Redoc would fetch (its attribution logo)', () => {
  for (const request of foreign) expect(request).toEqual({ url: request.url, outcome: 'csp' });
});
