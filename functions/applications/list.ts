import { listApplications } from '../../shared/applications.js';
import { api } from '../../shared/http.js';

export const handler = api('ListApplications', async ({ company, query, link }) => ({ body: await listApplications(company!.id, query, link) }));
