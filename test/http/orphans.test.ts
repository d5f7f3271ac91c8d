/**
 * Orphan attachments (issue 12, fault point "after the S3 upload, before the transaction"): a create that
 * stops between uploading its objects and committing leaves objects behind; the reconciler deletes them once
 * their pending-upload markers are due, and never touches the objects of a committed application.
 */
import { storeAttachments } from '#applications/attachment-upload.js';
import { reconcilePendingUploads } from '#delivery/orphans.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { allItems, objectKeys } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
const pdf = Buffer.from('%PDF-1.4 orphan test');
const pendingMarkers = async () => (await allItems()).filter((item) => String(item.PK).startsWith('PENDINGUPLOAD#'));

beforeAll(async () => {
  api = await startTestRuntime();
});
afterAll(() => api.stop());

test('a crash after the upload leaves an object the reconciler deletes when due; committed objects stay', async () => {
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements: [] });
  await withJobs(company.id, [{ external_id: 'J', title: 'Cook' }]);
  const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id;

  const created = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: {
      job,
      candidate: { email: 'a@example.com', full_name: 'A B' },
      attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: pdf.toString('base64') }],
    },
  });
  expect(created.status).toBe(201);
  const committed = await objectKeys(`companies/${company.id}/applications/${created.body.id}/`);
  expect(committed).toHaveLength(1);
  // The create's transaction cleared its marker.
  expect(await pendingMarkers()).toEqual([]);

  // The crash: objects uploaded for an application id that is never written.
  const [orphan] = await storeAttachments(company.id, 999_999, [
    { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: pdf.toString('base64') },
  ]);
  expect(await objectKeys(`companies/${company.id}/applications/999999/`)).toEqual([orphan.key]);
  expect((await pendingMarkers()).map((m) => m.object_key)).toEqual([orphan.key]);

  // Not due yet: nothing happens.
  expect(await reconcilePendingUploads(Date.now())).toEqual({ deleted: 0 });
  expect(await objectKeys(`companies/${company.id}/applications/999999/`)).toEqual([orphan.key]);

  // Due (the grace is an hour): the orphan goes, its marker too; the committed object stays.
  const later = Date.now() + 3601 * 1000;
  expect(await reconcilePendingUploads(later)).toEqual({ deleted: 1 });
  expect(await objectKeys(`companies/${company.id}/applications/999999/`)).toEqual([]);
  expect(await pendingMarkers()).toEqual([]);
  expect(await objectKeys(`companies/${company.id}/applications/${created.body.id}/`)).toEqual(committed);
  const read = await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId: company.id });
  expect(read.body.attachments).toHaveLength(1);

  // Running it again finds nothing.
  expect(await reconcilePendingUploads(later)).toEqual({ deleted: 0 });
});
