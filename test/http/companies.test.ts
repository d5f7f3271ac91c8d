import { createCompany } from '#companies/company-store.js';
import { seedCompanies } from '#companies/company-seeding.js';
import { isDeepStrictEqual } from 'node:util';
import { batchDelete, batchPut } from '#platform/batch.js';
import { WALK_PREFIX } from '#platform/keys.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { allItems } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

const COMPANY_FIELDS = [
  'id',
  'name',
  'slug',
  'ats',
  'ats_name',
  'partner',
  'partner_company_id',
  'website',
  'logo',
  'primary_color',
  'street',
  'city',
  'country',
  'postcode',
  'job_sync_active',
  'candidate_sync_active',
  'contact_name',
  'contact_email',
  'contact_phone',
  'jobs_last_synced_at',
  'status',
  'is_test',
  'magic_link',
  'created_at',
  'updated_at',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let other: Awaited<ReturnType<typeof aPartner>>;
const names = ['Acme Robotics', 'Beta Bakery', 'Gamma Logistics', 'acme labs', 'Delta Health'];
const ids: Record<string, number> = {};

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  other = await aPartner();
  ids['Acme Robotics'] = (
    await createCompany({
      partner: partner.id,
      name: 'Acme Robotics',
      ats: 'sandbox',
      status: 'active',
      partner_company_id: 'PC-1',
      entitlements: ['job_sync', 'candidate_sync'],
    })
  ).id;
  ids['Beta Bakery'] = (
    await createCompany({
      partner: partner.id,
      name: 'Beta Bakery',
      ats: 'greenhouse',
      status: 'invited',
      partner_company_id: 'PC-2',
      entitlements: ['job_sync', 'candidate_sync'],
    })
  ).id;
  ids['Gamma Logistics'] = (
    await createCompany({
      partner: partner.id,
      name: 'Gamma Logistics',
      ats: 'lever',
      status: 'failing',
      partner_company_id: 'acme-partner-ref',
    })
  ).id;
  ids['acme labs'] = (
    await createCompany({ partner: partner.id, name: 'acme labs', ats: 'sandbox', status: 'deactivated', entitlements: ['candidate_sync'] })
  ).id;
  ids['Delta Health'] = (await createCompany({ partner: partner.id, name: 'Delta Health', status: 'requested' })).id;
  // Another partner's company with a name that matches filters used below: it must never show up.
  await createCompany({ partner: other.id, name: 'Acme Foreign', ats: 'sandbox', status: 'active', partner_company_id: 'PC-1' });
});
afterAll(() => api.stop());

const list = (query = '', key = partner.key) => api.get(`/companies/${query}`, { key });
const namesOf = (res: { body: { results: { name: string }[] } }) => res.body.results.map((c) => c.name);

