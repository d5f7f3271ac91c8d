/** Partners (job boards, agencies, ATS vendors) own companies and hold partner-scoped keys. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { invalidField } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';
import { keys } from '#platform/keys.js';

export const PARTNER_KINDS = ['job_board', 'agency', 'ats_vendor'] as const;
export type PartnerKind = (typeof PARTNER_KINDS)[number];

export interface Partner {
  id: number;
  name: string;
  kind: PartnerKind;
  created_at: string;
}

export async function createPartner(name: string, kind: string = 'job_board'): Promise<Partner> {
  if (!name.trim()) throw invalidField('name', 'This field is required.');
  if (!(PARTNER_KINDS as readonly string[]).includes(kind)) throw invalidField('kind', `Must be one of ${PARTNER_KINDS.join(', ')}.`);
  const partner: Partner = { id: await nextId('partner'), name, kind: kind as PartnerKind, created_at: isoNow() };
  await db().send(
    new PutCommand({
      TableName: config().tableName,
      Item: { ...keys.partner(partner.id), ...partner },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return partner;
}

export async function getPartner(id: number): Promise<Partner | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.partner(id) }));
  if (!out.Item) return undefined;
  const { PK, SK, ...partner } = out.Item;
  return partner as Partner;
}

/** Partner kinds by id, per instance: a partner's kind never changes once it is created. */
const kinds = new Map<number, PartnerKind>();

/** A partner's kind (the create reads it for every application: cached, as it cannot change). */
export async function getPartnerKind(id: number): Promise<PartnerKind | undefined> {
  const known = kinds.get(id);
  if (known) return known;
  const partner = await getPartner(id);
  if (partner) {
    if (kinds.size > 10_000) kinds.clear();
    kinds.set(id, partner.kind);
  }
  return partner?.kind;
}
