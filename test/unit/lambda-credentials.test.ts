/**
 * The credential provider the bundles get instead of the SDK's default chain (P137): the execution role's
 * credentials from the environment, as Lambda sets them, and a clear failure without them.
 */
import { defaultProvider } from '#platform/lambda-credentials.js';

const NAMES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'] as const;
let saved: Partial<Record<(typeof NAMES)[number], string>>;
beforeEach(() => {
  saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
  for (const name of NAMES) delete process.env[name];
});
afterEach(() => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

test("the execution role's credentials come from the environment, session token included", async () => {
  process.env.AWS_ACCESS_KEY_ID = 'ASIAEXAMPLE';
  process.env.AWS_SECRET_ACCESS_KEY = 'secret';
  process.env.AWS_SESSION_TOKEN = 'token';
  await expect(defaultProvider()()).resolves.toMatchObject({
    accessKeyId: 'ASIAEXAMPLE',
    secretAccessKey: 'secret',
    sessionToken: 'token',
  });
});

test('without them it fails, instead of looking elsewhere', async () => {
  await expect(defaultProvider()()).rejects.toThrow(/environment variable credentials/);
});
