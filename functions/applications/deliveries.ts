import { listDeliveries } from '#delivery/delivery-log.js';
import { NotFoundError } from '#platform/errors.js';
import { api, idParam } from '#http/http.js';

/** Issue 44 (D23): the ATS calls made for one application, newest first. */
export const handler = api('ListApplicationDeliveries', async ({ event, company, query, link }) => {
  const id = idParam(event);
  if (id === undefined) throw new NotFoundError();
  return { body: await listDeliveries(company!.id, id, query, link) };
});
