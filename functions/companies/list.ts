import { listCompanies } from '../../shared/companies.js';
import { api } from '../../shared/http.js';

export const handler = api('ListCompanies', async ({ principal, query, link }) => ({
  body: await listCompanies({ partnerId: principal.partnerId, companyId: principal.companyId }, query, link),
}));
