import { api } from '#http/http.js';
import { applyLinksFor } from '#jobs/apply-links.js';
import { listJobs } from '#jobs/job-list.js';

export const handler = api('ListJobs', async ({ company, query, link, publicBase }) => ({
  body: await listJobs(company!.id, query, link, applyLinksFor(company!, publicBase)),
}));
