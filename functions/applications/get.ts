import { getApplication } from '#applications/application-list.js';
import { NotFoundError } from '#platform/errors.js';
import { api, idParam } from '#http/http.js';

export const handler = api('GetApplication', async ({ event, company }) => {
  const id = idParam(event);
  if (id === undefined) throw new NotFoundError();
  return { body: await getApplication(company!.id, id) };
});
