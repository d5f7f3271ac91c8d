import { listCompanies } from '#companies/company-list.js';
import { api } from '#http/http.js';

export const handler = api('ListCompanies', async ({ principal, query, link, publicBase }) => ({
  body: await listCompanies({ partnerId: principal.partnerId, companyId: principal.companyId }, query, link, publicBase),
}));
