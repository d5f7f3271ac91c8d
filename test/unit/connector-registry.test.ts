/**
 * The connector registry (issue 24) is the one list of ATSs: a throwaway connector added to it appears in
 * every place that lists ATSs (the `ats` values and `ats_name`, the CLI's `company connect` flags, the
 * connect page's form, the README's table, the stack's settings), and the committed outputs are what the
 * registry gives today.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { trackingOf, type AtsConnector } from '#delivery/connectors/connector.js';
import {
  atsTableMarkdown,
  connectFlags,
  connectorFor,
  connectorSettings,
  connectors,
  loadConnector,
} from '#delivery/connectors/registry.js';
import { offeredAtss } from '#delivery/onboarding.js';
import { fieldsPage } from '#http/connect-page.js';
import { atsIntegrations } from '#companies/ats.js';
import { connectionCommands } from '../../local/admin/connections.js';
import { Session } from '../../local/admin/context.js';
import { atsUrlContext } from '../../lib/stage-config.js';
import { projectRoot } from '../../lib/project-paths.js';
import { ATS_INTEGRATIONS_FILE, atsIntegrationsModule, committed, readmeWithAtsTable } from '../../scripts/registry-outputs.js';

const throwaway: AtsConnector = {
  slug: 'throwaway',
  name: 'Throwaway ATS',
  credentialFields: [
    {
      name: 'tenant_code',
      flag: '--tenant-code',
      description: 'the throwaway tenant code',
      label: 'Tenant code',
      help: 'Settings → Tenant shows it.',
      pattern: /^[a-z]{3,10}$/,
    },
    {
      name: 'api_key',
      flag: '--api-key',
      description: 'the throwaway key',
      label: 'Throwaway key',
      help: 'Settings → Keys.',
      secret: true,
      pattern: /^.{8,}$/,
    },
    {
      name: 'zone',
      flag: '--zone',
      description: 'the zone',
      label: 'Zone',
      help: 'Where it runs.',
      pattern: /^.+$/,
      default: 'x',
      choices: ['x', 'y'],
    },
  ],
  settings: [
    { env: 'THROWAWAY_API_URL', default: 'https://{tenant_code}.throwaway.example', context: 'throwawayApiUrl', about: 'its API' },
  ],
  pacing: { requestsPerSecond: 1, importConcurrency: 1, documented: 'one per second' },
  outcomes: { by: 'none', reason: 'a throwaway ATS tells nothing' },
  check: { call: 'GET /whoami', proves: 'The tenant code and the key.', doesNotProve: 'Whether the key may write.' },
  attachments: { maxBytes: 1000 },
  submitApplication: () => Promise.reject(new Error('not for this test')),
  listPublishedJobs: () => Promise.resolve([]),
  validateCredentials: () => Promise.resolve(),
};
const registry = [...connectors, throwaway];

test('the ats values and ats_name come from the registry (the generated module lists the throwaway)', () => {
  const module = atsIntegrationsModule(registry);
  expect(module).toContain('{slug: "throwaway", name: "Throwaway ATS", connector: true, credentials: true}');
  // And what companies read today is the real registry, in its order, then the requestable ATSs.
  expect(atsIntegrations.filter((a) => a.connector).map((a) => a.slug)).toEqual(connectors.map((c) => c.slug));
  expect(atsIntegrations.find((a) => a.slug === 'greenhouse')?.name).toBe('Greenhouse');
});

test("the CLI's company connect takes the throwaway's flags, shares --api-key, and maps them to its field names", () => {
  const program = new Command('hiring-admin');
  program.command('company');
  program.command('jobs');
  connectionCommands(program, new Session(), registry);
  const connect = program.commands.find((c) => c.name() === 'company')!.commands.find((c) => c.name() === 'connect')!;
  const flags = connect.options.map((o) => o.long);
  expect(flags).toEqual(expect.arrayContaining(['--ats', '--tenant-code', '--zone', '--api-key', '--board-token', '--site']));
  expect(flags.filter((f) => f === '--api-key')).toHaveLength(1);
  const apiKey = connectFlags(registry).find((f) => f.flag === '--api-key')!;
  expect(apiKey.uses.map((u) => u.ats)).toEqual(expect.arrayContaining(['greenhouse', 'lever', 'throwaway']));
  expect(connect.helpInformation()).toContain('Throwaway ATS: the zone (default x)');
  expect(connect.options.find((o) => o.long === '--ats')!.description).toContain('throwaway');
});

test('a flag two connectors share must name the same field', () => {
  const clash: AtsConnector = {
    ...throwaway,
    slug: 'clash',
    credentialFields: [{ ...throwaway.credentialFields[0], name: 'other', flag: '--api-key' }],
  };
  expect(() => connectFlags([...registry, clash])).toThrow('--api-key names api_key and other');
  expect(() => connectFlags()).not.toThrow();
});

test('the connect page offers the throwaway with its fields (select, optional default) and says exactly what its check proves', () => {
  const offered = offeredAtss(registry).find((a) => a.slug === 'throwaway')!;
  expect(offered.fields?.map((f) => f.name)).toEqual(['tenant_code', 'api_key', 'zone']);
  const invitation = { state: 'open' as const, hash: 'h'.repeat(64), company: { name: 'Acme' } as never, partnerName: 'Jobs Inc' };
  const page = fieldsPage(invitation, offered).body.toString();
  expect(page).toContain('id="field-tenant_code"');
  expect(page).toMatch(/<input\s+type="password"\s+id="field-api_key"/);
  expect(page).toMatch(/<select id="field-zone" name="zone"/);
  expect(page).toContain('The tenant code and the key.');
  expect(page).toContain('Whether the key may write.');
  // An ATS whose check proves everything says nothing it cannot prove.
  const personio = fieldsPage(
    invitation,
    offeredAtss().find((a) => a.slug === 'personio')!,
  ).body.toString();
  expect(personio).not.toContain('What it cannot prove');
});

test("the README's table and the stack's settings list the throwaway", () => {
  expect(atsTableMarkdown(registry)).toContain(
    '| Throwaway ATS (`throwaway`) | `--tenant-code TENANT_CODE` `--api-key API_KEY` `--zone ZONE` (optional) | `THROWAWAY_API_URL` |',
  );
  expect(atsUrlContext(registry).throwawayApiUrl).toBe('THROWAWAY_API_URL');
  expect(connectorSettings(registry).map((s) => s.env)).toContain('THROWAWAY_API_URL');
});

test('the committed outputs are what the registry gives (else run `npm run validators`)', () => {
  expect(committed(ATS_INTEGRATIONS_FILE) === atsIntegrationsModule()).toBe(true);
  const readme = committed('README.md');
  expect(readmeWithAtsTable(readme) === readme).toBe(true);
});

test('every connector has its document, unique settings and context keys, and flags in kebab case', () => {
  for (const connector of connectors) expect(existsSync(join(projectRoot, 'docs/connectors', `${connector.slug}.md`))).toBe(true);
  const settings = connectorSettings();
  expect(new Set(settings.map((s) => s.env)).size).toBe(settings.length);
  expect(new Set(settings.map((s) => s.context)).size).toBe(settings.length);
  for (const connector of connectors)
    for (const field of connector.credentialFields) expect(field.flag).toBe(`--${field.name.replace(/_/g, '-')}`);
});

test('each descriptor loads its own connector, which carries exactly the descriptor and the three calls, and readOutcome or outcomeWebhooks exactly where it learns outcomes so (P283, P298, P301, P310)', async () => {
  for (const descriptor of connectors) {
    const connector = (await loadConnector(descriptor.slug))!;
    const reads = descriptor.outcomes.by === 'reading' ? ['readOutcome'] : descriptor.outcomes.by === 'webhook' ? ['outcomeWebhooks'] : [];
    expect({ slug: descriptor.slug, keys: Object.keys(connector).sort() }).toEqual({
      slug: descriptor.slug,
      keys: [...Object.keys(descriptor), 'listPublishedJobs', 'submitApplication', 'validateCredentials', ...reads].sort(),
    });
    const { submitApplication, listPublishedJobs, validateCredentials, readOutcome, outcomeWebhooks, ...declared } = connector;
    expect(declared).toEqual(descriptor);
    expect(typeof readOutcome).toBe(descriptor.outcomes.by === 'reading' ? 'function' : 'undefined');
    expect(typeof outcomeWebhooks?.verify).toBe(descriptor.outcomes.by === 'webhook' ? 'function' : 'undefined');
    expect([submitApplication, listPublishedJobs, validateCredentials].map((f) => typeof f)).toEqual(['function', 'function', 'function']);
    expect(connectorFor(descriptor.slug)).toBe(descriptor);
  }
  // A requestable ATS (no connector yet), an unknown one, and none.
  for (const ats of ['workday', 'nope', null, undefined]) {
    expect(connectorFor(ats)).toBeUndefined();
    await expect(loadConnector(ats)).resolves.toBeUndefined();
  }
});

test('outcomes (D21, P301, P310, P351, P358): six real ATSs read them with a documented call and its vendor page (Recruitee and Personio with their optional credentials), two take signed webhooks', () => {
  const bySlug = new Map(connectors.map((c) => [c.slug, c.outcomes]));
  const readers = ['workable', 'teamtailor', 'smartrecruiters', 'ashby', 'recruitee', 'personio'];
  for (const slug of readers) {
    const outcomes = bySlug.get(slug)!;
    expect({ slug, by: outcomes.by }).toEqual({ slug, by: 'reading' });
    if (outcomes.by !== 'reading') continue;
    expect(outcomes.call).toMatch(/^(GET|POST) \//);
    expect(new URL(outcomes.source).protocol).toBe('https:');
  }
  for (const slug of ['greenhouse', 'lever']) {
    const outcomes = bySlug.get(slug)!;
    expect({ slug, by: outcomes.by }).toEqual({ slug, by: 'webhook' });
    if (outcomes.by === 'webhook') expect(outcomes.source).toMatch(/^https:\/\/(developers\.greenhouse\.io|hire\.lever\.co)\//);
  }
  // P351: Recruitee reads only for a company that gave the optional api_token (a credential field without a value by
  // default); for the others it is `none`, the reason naming that field and the vendor page where the token is made.
  const recruitee = bySlug.get('recruitee')!;
  expect(recruitee.by === 'reading' && recruitee.needs?.field).toBe('api_token');
  expect(connectorFor('recruitee')!.credentialFields.find((f) => f.name === 'api_token')).toMatchObject({ secret: true, default: '' });
  expect(trackingOf(recruitee, undefined)).toEqual({
    by: 'none',
    reason: expect.stringMatching(/api_token.*https:\/\/docs\.recruitee\.com\//),
  });
  expect(trackingOf(recruitee, ['webhook_signature_tokens']).by).toBe('none');
  expect(trackingOf(recruitee, ['api_token'])).toBe(recruitee);
  // P358: Personio reads only for a company that gave the optional API v2 client credentials (both fields, checked
  // together); for the others the reason names them, the scope and the vendor pages.
  const personio = bySlug.get('personio')!;
  expect(personio.by === 'reading' && personio.needs?.field).toBe('api_client_id');
  for (const name of ['api_client_id', 'api_client_secret'])
    expect(connectorFor('personio')!.credentialFields.find((f) => f.name === name)).toMatchObject({ secret: true, default: '' });
  expect(trackingOf(personio, undefined)).toEqual({
    by: 'none',
    reason: expect.stringMatching(/api_client_id.*personio:recruiting:read.*https:\/\/developer\.personio\.de\//),
  });
  expect(trackingOf(personio, ['api_client_id', 'api_client_secret'])).toBe(personio);
  // Where reading needs a permission the credentials check does not prove, the check says so.
  expect(connectorFor('workable')!.check.doesNotProve).toContain('r_candidates');
  expect(connectorFor('ashby')!.check.doesNotProve).toContain('candidatesRead');
  // The README's ATS table has the outcomes column (issue 43).
  const table = atsTableMarkdown();
  expect(table).toContain('| read: `GET /spi/v3/candidates/{id}` | [docs](docs/connectors/workable.md) |');
  expect(table).toContain('| its signed webhooks | [docs](docs/connectors/lever.md) |');
  expect(table).toContain(
    '| read: `GET /v2/recruiting/applications/{id}` with the optional `api_client_id`, else not tracked | [docs](docs/connectors/personio.md) |',
  );
  expect(table).toContain(
    '| read: `GET /c/{company}/candidates/{id}` with the optional `api_token`, else not tracked | [docs](docs/connectors/recruitee.md) |',
  );
  expect(atsTableMarkdown(registry)).toContain('| not tracked (see its docs) | [docs](docs/connectors/throwaway.md) |');
});
