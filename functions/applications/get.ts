import { getApplication } from '../../shared/applications.js';
import { NotFoundError } from '../../shared/errors.js';
import { api, idParam } from '../../shared/http.js';

export const handler = api('GetApplication', async ({ event, company }) => {
  const id = idParam(event);
  if (id === undefined) throw new NotFoundError();
  return { body: await getApplication(company!.id, id) };
});
