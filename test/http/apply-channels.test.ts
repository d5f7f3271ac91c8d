/**
 * Apply channels (issue 23 item 1): `channel create --format`, `company entitle --add apply:<slug>`,
 * `channel revoke-tokens` through the real admin tool (a child process against this file's runtime), and
 * `apply_webhooks` through GET /jobs and GET /jobs/{id}; the tokens checked with `verifyApplyToken`, which
 * the inbound endpoint (item 2) will use.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createChannel, getChannelBySlug } from '#applications/channels.js';
import { ConflictError } from '#platform/errors.js';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { forgetCachedCompany } from '#companies/api-keys.js';
import { loadApplyChannelSecret } from '#companies/apply-channels.js';
import { applyToken, forgetCachedApplyChannels, verifyApplyToken } from '#jobs/apply-links.js';
import { config, db, dynamoClient } from '#platform/clients.js';
import { keys } from '#platform/keys.js';
import { aCompany, aJob, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { randomBytes } from 'node:crypto';
import { adminCli, type CliResult } from '../helpers/admin-cli.js';

const INDEED_SECRET = 'indeed-api-secret-0123456789';

function cli(...args: (string | number)[]): Promise<CliResult> {
  return adminCli(args.map(String), api.runtime.dataDir);
}

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let a: Awaited<ReturnType<typeof aCompany>>;
let b: Awaited<ReturnType<typeof aCompany>>;
let c: Awaited<ReturnType<typeof aCompany>>;
const channelIds = new Map<string, number>();

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  [a, b, c] = [await aCompany(partner.id), await aCompany(partner.id), await aCompany(partner.id)];
  await withJobs(a.id, [aJob(), aJob()]);
  await withJobs(b.id, [aJob()]);
  await withJobs(c.id, [aJob()]);
});
afterAll(() => api.stop());

/** The admin tool changed the table from another process: read the company and channels again. */
function forgetCaches(): void {
  for (const company of [a, b, c]) forgetCachedCompany(company.id);
  forgetCachedApplyChannels();
}

async function jobsOf(company: { id: number }): Promise<any[]> {
  const list = await api.get('/jobs', { key: partner.key, companyId: company.id });
  expect(list.status).toBe(200);
  return list.body.results;
}

