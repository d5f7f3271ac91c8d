/**
 * API keys (D16): random secrets shown once, stored only as SHA-256 hashes with their scope. The
 * authorizer resolves a key to a Principal; the company-access check (D3) then decides, per request,
 * whether that principal may act for the `Company-Id` it sent.
 */
import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { getCompanyRecord } from '#companies/company-store.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { BadRequestError, CompanyInactiveError, ForbiddenError, NotFoundError } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';
import { keys } from '#platform/keys.js';
import { getPartner } from '#companies/partners.js';

export type KeyScope = 'partner' | 'company';

/** Who a request is: the result of the authorizer, cached per key. */
export interface Principal {
  keyId: number;
  scope: KeyScope;
  partnerId: number;
  companyId?: number;
}

interface ApiKeyRecord {
  id: number;
  hash: string;
  scope: KeyScope;
  partner: number;
  company: number | null;
  status: 'active' | 'revoked';
  created_at: string;
  last_used_at: string | null;
}

const PREFIX = 'his_';
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

export async function createApiKey(
  target: { partner: number } | { company: number },
): Promise<{ id: number; key: string; scope: KeyScope }> {
  let partner: number;
  let company: number | null = null;
  if ('company' in target) {
    const record = await getCompanyRecord(target.company);
    if (!record) throw new NotFoundError(`Company ${target.company} does not exist.`);
    partner = record.partner;
    company = record.id;
  } else {
    if (!(await getPartner(target.partner))) throw new NotFoundError(`Partner ${target.partner} does not exist.`);
    partner = target.partner;
  }
  const secret = PREFIX + randomBytes(32).toString('base64url');
  const record: ApiKeyRecord = {
    id: await nextId('apikey'),
    hash: hashOf(secret),
    scope: company === null ? 'partner' : 'company',
    partner,
    company,
    status: 'active',
    created_at: isoNow(),
    last_used_at: null,
  };
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: config().tableName,
            Item: { ...keys.apiKey(record.hash), ...record },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        {
          Put: {
            TableName: config().tableName,
            Item: { ...keys.apiKeyId(record.id), hash: record.hash },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      ],
    }),
  );
  return { id: record.id, key: secret, scope: record.scope };
}

export async function revokeApiKey(id: number): Promise<{ id: number; status: 'revoked' }> {
  const pointer = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.apiKeyId(id) }));
  if (!pointer.Item) throw new NotFoundError(`API key ${id} does not exist.`);
  await db().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: keys.apiKey(pointer.Item.hash as string),
      UpdateExpression: 'SET #status = :revoked',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked' },
    }),
  );
  return { id, status: 'revoked' };
}

/** The key in an `Authorization: Bearer <key>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/** Resolves a presented key to its principal; undefined for unknown or revoked keys. */
export async function resolveApiKey(secret: string): Promise<Principal | undefined> {
  if (!secret.startsWith(PREFIX) || secret.length > 200) return undefined;
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.apiKey(hashOf(secret)) }));
  const record = out.Item as ApiKeyRecord | undefined;
  if (!record || record.status !== 'active') return undefined;
  const now = isoNow();
  // last_used_at is kept to the hour so that authorizing stays one read on most calls.
  if (!record.last_used_at || Date.parse(now) - Date.parse(record.last_used_at) > LAST_USED_RESOLUTION_MS) {
    await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.apiKey(record.hash),
        UpdateExpression: 'SET last_used_at = :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  }
  return {
    keyId: record.id,
    scope: record.scope,
    partnerId: record.partner,
    ...(record.company !== null ? { companyId: record.company } : {}),
  };
}

/** The authorizer context as API Gateway passes it on (values become strings). */
export function principalToContext(p: Principal): Record<string, string | number> {
  return { keyId: p.keyId, scope: p.scope, partnerId: p.partnerId, ...(p.companyId !== undefined ? { companyId: p.companyId } : {}) };
}

/** A positive integer id as the authorizer context carries it (a number, or its decimal text). */
function contextId(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' && /^[1-9]\d{0,15}$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

/**
 * The principal in an authorizer context, or undefined unless it is exactly one the authorizer makes: a
 * `partner` key (no company) or a `company` key (with its company). Any other scope is refused.
 */
export function principalFromContext(context: Record<string, unknown> | null | undefined): Principal | undefined {
  if (!context) return undefined;
  const keyId = contextId(context.keyId);
  const partnerId = contextId(context.partnerId);
  if (keyId === undefined || partnerId === undefined) return undefined;
  const noCompany = context.companyId === undefined || context.companyId === null || context.companyId === '';
  if (context.scope === 'partner' && noCompany) return { keyId, scope: 'partner', partnerId };
  const companyId = contextId(context.companyId);
  if (context.scope === 'company' && companyId !== undefined) return { keyId, scope: 'company', partnerId, companyId };
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// D3: may this principal act for this Company-Id?

const COMPANY_CACHE_MS = Number(process.env.COMPANY_CACHE_MS ?? 10_000);
const companyCache = new Map<number, { record: CompanyRecord | undefined; at: number }>();

async function cachedCompany(id: number): Promise<CompanyRecord | undefined> {
  const hit = companyCache.get(id);
  if (hit && Date.now() - hit.at < COMPANY_CACHE_MS) return hit.record;
  const record = await getCompanyRecord(id);
  companyCache.set(id, { record, at: Date.now() });
  return record;
}

export function forgetCachedCompany(id: number): void {
  companyCache.delete(id);
}

export function parseCompanyIdHeader(value: string | undefined): number {
  if (value === undefined || value.trim() === '') throw new BadRequestError('The "Company-Id" header is required.', 'company_id_required');
  const trimmed = value.trim();
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(Number(trimmed)) || Number(trimmed) < 1) {
    throw new BadRequestError('The "Company-Id" header must be a positive integer.', 'invalid_company_id');
  }
  return Number(trimmed);
}

/** Returns the company the principal acts for, or throws 403 when it may not act for it. */
export async function authorizeCompany(principal: Principal, companyId: number): Promise<CompanyRecord> {
  if (principal.scope === 'company' && principal.companyId !== companyId) throw new ForbiddenError();
  const company = await cachedCompany(companyId);
  if (!company || company.partner !== principal.partnerId) throw new ForbiddenError();
  // D17: a deleted company answers no Company-Id route (it is still listed, since GET /companies/ takes no Company-Id).
  if (company.status === 'deleted') throw new CompanyInactiveError('This company has been deleted.');
  return company;
}
