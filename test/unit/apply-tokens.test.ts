/**
 * Apply tokens (issue 23 item 1, P197): derived, not stored; a token names company, job and channel and is
 * valid only for that channel at its current generation. The pure checks, without storage; the stored
 * channels and entitlements are exercised in test/http/apply-channels.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { applyChannelOf, applyChannelSlugs, isEntitlement } from '#companies/entitlements.js';
import { applyToken, checkApplyToken, parseApplyToken } from '#jobs/apply-links.js';

const key = randomBytes(32);
const indeed = { channel_id: 3, generation: 1 };

describe('apply tokens', () => {
  test('a token names its company, job and channel and checks against its channel', () => {
    const token = applyToken(key, 7, 42, indeed);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(parseApplyToken(token)).toEqual({ companyId: 7, jobId: 42, channelId: 3 });
    expect(checkApplyToken(token, indeed, key)).toEqual({ companyId: 7, jobId: 42 });
    // Deterministic: listing twice gives the same URL, so job boards can keep it.
    expect(applyToken(key, 7, 42, indeed)).toBe(token);
  });

  test('the largest ids round-trip, and each job, company and channel has its own token', () => {
    const max = Number.MAX_SAFE_INTEGER;
    const token = applyToken(key, max, max, { channel_id: max, generation: max });
    expect(token.length).toBeLessThanOrEqual(60);
    expect(checkApplyToken(token, { channel_id: max, generation: max }, key)).toEqual({ companyId: max, jobId: max });
    const tokens = new Set([
      applyToken(key, 7, 42, indeed),
      applyToken(key, 7, 43, indeed),
      applyToken(key, 8, 42, indeed),
      applyToken(key, 7, 42, { channel_id: 4, generation: 1 }),
      applyToken(key, 7, 42, { channel_id: 3, generation: 2 }),
    ]);
    expect(tokens.size).toBe(5);
  });

  test('a tampered token does not check: any changed character, a cut or a longer one', () => {
    const token = applyToken(key, 7, 42, indeed);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < token.length; i++) {
      const other = alphabet[(alphabet.indexOf(token[i]) + 1) % alphabet.length];
      const tampered = token.slice(0, i) + other + token.slice(i + 1);
      expect(checkApplyToken(tampered, indeed, key)).toBeUndefined();
    }
    expect(checkApplyToken(token.slice(0, -1), indeed, key)).toBeUndefined();
    expect(checkApplyToken(`${token}A`, indeed, key)).toBeUndefined();
    expect(checkApplyToken(token, indeed, randomBytes(32))).toBeUndefined();
  });

  test("another company's or job's ids under a valid MAC do not check (no token carries over to another tenant)", () => {
    const token = Buffer.from(applyToken(key, 7, 42, indeed), 'base64url');
    // Same layout, company 8 instead of 7 (one-byte varints), the MAC of company 7 kept.
    const otherCompany = Buffer.from(token);
    otherCompany[1] = 8;
    expect(parseApplyToken(otherCompany.toString('base64url'))).toEqual({ companyId: 8, jobId: 42, channelId: 3 });
    expect(checkApplyToken(otherCompany.toString('base64url'), indeed, key)).toBeUndefined();
    const otherJob = Buffer.from(token);
    otherJob[2] = 43;
    expect(checkApplyToken(otherJob.toString('base64url'), indeed, key)).toBeUndefined();
  });

  test("another channel's token does not check for this channel", () => {
    const generic = { channel_id: 4, generation: 1 };
    expect(checkApplyToken(applyToken(key, 7, 42, generic), indeed, key)).toBeUndefined();
    // Nor with the channel id rewritten to this channel's: the MAC covers it.
    const rewritten = Buffer.from(applyToken(key, 7, 42, generic), 'base64url');
    rewritten[3] = 3;
    expect(checkApplyToken(rewritten.toString('base64url'), indeed, key)).toBeUndefined();
  });

  test('a revoked generation does not check; the next generation has a token of its own', () => {
    const old = applyToken(key, 7, 42, indeed);
    const revoked = { channel_id: 3, generation: 2 };
    expect(checkApplyToken(old, revoked, key)).toBeUndefined();
    const current = applyToken(key, 7, 42, revoked);
    expect(current).not.toBe(old);
    expect(checkApplyToken(current, revoked, key)).toEqual({ companyId: 7, jobId: 42 });
  });

  test('garbage, non-canonical encodings and other versions are refused', () => {
    const token = Buffer.from(applyToken(key, 7, 42, indeed), 'base64url');
    const otherVersion = Buffer.from(token);
    otherVersion[0] = 2;
    // Company 7 written as two varint bytes (0x87 0x00): the same number, not the same token.
    const padded = Buffer.concat([token.subarray(0, 1), Buffer.from([0x87, 0x00]), token.subarray(2)]);
    for (const bad of [
      undefined,
      42,
      '',
      'not a token!',
      'x'.repeat(61),
      otherVersion.toString('base64url'),
      token.subarray(0, 10).toString('base64url'),
      Buffer.from([1, 0, 42, 3, ...token.subarray(4)]).toString('base64url'),
    ])
      expect(checkApplyToken(bad, indeed, key)).toBeUndefined();
    // It parses to the same ids, but only the canonical token is the channel's: the whole token is compared.
    expect(parseApplyToken(padded.toString('base64url'))).toEqual({ companyId: 7, jobId: 42, channelId: 3 });
    expect(checkApplyToken(padded.toString('base64url'), indeed, key)).toBeUndefined();
  });
});

describe('apply entitlements', () => {
  test('apply:<slug> is an entitlement when the slug follows the channel rule', () => {
    expect(isEntitlement('apply:indeed')).toBe(true);
    expect(isEntitlement('apply:generic')).toBe(true);
    expect(isEntitlement('job_sync')).toBe(true);
    for (const bad of ['apply:', 'apply:Indeed', 'apply:__proto__', 'apply:-x', `apply:${'a'.repeat(65)}`, 'apply', 'indeed'])
      expect(isEntitlement(bad)).toBe(false);
    expect(applyChannelOf('apply:indeed')).toBe('indeed');
    expect(applyChannelSlugs(['job_sync', 'apply:indeed', 'apply:generic', 'apply:indeed'])).toEqual(['generic', 'indeed']);
  });
});
