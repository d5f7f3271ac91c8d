import { forgetCachedCompany } from '#companies/api-keys.js';
import { parseCompanyPatch } from '#companies/company-schema.js';
import { updateCompany } from '#companies/company-store.js';
import { NotFoundError } from '#platform/errors.js';
import { api, idParam } from '#http/http.js';
import { parseJsonBody } from '#http/json-body.js';

export const handler = api('UpdateCompany', async ({ event, company, publicBase }) => {
  // D3: the record must be the company acted for; any other company is "not found".
  if (idParam(event) !== company!.id) throw new NotFoundError();
  const patch = parseCompanyPatch(parseJsonBody(event));
  const updated = await updateCompany(company!.id, patch, publicBase);
  forgetCachedCompany(company!.id);
  return { body: updated };
});
