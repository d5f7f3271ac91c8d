import { listApplications } from '#applications/application-list.js';
import { api } from '#http/http.js';

export const handler = api('ListApplications', async ({ company, query, link }) => ({
  body: await listApplications(company!.id, query, link),
}));
