import { NotFoundError } from '#platform/errors.js';
import { api, idParam } from '#http/http.js';
import { getJobView } from '#jobs/jobs.js';

export const handler = api('GetJob', async ({ event, company }) => {
  const id = idParam(event);
  if (id === undefined) throw new NotFoundError();
  return { body: await getJobView(company!.id, id) };
});
