import { NotFoundError } from '#platform/errors.js';
import { api, idParam } from '#http/http.js';
import { applyLinksFor } from '#jobs/apply-links.js';
import { getJobView } from '#jobs/job-list.js';

export const handler = api('GetJob', async ({ event, company, publicBase }) => {
  const id = idParam(event);
  if (id === undefined) throw new NotFoundError();
  return { body: await getJobView(company!.id, id, applyLinksFor(company!, publicBase)) };
});