describe('GET /companies/', () => {
  test('a partner key lists exactly its partner companies, newest first, in the Company shape', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(5);
    expect(namesOf(res)).toEqual([...names].reverse());
    const company = res.body.results.find((c: { name: string }) => c.name === 'Acme Robotics');
    expect(Object.keys(company)).toEqual(COMPANY_FIELDS);
    expect(company).toMatchObject({
      id: ids['Acme Robotics'],
      slug: 'acme-robotics',
      ats: 'sandbox',
      ats_name: 'Sandbox ATS',
      partner: partner.id,
      partner_company_id: 'PC-1',
      job_sync_active: true,
      candidate_sync_active: true,
      status: 'active',
      is_test: false,
      magic_link: null,
    });
    expect(company.created_at).toMatch(ISO);
    expect(company.updated_at).toMatch(ISO);
  });

  test('works without the trailing slash too, and needs no Company-Id', async () => {
    const res = await api.get('/companies', { key: partner.key });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(5);
  });

  test('a company key sees only its own company', async () => {
    const mine = await aCompany(other.id, { name: 'Own Company' });
    const res = await list('', mine.key);
    expect(res.body.count).toBe(1);
    expect(namesOf(res)).toEqual(['Own Company']);
  });

  test('sync flags derive from entitlements and a connected ATS (D15)', async () => {
    const res = await list('?ordering=name');
    const flags = Object.fromEntries(res.body.results.map((c: any) => [c.name, [c.job_sync_active, c.candidate_sync_active]]));
    expect(flags).toEqual({
      'Acme Robotics': [true, true],
      'acme labs': [false, true],
      // greenhouse is not connected, so nothing is active though entitled
      'Beta Bakery': [false, false],
      'Delta Health': [false, false],
      'Gamma Logistics': [false, false],
    });
  });

  test.each([
    ['?name=ACME', ['acme labs', 'Acme Robotics']],
    ['?ats=sandbox', ['acme labs', 'Acme Robotics']],
    ['?ats=sand', []],
    ['?partner_company_id=PC-2', ['Beta Bakery']],
    ['?partner_company_id=PC', []],
    ['?status=active', ['Acme Robotics']],
    ['?status=active&status=failing', ['Gamma Logistics', 'Acme Robotics']],
    ['?search=acme', ['acme labs', 'Gamma Logistics', 'Acme Robotics']],
    ['?search=LEVER', ['Gamma Logistics']],
    ['?candidate_sync_active=true', ['acme labs', 'Acme Robotics']],
    ['?candidate_sync_active=0', ['Delta Health', 'Gamma Logistics', 'Beta Bakery']],
    ['?job_sync_active=1', ['Acme Robotics']],
    ['?job_sync_active=false&candidate_sync_active=true', ['acme labs']],
    ['?name=acme&status=deactivated', ['acme labs']],
    ['?unknown=1&name=beta', ['Beta Bakery']],
  ])('filter %s', async (query, expected) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    expect(namesOf(res)).toEqual(expected);
    expect(res.body.count).toBe(expected.length);
  });

  test.each([
    ['name', ['acme labs', 'Acme Robotics', 'Beta Bakery', 'Delta Health', 'Gamma Logistics']],
    ['-name', ['Gamma Logistics', 'Delta Health', 'Beta Bakery', 'Acme Robotics', 'acme labs']],
    ['status', ['Acme Robotics', 'acme labs', 'Gamma Logistics', 'Beta Bakery', 'Delta Health']],
    ['created_at', names],
    ['-created_at', [...names].reverse()],
    ['updated_at', names],
    ['bogus', [...names].reverse()],
    ['-status,name', ['Delta Health', 'Beta Bakery', 'Gamma Logistics', 'acme labs', 'Acme Robotics']],
  ])('ordering=%s', async (ordering, expected) => {
    expect(namesOf(await list(`?ordering=${ordering}`))).toEqual(expected);
  });

  test.each([
    ['status=gone', 'status'],
    ['status=active&status=nope', 'status'],
    ['candidate_sync_active=yes', 'candidate_sync_active'],
    ['job_sync_active=2', 'job_sync_active'],
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['page_size=-5', 'page_size'],
    ['page_size=1.5', 'page_size'],
  ])('bad value %s is a 400 naming the parameter', async (query, param) => {
    const res = await list(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid');
    expect(Object.keys(res.body.errors)).toEqual([param]);
    expect(res.body.detail).toContain(param);
  });

  test('pagination: page size, absolute links keeping filters, page past the end', async () => {
    const first = await list('?page_size=2&ordering=name&search=a');
    expect(first.body.count).toBe(5);
    expect(namesOf(first)).toEqual(['acme labs', 'Acme Robotics']);
    expect(first.body.previous).toBeNull();
    const next = new URL(first.body.next);
    expect(next.origin).toBe(api.url);
    expect(next.pathname).toBe('/companies/');
    expect(next.searchParams.get('page')).toBe('2');
    expect(next.searchParams.get('page_size')).toBe('2');
    expect(next.searchParams.get('ordering')).toBe('name');
    expect(next.searchParams.get('search')).toBe('a');

    const second = await api.get(next.pathname + next.search, { key: partner.key });
    expect(namesOf(second)).toEqual(['Beta Bakery', 'Delta Health']);
    expect(new URL(second.body.previous).searchParams.get('page')).toBe('1');
    const third = await api.get(new URL(second.body.next).pathname + new URL(second.body.next).search, { key: partner.key });
    expect(namesOf(third)).toEqual(['Gamma Logistics']);
    expect(third.body.next).toBeNull();

    const past = await list('?page_size=2&page=9');
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ count: 5, next: null, results: [] });
  });

  test('page_size above 50 is capped, default is 10', async () => {
    // Through the batched seeding path (P335): the page size is the subject, not the create.
    await seedCompanies(Array.from({ length: 52 }, (_, i) => ({ partner: other.id, name: `Bulk ${i}` })));
    const capped = await list('?page_size=500', other.key);
    expect(capped.body.results).toHaveLength(50);
    const byDefault = await list('', other.key);
    expect(byDefault.body.results).toHaveLength(10);
    expect(byDefault.body.count).toBe(capped.body.count);
  });

  test('every next link can be followed, however long the position after its page: one too long is a bare page (P273)', async () => {
    const odd = await aPartner();
    // In name order: U+0002 sorts before any letter.
    const names = ['\u0002'.repeat(255), `${'\u0002'.repeat(254)}\u0003`, 'Alpha', 'Zed'];
    const made = [];
    for (const name of names) made.push((await createCompany({ partner: odd.id, name })).id);
    for (const query of ['?ordering=name&page_size=1', '?ordering=-name&page_size=1', '?ordering=name&search=%02&page_size=1']) {
      const seen: number[] = [];
      let res = await list(query, odd.key);
      for (;;) {
        expect(res.status).toBe(200);
        seen.push(...res.body.results.map((c: { id: number }) => c.id));
        if (!res.body.next) break;
        res = await api.get(new URL(res.body.next).pathname + new URL(res.body.next).search, { key: odd.key });
      }
      const expected = query.includes('search') ? made.slice(0, 2) : made;
      expect(seen).toEqual(query.includes('-name') ? [...expected].reverse() : expected);
    }
  });
});

