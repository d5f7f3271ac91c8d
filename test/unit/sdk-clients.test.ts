/**
 * The service's AWS SDK clients carry no logger middleware (P374): it would walk every call's input and output
 * through the operation's schema to build log entries for the no-op logger we leave the SDK.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoClient, kms, quietClient, resetClients, s3, sns, sqs } from '#platform/clients.js';

const loggers = (client: { middlewareStack: { identify(): string[] } }) =>
  client.middlewareStack.identify().filter((entry) => entry.startsWith('loggerMiddleware'));

afterAll(() => resetClients());

test('a client as the SDK makes it has the logger middleware, by the name quietClient removes (a rename would show here)', () => {
  const plain = new DynamoDBClient({ region: 'eu-west-1' });
  expect(loggers(plain)).toEqual(['loggerMiddleware - initialize']);
  expect(loggers(quietClient(plain))).toEqual([]);
  plain.destroy();
});

test('none of the service clients has it', async () => {
  for (const client of [dynamoClient(), s3(), sqs(), sns(), await kms()]) expect(loggers(client)).toEqual([]);
});
