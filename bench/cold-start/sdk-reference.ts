/**
 * The SDK reference of `npm run bench:cold` (issue 13): one DynamoDB GetItem through the bundled, minified
 * SDK v3, bundled like every function. What a function takes beyond this is what our own code adds.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
const client = new DynamoDBClient({
  region: process.env.AWS_REGION ?? 'us-east-1',
  ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
});

export const handler = async () => {
  const out = await client.send(new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { PK: { S: 'BENCH' }, SK: { S: 'BENCH' } } }));
  return { statusCode: 200, body: JSON.stringify({ found: Boolean(out.Item) }) };
};