const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('channel create --format', () => {
  test('generic: a generated Standard Webhooks secret, printed once, stored sealed in an item of its own', async () => {
    const made = await cli('channel', 'create', '--slug', 'generic', '--name', 'Generic Board', '--format', 'generic');
    expect(made.code).toBe(0);
    expect(made.json).toEqual({
      id: expect.any(Number),
      slug: 'generic',
      name: 'Generic Board',
      logo: null,
      created_at: expect.any(String),
      format: 'generic',
      generation: 1,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    const secret: string = made.json.secret;
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    channelIds.set('generic', made.json.id);

    const stored = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.applyChannelSecret(made.json.id) }));
    expect(stored.Item?.sealed).toEqual(expect.objectContaining({ v: 1, wrap: 'local' }));
    expect(JSON.stringify(stored.Item)).not.toContain(secret.slice('whsec_'.length));
    expect(await loadApplyChannelSecret(made.json.id)).toBe(secret);
    // The talent channel reads as before: no format, no secret.
    expect(await getChannelBySlug('generic')).toEqual({
      id: made.json.id,
      slug: 'generic',
      name: 'Generic Board',
      logo: null,
      created_at: made.json.created_at,
    });
    const bySlug = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.applyChannelSlug('generic') }));
    expect(JSON.stringify(bySlug.Item)).not.toContain('sealed');
  });

  test('indeed: stores the API secret Indeed issued, which is never printed', async () => {
    const made = await cli(
      'channel',
      'create',
      '--slug',
      'indeed',
      '--name',
      'Indeed',
      '--logo',
      'https://indeed.example/logo.png',
      '--format',
      'indeed',
      '--secret',
      INDEED_SECRET,
    );
    expect(made.code).toBe(0);
    expect(made.stdout).not.toContain(INDEED_SECRET);
    expect(made.json).toEqual({
      id: expect.any(Number),
      slug: 'indeed',
      name: 'Indeed',
      logo: 'https://indeed.example/logo.png',
      created_at: expect.any(String),
      format: 'indeed',
      generation: 1,
    });
    channelIds.set('indeed', made.json.id);
    expect(await loadApplyChannelSecret(made.json.id)).toBe(INDEED_SECRET);
  });

  test('bad apply channel input is a D2 error that names the option and writes nothing', async () => {
    const [noSecret, badFormat, secretForGeneric, secretWithoutFormat, taken] = await Promise.all([
      cli('channel', 'create', '--slug', 'board-x', '--name', 'Board X', '--format', 'indeed'),
      cli('channel', 'create', '--slug', 'board-y', '--name', 'Board Y', '--format', 'linkedin'),
      cli('channel', 'create', '--slug', 'board-z', '--name', 'Board Z', '--format', 'generic', '--secret', 'whsec_abcdefgh'),
      cli('channel', 'create', '--slug', 'board-w', '--name', 'Board W', '--secret', INDEED_SECRET),
      cli('channel', 'create', '--slug', 'indeed', '--name', 'Indeed again', '--format', 'indeed', '--secret', INDEED_SECRET),
    ]);
    expect([noSecret.code, badFormat.code, secretForGeneric.code, secretWithoutFormat.code, taken.code]).toEqual([1, 1, 1, 1, 1]);
    expect(noSecret.json).toEqual({
      detail: expect.any(String),
      code: 'invalid',
      errors: { secret: [expect.stringContaining('Required')] },
    });
    expect(badFormat.json.errors).toEqual({ format: ['Must be one of generic, indeed.'] });
    expect(secretForGeneric.json.errors).toEqual({ secret: [expect.stringContaining('generated')] });
    expect(secretWithoutFormat.json.errors).toEqual({ secret: ['Only an apply channel (--format) has a secret.'] });
    expect(taken.json.code).toBe('conflict');
    for (const result of [noSecret, secretWithoutFormat, taken]) expect(result.stderr).not.toContain(INDEED_SECRET);
    // Nothing was written: the slugs are still free.
    for (const slug of ['board-x', 'board-y', 'board-z', 'board-w']) expect(await getChannelBySlug(slug)).toBeUndefined();
    expect(await loadApplyChannelSecret(channelIds.get('indeed')!)).toBe(INDEED_SECRET);
  });

  test('a slug longer than 64 is invalid wherever it comes in, not a taken slug nor an internal error (P272)', async () => {
    const long = 'a'.repeat(3000);
    const rule = 'A channel slug is 1 to 64 lower-case letters, digits, "-" and "_", starting with a letter or digit.';
    const [talent, apply, justOver, revoke] = await Promise.all([
      cli('channel', 'create', '--slug', long, '--name', 'Long'),
      cli('channel', 'create', '--slug', long, '--name', 'Long', '--format', 'generic'),
      cli('channel', 'create', '--slug', 'b'.repeat(65), '--name', 'Just over'),
      cli('channel', 'revoke-tokens', '--slug', long),
    ]);
    for (const result of [talent, apply, justOver, revoke]) {
      expect(result.code).toBe(1);
      expect(result.json).toEqual({ detail: `Invalid value for "slug": ${rule}`, code: 'invalid', errors: { slug: [rule] } });
    }
    expect(await getChannelBySlug('b'.repeat(65))).toBeUndefined();
    // 64 is the most.
    expect((await cli('channel', 'create', '--slug', 'c'.repeat(64), '--name', 'At the limit')).code).toBe(0);
  });

  test('a create cancelled for another reason than a taken slug is not reported as one (P272)', async () => {
    // AWS cancels a transaction with an item it refuses (a key over 2,048 bytes, an item over 400 KB) with the reason
    // ValidationError, where DynamoDB Local answers ValidationException: its documented answer, given in place of
    // the call.
    const reasons = [
      { Code: 'None' },
      { Code: 'ValidationError', Message: 'Item size has exceeded the maximum allowed size' },
      { Code: 'None' },
    ];
    dynamoClient().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        throw new TransactionCanceledException({
          message: 'Transaction cancelled [None, ValidationError, None]',
          $metadata: {},
          CancellationReasons: reasons,
        });
      },
      { step: 'initialize', name: 'awsCancellation' },
    );
    let refused: unknown;
    try {
      refused = await createChannel({ slug: 'cancelled-board', name: 'Cancelled' }, () =>
        Promise.resolve([{ PK: 'CANCELLED#1', SK: 'X' }]),
      ).catch((error: unknown) => error);
    } finally {
      dynamoClient().middlewareStack.remove('awsCancellation');
    }
    expect(refused).not.toBeInstanceOf(ConflictError);
    expect(refused).toBeInstanceOf(TransactionCanceledException);
    // A slug that is taken still is a conflict.
    await expect(createChannel({ slug: 'plain-board-2', name: 'Two' })).resolves.toMatchObject({ slug: 'plain-board-2' });
    await expect(createChannel({ slug: 'plain-board-2', name: 'Two again' })).rejects.toMatchObject({
      code: 'conflict',
      detail: 'A channel with slug "plain-board-2" exists already.',
    });
  });

  test('without --format a talent channel as before, which is no apply channel: entitling to it is refused', async () => {
    const plain = await cli('channel', 'create', '--slug', 'plain-board', '--name', 'Plain Board');
    expect(plain.code).toBe(0);
    expect(plain.json).toEqual({
      id: expect.any(Number),
      slug: 'plain-board',
      name: 'Plain Board',
      logo: null,
      created_at: expect.any(String),
    });
    const [plainEntitled, unknown, badName, created] = await Promise.all([
      cli('company', 'entitle', a.id, '--add', 'apply:plain-board'),
      cli('company', 'entitle', a.id, '--add', 'job_sync,apply:nowhere'),
      cli('company', 'entitle', a.id, '--add', 'apply:Indeed'),
      cli('company', 'create', '--partner', partner.id, '--name', 'Apply Co', '--entitle', 'job_sync,apply:plain-board'),
    ]);
    expect(created.code).toBe(1);
    expect(created.json.errors).toEqual({ entitlements: [expect.stringContaining('plain-board')] });
    expect(plainEntitled.code).toBe(1);
    expect(plainEntitled.json.errors).toEqual({ '--add': [expect.stringContaining('plain-board')] });
    expect(unknown.json.errors).toEqual({ '--add': [expect.stringContaining('nowhere')] });
    expect(badName.json.errors).toEqual({ '--add': [expect.stringContaining('Unknown entitlement apply:Indeed')] });
    forgetCaches();
    for (const job of await jobsOf(a)) expect(job.apply_webhooks).toEqual({});
  });
});

