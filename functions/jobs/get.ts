import { NotFoundError } from '../../shared/errors.js';
import { api, idParam } from '../../shared/http.js';
import { getJob, toJob } from '../../shared/jobs.js';

export const handler = api('GetJob', async ({ event, company }) => {
  const id = idParam(event);
  if (id === undefined) throw new NotFoundError();
  return { body: toJob(await getJob(company!.id, id), false) };
});
