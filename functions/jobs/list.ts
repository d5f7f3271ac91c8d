import { api } from '#http/http.js';
import { listJobs } from '#jobs/jobs.js';

export const handler = api('ListJobs', async ({ company, query, link }) => ({ body: await listJobs(company!.id, query, link) }));
