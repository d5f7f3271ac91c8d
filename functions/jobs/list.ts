import { api } from '../../shared/http.js';
import { listJobs } from '../../shared/jobs.js';

export const handler = api('ListJobs', async ({ company, query, link }) => ({ body: await listJobs(company!.id, query, link) }));