describe('apply_webhooks', () => {
  test('an entitled company: every job has one URL per entitled channel, in GET /jobs and GET /jobs/{id}; others {}', async () => {
    const entitled = await cli('company', 'entitle', a.id, '--add', 'apply:indeed,apply:generic');
    expect(entitled.code).toBe(0);
    forgetCaches();
    const jobs = await jobsOf(a);
    expect(jobs).toHaveLength(2);
    const tokens = new Set<string>();
    for (const job of jobs) {
      expect(Object.keys(job.apply_webhooks)).toEqual(['generic', 'indeed']);
      for (const slug of ['generic', 'indeed']) {
        const url: string = job.apply_webhooks[slug];
        expect(url).toMatch(new RegExp(`^${api.url}/apply/${slug}/[A-Za-z0-9_-]{20,60}$`));
        tokens.add(tokenOf(url));
        const verified = await verifyApplyToken(tokenOf(url));
        expect(verified).toEqual({
          companyId: a.id,
          jobId: job.id,
          channel: expect.objectContaining({ channel_id: channelIds.get(slug), slug, format: slug, generation: 1 }),
        });
      }
      const single = await api.get(`/jobs/${job.id}`, { key: partner.key, companyId: a.id });
      expect(single.status).toBe(200);
      expect(single.body.apply_webhooks).toEqual(job.apply_webhooks);
    }
    expect(tokens.size).toBe(4);

    const [other] = await jobsOf(c);
    expect(other.apply_webhooks).toEqual({});
    expect((await api.get(`/jobs/${other.id}`, { key: partner.key, companyId: c.id })).body.apply_webhooks).toEqual({});
  });

  test('PUBLIC_BASE_URL is the base of the URLs when it is set, as for magic_link and next', async () => {
    process.env.PUBLIC_BASE_URL = 'https://api.example.com';
    try {
      const [job] = await jobsOf(a);
      expect(job.apply_webhooks.indeed).toMatch(/^https:\/\/api\.example\.com\/apply\/indeed\/[A-Za-z0-9_-]+$/);
      expect(tokenOf(job.apply_webhooks.indeed)).toBe(tokenOf((await jobsOf(a))[0].apply_webhooks.indeed));
    } finally {
      delete process.env.PUBLIC_BASE_URL;
    }
  });

  test("tenancy: a company's token never verifies for another company or another company's job", async () => {
    expect((await cli('company', 'entitle', b.id, '--add', 'apply:indeed')).code).toBe(0);
    forgetCaches();
    const [jobB] = await jobsOf(b);
    expect(Object.keys(jobB.apply_webhooks)).toEqual(['indeed']);
    const tokenB = tokenOf(jobB.apply_webhooks.indeed);
    expect(await verifyApplyToken(tokenB)).toEqual(expect.objectContaining({ companyId: b.id, jobId: jobB.id }));

    const [jobA] = await jobsOf(a);
    const tokenA = tokenOf(jobA.apply_webhooks.indeed);
    const bytesA = Buffer.from(tokenA, 'base64url');
    const bytesB = Buffer.from(tokenB, 'base64url');
    // B's ids under A's MAC, and A's ids under B's MAC: neither verifies.
    const spliced = [
      Buffer.concat([bytesB.subarray(0, bytesB.length - 16), bytesA.subarray(bytesA.length - 16)]),
      Buffer.concat([bytesA.subarray(0, bytesA.length - 16), bytesB.subarray(bytesB.length - 16)]),
    ];
    for (const token of spliced) expect(await verifyApplyToken(token.toString('base64url'))).toBeUndefined();
    // A token made under any other key for company B's job does not verify either.
    const forged = applyToken(randomBytes(32), b.id, jobB.id, { channel_id: channelIds.get('indeed')!, generation: 1 });
    expect(await verifyApplyToken(forged)).toBeUndefined();
    // Company B is not entitled to generic: A's generic token with B's ids is not B's.
    expect(jobB.apply_webhooks.generic).toBeUndefined();
  });

  test('revoke-tokens: the channel gets new URLs, the old ones stop verifying, the other channel keeps its own', async () => {
    const before = await jobsOf(a);
    const revoked = await cli('channel', 'revoke-tokens', '--slug', 'indeed');
    expect(revoked.code).toBe(0);
    expect(revoked.json).toEqual({
      channel_id: channelIds.get('indeed'),
      slug: 'indeed',
      format: 'indeed',
      generation: 2,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    forgetCaches();
    const after = await jobsOf(a);
    for (const [i, job] of after.entries()) {
      expect(job.apply_webhooks.indeed).not.toBe(before[i].apply_webhooks.indeed);
      expect(job.apply_webhooks.generic).toBe(before[i].apply_webhooks.generic);
      expect(await verifyApplyToken(tokenOf(before[i].apply_webhooks.indeed))).toBeUndefined();
      expect(await verifyApplyToken(tokenOf(job.apply_webhooks.indeed))).toEqual(
        expect.objectContaining({ companyId: a.id, jobId: job.id, channel: expect.objectContaining({ generation: 2 }) }),
      );
    }
    const [unknown, plain] = await Promise.all([
      cli('channel', 'revoke-tokens', '--slug', 'nowhere'),
      cli('channel', 'revoke-tokens', '--slug', 'plain-board'),
    ]);
    expect([unknown.code, unknown.json.code, plain.code, plain.json.code]).toEqual([1, 'not_found', 1, 'not_found']);
  });

  test('removing the entitlement takes the channel out, and its tokens of that company stop verifying', async () => {
    const [job] = await jobsOf(a);
    const { indeed, generic } = job.apply_webhooks as Record<string, string>;
    expect((await cli('company', 'entitle', a.id, '--remove', 'apply:indeed')).code).toBe(0);
    forgetCaches();
    expect((await jobsOf(a)).map((j) => Object.keys(j.apply_webhooks))).toEqual([['generic'], ['generic']]);
    expect(await verifyApplyToken(tokenOf(indeed))).toBeUndefined();
    expect(await verifyApplyToken(tokenOf(generic))).toEqual(expect.objectContaining({ companyId: a.id }));

    expect((await cli('company', 'entitle', a.id, '--remove', 'apply:generic')).code).toBe(0);
    forgetCaches();
    for (const j of await jobsOf(a)) expect(j.apply_webhooks).toEqual({});
    expect((await api.get(`/jobs/${job.id}`, { key: partner.key, companyId: a.id })).body.apply_webhooks).toEqual({});
    expect(await verifyApplyToken(tokenOf(generic))).toBeUndefined();
    // Company B keeps its own.
    expect(Object.keys((await jobsOf(b))[0].apply_webhooks)).toEqual(['indeed']);
  });
});
