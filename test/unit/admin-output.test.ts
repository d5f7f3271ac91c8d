/**
 * The admin tool's error mapping (local/admin/output.ts, P272): a domain error's fields renamed to the flags the
 * operator typed, its detail with them.
 */
import { ApiError, ValidationError, invalidField } from '#platform/errors.js';
import { withFlagNames } from '../../local/admin/output.js';

describe('withFlagNames', () => {
  const names = { board_token: '--board-token', api_key: '--api-key', status: 'STATUS' };
  const failing = (error: Error) => withFlagNames(() => Promise.reject(error), names);

  test('renames the fields and says the detail again with the new names', async () => {
    const error = await failing(
      new ValidationError({ board_token: ['This field is required.'], api_key: ['This field is required.'] }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).body()).toEqual({
      detail: 'Invalid values for "--board-token", "--api-key".',
      code: 'invalid',
      errors: { '--board-token': ['This field is required.'], '--api-key': ['This field is required.'] },
    });
    const status = await failing(invalidField('status', 'Must be one of invited, active.')).catch((e: unknown) => e);
    expect((status as ApiError).body()).toEqual({
      detail: 'Invalid value for "STATUS": Must be one of invited, active.',
      code: 'invalid',
      errors: { STATUS: ['Must be one of invited, active.'] },
    });
  });

  test('a detail of its own is kept', async () => {
    const rejected = new ApiError(400, 'credentials_rejected', 'The ATS rejected the credentials: wrong key', { api_key: ['wrong key'] });
    const error = (await failing(rejected).catch((e: unknown) => e)) as ApiError;
    expect(error.body()).toEqual({
      detail: 'The ATS rejected the credentials: wrong key',
      code: 'credentials_rejected',
      errors: { '--api-key': ['wrong key'] },
    });
  });
});