describe('PATCH /companies/{id}/', () => {
  let target: Awaited<ReturnType<typeof aCompany>>;
  beforeAll(async () => {
    target = await aCompany(partner.id, { name: 'Patchable GmbH', entitlements: ['job_sync'] });
  });
  const patch = (
    body: unknown,
    o: { id?: number; key?: string; companyId?: number; headers?: Record<string, string>; raw?: string } = {},
  ) =>
    api.request('PATCH', `/companies/${o.id ?? target.id}/`, {
      key: o.key ?? partner.key,
      companyId: o.companyId ?? target.id,
      ...(o.raw !== undefined ? { rawBody: o.raw } : { body }),
      headers: o.headers,
    });

  test('updates the listed fields and returns the full company', async () => {
    const before = (await list(`?name=Patchable`)).body.results[0];
    const body = {
      name: 'Patchable SE',
      website: 'https://patchable.example',
      logo: 'https://cdn.example/logo.png',
      primary_color: '#1A2b3C',
      street: 'Main St 1',
      city: 'Berlin',
      country: 'DE',
      postcode: '10115',
      contact_name: 'Pat',
      contact_email: 'pat@patchable.example',
      contact_phone: '+49 30 1234',
      partner_company_id: 'PX-9',
      ats: 'sandbox',
    };
    const res = await patch(body);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(COMPANY_FIELDS);
    expect(res.body).toMatchObject({
      ...body,
      id: target.id,
      slug: before.slug,
      partner: partner.id,
      ats_name: 'Sandbox ATS',
      job_sync_active: true,
      candidate_sync_active: false,
    });
    expect(res.body.updated_at > before.updated_at).toBe(true);
    expect(res.body.created_at).toBe(before.created_at);
    const listed = (await list(`?partner_company_id=PX-9`)).body.results[0];
    expect(listed).toEqual(res.body);
  });

  test('a company key may patch its own company, also without the trailing slash', async () => {
    const res = await api.request('PATCH', `/companies/${target.id}`, { key: target.key, companyId: target.id, body: { city: 'Hamburg' } });
    expect(res.status).toBe(200);
    expect(res.body.city).toBe('Hamburg');
  });

  test('read-only fields sent back are ignored; derived flags never change', async () => {
    const res = await patch({
      job_sync_active: false,
      candidate_sync_active: true,
      status: 'deleted',
      slug: 'x',
      id: 77,
      partner: 99,
      is_test: true,
      contact_name: 'Kim',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: target.id,
      slug: 'patchable-gmbh',
      partner: partner.id,
      status: 'active',
      is_test: false,
      job_sync_active: true,
      candidate_sync_active: false,
      contact_name: 'Kim',
    });
  });

  test('null clears an optional field', async () => {
    const res = await patch({ street: null });
    expect(res.status).toBe(200);
    expect(res.body.street).toBeNull();
  });

  test.each([
    [{ website: 'not a url' }, 'website'],
    [{ logo: 'nope' }, 'logo'],
    [{ contact_email: 'no-at-sign' }, 'contact_email'],
    [{ primary_color: 'red' }, 'primary_color'],
    [{ primary_color: '#12345' }, 'primary_color'],
    [{ name: '' }, 'name'],
    [{ name: 42 }, 'name'],
    [{ ats: 'unknown-ats' }, 'ats'],
    [{ city: ['Berlin'] }, 'city'],
    [{ favourite_colour: 'blue' }, 'favourite_colour'],
  ])('invalid body %p is a 400 naming the field and writes nothing', async (body, field) => {
    const before = (await list(`?search=patchable`)).body.results[0];
    const res = await patch({ city: 'Should Not Be Written', ...body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid');
    expect(Object.keys(res.body.errors)).toContain(field);
    const after = (await list(`?search=patchable`)).body.results[0];
    expect(after).toEqual(before);
  });

  test('malformed JSON is 400, a non-object body is 400, a non-JSON content type is 415', async () => {
    const malformed = await patch(undefined, { raw: '{"name": ', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('malformed_json');
    const array = await patch([1, 2]);
    expect(array.status).toBe(400);
    const form = await patch(undefined, { raw: 'name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect(form.body.code).toBe('unsupported_media_type');
  });

  test('tenancy: another company in the path is 404; a company the key cannot act for is 403', async () => {
    const sibling = await aCompany(partner.id, { name: 'Sibling' });
    const foreign = await aCompany(other.id, { name: 'Foreign' });
    // acting for target, naming the sibling: not found
    expect((await patch({ city: 'X' }, { id: sibling.id })).status).toBe(404);
    // acting for the sibling with target's company key: forbidden
    expect((await patch({ city: 'X' }, { id: sibling.id, companyId: sibling.id, key: target.key })).status).toBe(403);
    // acting for another partner's company with this partner's key: forbidden
    expect((await patch({ city: 'X' }, { id: foreign.id, companyId: foreign.id })).status).toBe(403);
    // a path id that is not a number is a 400 naming it (P214), and changes nothing
    const notANumber = await api.request('PATCH', '/companies/abc/', { key: partner.key, companyId: target.id, body: { city: 'X' } });
    expect(notANumber.status).toBe(400);
    expect(notANumber.body.errors).toEqual({ id: ['Must be a positive integer.'] });
    const untouched = (await list('?name=Sibling')).body.results[0];
    expect(untouched.city).toBeNull();
  });

  test('Company-Id is required', async () => {
    const res = await api.request('PATCH', `/companies/${target.id}/`, { key: partner.key, body: { city: 'X' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('company_id_required');
  });
});

describe('a walk of a list in memory (P258) goes on after the companies it showed, whatever changed since (P273)', () => {
  test('the last company shown on each page renamed to sort first: every company shown once, in the first page order', async () => {
    const walker = await aPartner();
    const made: number[] = [];
    // Long names: the position after the carried ids holds the last one's name, and the cursor carries fewer ids.
    const nameOf = (i: number) => `Zz ${String(i).padStart(4, '0')} ${'x'.repeat(200)}`;
    // Long ids too (ten base-36 digits): a cursor carries one page of them, not seven, so 260 companies walk the
    // carried page, a list computed again and the parts it stores, as 470 short ids walked the carried pages and
    // a list computed again. Through the batched seeding path (P335), each a millisecond after the one before.
    const [total, base, start] = [260, 36 ** 9 + 1000 * walker.id, Date.now() - 260];
    const seeded = await seedCompanies(
      Array.from({ length: total }, (_, i) => ({
        id: base + i,
        partner: walker.id,
        name: nameOf(i),
        created_at: new Date(start + i).toISOString(),
      })),
    );
    made.push(...seeded.map((c) => c.id));
    const walkParts = async () => (await allItems()).filter((item) => String(item.PK).startsWith(WALK_PREFIX)).length;
    const partsBefore = await walkParts();
    const seen: number[] = [];
    let res = await list('?name=zz&ordering=name&page_size=50', walker.key);
    for (let page = 1; ; page++) {
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(total);
      const shown = res.body.results.map((c: { id: number }) => c.id);
      seen.push(...shown);
      if (!res.body.next) break;
      expect(new URL(res.body.next).searchParams.get('cursor')).toEqual(expect.any(String));
      // Past the ids its first page carried, the list is computed again (P258): the renamed company sorts first there.
      const [last, body] = [shown.at(-1), { name: `Zz 0000${String.fromCharCode(96 + page)}` }];
      expect((await api.request('PATCH', `/companies/${last}/`, { key: walker.key, companyId: last, body })).status).toBe(200);
      res = await api.get(new URL(res.body.next).pathname + new URL(res.body.next).search, { key: walker.key });
    }
    expect(seen).toEqual(made);
    // Past the carried pages the list was computed again and stored the rest for the walk (P260).
    expect(await walkParts()).toBeGreaterThan(partsBefore);
  }, 180_000);
});

describe('the batched seeding path (P335) writes what the create writes', () => {
  /** Every item of the table by its primary key, serialized (the shards' deflated documents included). */
  const snapshot = async () => new Map((await allItems()).map((item) => [`${String(item.PK)}\u0000${String(item.SK)}`, item]));
  /** The items `write` added or changed; the table is put back as it was before it. */
  async function writtenBy(write: () => Promise<unknown>): Promise<Map<string, Record<string, unknown>>> {
    const before = await snapshot();
    await write();
    const after = await snapshot();
    const written = new Map([...after].filter(([key, item]) => !isDeepStrictEqual(before.get(key), item)));
    await batchDelete([...written.keys()].filter((key) => !before.has(key)).map((key) => written.get(key)! as { PK: string; SK: string }));
    await batchPut([...written.keys()].filter((key) => before.has(key)).map((key) => before.get(key)!));
    return written;
  }

  test('the same companies, created one by one or seeded at once: the same items, counters, search shards and slugs', async () => {
    const owner = await aPartner();
    const base = 36 ** 9 + 1000 * owner.id;
    // Two of the same name (the second's slug takes its id), a lookup value, a status, entitlements and none.
    const inputs = [
      { id: base, partner: owner.id, name: 'Seeded Twin', ats: 'sandbox', partner_company_id: 'PC-9', entitlements: ['job_sync'] },
      { id: base + 1, partner: owner.id, name: 'Seeded Twin', ats: 'lever', status: 'invited' as const },
      {
        id: base + 2,
        partner: owner.id,
        name: 'Ünïcode Seed',
        entitlements: ['job_sync', 'candidate_sync'],
        status: 'deactivated' as const,
      },
    ];
    const created: { created_at: string }[] = [];
    const byCreate = await writtenBy(async () => {
      for (const input of inputs) created.push(await createCompany(input));
    });
    const bySeeding = await writtenBy(() => seedCompanies(inputs.map((input, i) => ({ ...input, created_at: created[i].created_at }))));
    // Three companies, three slugs, one lookup item, three search shards, the partner's counter item.
    expect(byCreate.size).toBe(11);
    expect([...bySeeding.keys()].sort()).toEqual([...byCreate.keys()].sort());
    for (const [key, item] of byCreate) expect([key, bySeeding.get(key)]).toEqual([key, item]);
  });

  test('it checks what the create checks: a field is a 400 naming it, a missing partner a 404, a taken id a 409', async () => {
    const owner = await aPartner();
    const one = { partner: owner.id, name: 'Checked' };
    await expect(seedCompanies([one, { ...one, ats: 'nope' }])).rejects.toMatchObject({
      statusCode: 400,
      errors: { ats: expect.any(Array) },
    });
    for (const created_at of ['yesterday', '2026-02-30T00:00:00.000Z', '2026-13-01T00:00:00.000Z']) {
      await expect(seedCompanies([{ ...one, created_at }])).rejects.toMatchObject({
        statusCode: 400,
        errors: { created_at: expect.any(Array) },
      });
    }
    await expect(seedCompanies([{ ...one, partner: owner.id + 10_000 }])).rejects.toMatchObject({ statusCode: 404 });
    const [made] = await seedCompanies([one]);
    await expect(seedCompanies([{ ...one, id: made.id }])).rejects.toMatchObject({ statusCode: 409 });
    expect((await list('?name=checked', owner.key)).body.count).toBe(1);
  });
});
