import fc from 'fast-check';
import { JOB_CONTENT_FIELDS, fingerprintOf, parseJobFeed, toJob } from '#jobs/job-schema.js';
import { ValidationError } from '#platform/errors.js';

const content = (overrides: Record<string, unknown> = {}) =>
  Object.fromEntries(JOB_CONTENT_FIELDS.map((f) => [f, overrides[f] ?? null])) as Parameters<typeof fingerprintOf>[0];

describe('job fingerprint (D14)', () => {
  test('independent of key order, sensitive to any content change', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue(), { maxKeys: 6 }),
        fc.string(),
        (custom, title) => {
          const reversed = Object.fromEntries(Object.entries(custom).reverse());
          expect(fingerprintOf(content({ custom_fields: custom, title }))).toBe(fingerprintOf(content({ custom_fields: reversed, title })));
          expect(fingerprintOf(content({ custom_fields: custom, title }))).not.toBe(
            fingerprintOf(content({ custom_fields: custom, title: `${title}!` })),
          );
        },
      ),
    );
  });

  test('a feed is validated whole, with paths naming the job', async () => {
    await expect(parseJobFeed({})).rejects.toThrow(ValidationError);
    try {
      await parseJobFeed([{ external_id: 'a' }, { external_id: 'b', remote: 'office' }, { title: 'x' }, { external_id: 'a' }]);
      throw new Error('expected a ValidationError');
    } catch (error) {
      expect((error as ValidationError).errors).toEqual({
        '[1].remote': [expect.stringContaining('remote')],
        '[2].external_id': ['This field is required.'],
        '[3].external_id': ['Duplicate external_id in the feed.'],
      });
    }
  });

  test('the list form turns section order into a string and nothing else (D11)', () => {
    const record = {
      ...content({ description_sections: [{ id: 's', type: 't', order: 3 }] }),
      id: 1,
      company: 2,
      status: 'active',
      raw_values: {},
      import_source: 'api',
      run_id: 'r',
      fingerprint: 'f',
      created_at: 'c',
      updated_at: 'u',
      last_content_update_at: 'l',
    } as never;
    expect((toJob(record, true).description_sections as { order: unknown }[])[0].order).toBe('3');
    expect((toJob(record, false).description_sections as { order: unknown }[])[0].order).toBe(3);
    expect(toJob(record, false).senority).toBeNull();
  });
});
