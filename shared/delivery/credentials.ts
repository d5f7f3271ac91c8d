/**
 * ATS credentials at rest (D18): checked field by field against the connector's credential fields,
 * sealed with envelope encryption (`#platform/secrets.js`: KMS on AWS, a key file locally) under an
 * encryption context naming the company and the ATS, and stored in their own item beside the company
 * (`keys.atsCredentials`), so no company read, API response, log line, event or queue message carries them.
 * Only the sync worker, the job import and `connect` open them, just before calling the ATS.
 */
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { atsBySlug } from '#companies/ats.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { config, db } from '#platform/clients.js';
import { ValidationError, type FieldErrors } from '#platform/errors.js';
import { keys } from '#platform/keys.js';
import { openSecret, sealSecret, type SealedSecret } from '#platform/secrets.js';
import { ConnectorError, type AtsCredentials, type ConnectorDescriptor } from '#delivery/connectors/connector.js';

const context = (companyId: number, ats: string) => ({ purpose: 'ats-credentials', company: String(companyId), ats });

/**
 * Checks credentials given for a connector: every field it names is required and must match its
 * pattern; any other field is refused. Errors name the field and never echo its value.
 */
export function parseCredentials(connector: ConnectorDescriptor, input: Record<string, unknown>): AtsCredentials {
  // Keyed by names the caller chose: no prototype, so `__proto__` is just another unknown field.
  const errors = Object.create(null) as FieldErrors;
  const credentials = new Map<string, string>();
  for (const field of connector.credentialFields) {
    const value = Object.hasOwn(input, field.name) ? input[field.name] : undefined;
    if ((value === undefined || value === null || value === '') && field.default !== undefined) credentials.set(field.name, field.default);
    else if (value === undefined || value === null || value === '')
      errors[field.name] = [`Required for ${connector.slug}: ${field.description}.`];
    else if (typeof value === 'string' && field.choices && !field.choices.includes(value))
      errors[field.name] = [`Must be one of ${field.choices.join(', ')}.`];
    else if (typeof value !== 'string' || !field.pattern.test(value)) errors[field.name] = [`Not a valid value for ${field.description}.`];
    else credentials.set(field.name, value);
  }
  for (const name of Object.keys(input)) {
    if (!connector.credentialFields.some((f) => f.name === name) && input[name] !== undefined)
      errors[name] = [
        `Not a credential of ${connector.slug}; it takes ${connector.credentialFields.map((f) => f.name).join(', ') || 'none'}.`,
      ];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return Object.freeze(Object.fromEntries(credentials));
}

/** The stored item: which ATS, the sealed JSON of the credentials, and when they were checked. */
export async function credentialsItem(companyId: number, ats: string, credentials: AtsCredentials, connectedAt: string) {
  const sealed = await sealSecret(JSON.stringify(credentials), context(companyId, ats));
  return { ...keys.atsCredentials(companyId), ats, sealed, connected_at: connectedAt };
}

/**
 * The company's credentials, opened; `{}` for an ATS that needs none. A company without credentials for
 * its current ATS is not connected: `credentials_rejected`.
 */
export async function loadCredentials(company: CompanyRecord): Promise<AtsCredentials> {
  if (!atsBySlug(company.ats)?.credentials) return {};
  const out = await db().send(
    new GetCommand({ TableName: config().tableName, Key: keys.atsCredentials(company.id), ConsistentRead: true }),
  );
  if (!out.Item || out.Item.ats !== company.ats)
    throw new ConnectorError('credentials_rejected', `No credentials are stored for ${company.ats}.`);
  return Object.freeze(JSON.parse(await openSecret(out.Item.sealed as SealedSecret, context(company.id, company.ats!))) as AtsCredentials);
}

export function deleteCredentialsInput(companyId: number) {
  return { TableName: config().tableName, Key: keys.atsCredentials(companyId) };
}

export async function deleteCredentials(companyId: number): Promise<void> {
  await db().send(new DeleteCommand(deleteCredentialsInput(companyId)));
}
