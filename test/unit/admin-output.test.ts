/**
 * The admin tool's error mapping (local/admin/output.ts, P272): which errors are the AWS credentials' fault, and a
 * domain error's fields renamed to the flags the operator typed, its detail with them.
 */
import { ApiError, ValidationError, invalidField } from '#platform/errors.js';
import { SecretUnavailableError } from '#platform/secrets.js';
import { errorBody, withFlagNames } from '../../local/admin/output.js';

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

test.each([
  ['CredentialsProviderError', 'Could not load credentials from any providers'],
  ['ExpiredTokenException', 'The security token included in the request is expired'],
  ['UnrecognizedClientException', 'The security token included in the request is invalid.'],
  ['InvalidClientTokenId', 'The security token included in the request is invalid.'],
  ['InvalidSignatureException', 'The request signature we calculated does not match the signature you provided.'],
])('%s is an AWS credentials problem', async (name, message) => {
  expect(await errorBody(named(name, message), undefined)).toEqual({
    body: { detail: `AWS credentials: ${message}`, code: 'aws_credentials' },
    exitCode: 1,
  });
});

test('an error that only mentions credentials is not an AWS credentials problem', async () => {
  const missingKey = new SecretUnavailableError('neither CREDENTIALS_KMS_KEY_ID nor CREDENTIALS_KEY_FILE is set');
  expect(await errorBody(missingKey, undefined)).toEqual({
    body: {
      detail: 'SecretUnavailableError: secret not available: neither CREDENTIALS_KMS_KEY_ID nor CREDENTIALS_KEY_FILE is set',
      code: 'internal_error',
    },
    exitCode: 1,
  });
  expect((await errorBody(new Error('The ATS rejected the credentials'), undefined)).body.code).toBe('internal_error');
});

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
