/**
 * The embedded stand-ins for AWS: dynalite (DynamoDB) and fauxqs (SQS, SNS, S3), started in-process on
 * loopback with their data under one directory, and the table, queues, topic and bucket created from the
 * same definitions the CDK stack uses. Pointing the environment at them is all the service code sees.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { batchPut } from '#platform/batch.js';
import dynalite from 'dynalite';
import { startFauxqs } from 'fauxqs';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '#platform/batch.js';
import { EXPIRY_SHARDS } from '#platform/keys.js';
import { db, dynamoClient, resetClients } from '#platform/clients.js';
import { forgetIdBlocks } from '#platform/ids.js';
import { LOCAL_PREFIX, resources } from '#platform/resources.js';
import { createTableInput, tableDefinition } from '#platform/table.js';
import { ensureLocalKeyFile } from '#platform/secrets.js';
import { startTransactionProxy } from './dynamo-transactions.js';

export interface Emulators {
  /** Environment variables that point the service at the emulators. */
  env: Record<string, string>;
  /** Whether the table was created by this start (an empty data directory). */
  fresh: boolean;
  fauxqs: Awaited<ReturnType<typeof startFauxqs>>;
  stop(): Promise<void>;
}

const ACCOUNT = '000000000000';
const REGION = 'us-east-1';

/** fauxqs listens on every interface; ours must listen on loopback only, so its one listen call is steered. */
async function startFauxqsOnLoopback(options: Parameters<typeof startFauxqs>[0]) {
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (this: net.Server, ...args: any[]) {
    if (args[0] && typeof args[0] === 'object' && (args[0] as net.ListenOptions).host === '0.0.0.0')
      args[0] = { ...args[0], host: '127.0.0.1' };
    return listen.apply(this, args as any);
  } as typeof listen;
  try {
    return await startFauxqs(options);
  } finally {
    net.Server.prototype.listen = listen;
  }
}

async function ensureTable(tableName: string): Promise<boolean> {
  try {
    const out = await dynamoClient().send(new DescribeTableCommand({ TableName: tableName }));
    // An index missing, or one whose keys changed (KEYS took the compact `KSK` sort key): rebuild.
    const present = new Map(
      (out.Table?.GlobalSecondaryIndexes ?? []).map((i) => [i.IndexName, (i.KeySchema ?? []).map((k) => k.AttributeName).join('/')]),
    );
    const missing = tableDefinition.globalSecondaryIndexes.filter((i) => present.get(i.name) !== `${i.partitionKey}/${i.sortKey}`);
    if (missing.length) await rebuildTable(tableName);
    return false;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  await createTable(tableName);
  return true;
}

/**
 * A data directory from before an index was added: DynamoDB adds indexes to a live table (CloudFormation,
 * one per deployment), dynalite cannot, so locally the table is rebuilt with every item kept. The
 * attributes the new indexes need are then written by `hiring-admin migrate`, as on AWS.
 */
async function rebuildTable(tableName: string): Promise<void> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  await dynamoClient().send(new DeleteTableCommand({ TableName: tableName }));
  await createTable(tableName);
  await batchPut(items);
}

async function createTable(tableName: string): Promise<void> {
  await dynamoClient().send(new CreateTableCommand(createTableInput(tableName)));
  // dynalite marks the table ACTIVE a tick later, asynchronously; until then it answers ResourceNotFound.
  for (let waited = 0; ; waited += 10) {
    const { Table } = await dynamoClient().send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    if (waited > 10_000) throw new Error(`table ${tableName} did not become ACTIVE`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await dynamoClient().send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
    }),
  );
}

function persistentSecret(dataDir: string): string {
  const file = join(dataDir, 'cursor-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/**
 * dynalite keeps items forever; DynamoDB deletes items whose TTL attribute (epoch seconds) has passed,
 * within a day or two. Locally a reaper does it every minute, so idempotency records and sandbox receipts
 * (which hold personal data) expire here too. It reads only what has expired: the EXPIRY index's shards
 * up to now, and Powertools' idempotency partition (24 hours of records at most).
 */
export async function reapExpiredItems(tableName: string): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const expired: Record<string, unknown>[] = [];
  for (let shard = 0; shard < EXPIRY_SHARDS; shard++)
    expired.push(
      ...(await queryAll({
        IndexName: 'EXPIRY',
        KeyConditionExpression: 'TTLPK = :pk AND TTLSK < :now',
        ExpressionAttributeValues: { ':pk': `TTL#${shard}`, ':now': String(now).padStart(12, '0') },
      })),
    );
  expired.push(
    ...(await queryAll({
      KeyConditionExpression: 'PK = :pk',
      FilterExpression: '#ttl < :now',
      ExpressionAttributeNames: { '#ttl': tableDefinition.ttlAttribute },
      ExpressionAttributeValues: { ':pk': 'IDEMPOTENCY', ':now': now },
      ProjectionExpression: 'PK, SK',
    })),
  );
  for (const item of expired) await db().send(new DeleteCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK } }));
}

function startTtlReaper(tableName: string): NodeJS.Timeout {
  const timer = setInterval(() => void reapExpiredItems(tableName).catch(() => undefined), 60_000);
  timer.unref();
  return timer;
}

export async function startEmulators(dataDir: string): Promise<Emulators> {
  mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
  mkdirSync(join(dataDir, 'fauxqs'), { recursive: true });
  mkdirSync(join(dataDir, 's3'), { recursive: true });

  const dynamo = dynalite({ path: join(dataDir, 'dynamodb'), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    dynamo.once('error', reject);
    dynamo.listen(0, '127.0.0.1', () => resolve());
  });
  const proxy = await startTransactionProxy((dynamo.address() as net.AddressInfo).port);
  const dynamoPort = proxy.port;
  const fauxqs = await startFauxqsOnLoopback({
    port: 0,
    logger: false,
    dataDir: join(dataDir, 'fauxqs'),
    s3StorageDir: join(dataDir, 's3'),
  });
  const sqsBase = `http://127.0.0.1:${fauxqs.port}`;
  const name = (suffix: string) => `${LOCAL_PREFIX}-${suffix}`;

  const dlqArn = `arn:aws:sqs:${REGION}:${ACCOUNT}:${name(resources.syncDeadLetterQueue.name)}`;
  const importDlqArn = `arn:aws:sqs:${REGION}:${ACCOUNT}:${name(resources.jobImportDeadLetterQueue.name)}`;
  const webhookDlqArn = `arn:aws:sqs:${REGION}:${ACCOUNT}:${name(resources.webhookDeadLetterQueue.name)}`;
  fauxqs.setup({
    queues: [
      {
        name: name(resources.syncDeadLetterQueue.name),
        attributes: { MessageRetentionPeriod: String(resources.syncDeadLetterQueue.retentionSeconds) },
      },
      {
        name: name(resources.syncQueue.name),
        attributes: {
          VisibilityTimeout: String(resources.syncQueue.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: String(resources.syncQueue.maxReceiveCount) }),
        },
      },
      {
        name: name(resources.jobImportDeadLetterQueue.name),
        attributes: { MessageRetentionPeriod: String(resources.jobImportDeadLetterQueue.retentionSeconds) },
      },
      {
        name: name(resources.jobImportQueue.name),
        attributes: {
          VisibilityTimeout: String(resources.jobImportQueue.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: importDlqArn,
            maxReceiveCount: String(resources.jobImportQueue.maxReceiveCount),
          }),
        },
      },
      {
        name: name(resources.webhookDeadLetterQueue.name),
        attributes: { MessageRetentionPeriod: String(resources.webhookDeadLetterQueue.retentionSeconds) },
      },
      {
        name: name(resources.webhookQueue.name),
        attributes: {
          VisibilityTimeout: String(resources.webhookQueue.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: webhookDlqArn,
            maxReceiveCount: String(resources.webhookQueue.maxReceiveCount),
          }),
        },
      },
    ],
    topics: [{ name: name(resources.eventsTopic.name) }],
    // As on AWS: the webhook queue receives every event, raw (the envelope itself, not SNS's wrapper).
    subscriptions: [
      { topic: name(resources.eventsTopic.name), queue: name(resources.webhookQueue.name), attributes: { RawMessageDelivery: 'true' } },
    ],
    buckets: [name(resources.attachmentsBucket.name)],
  });

  const env: Record<string, string> = {
    AWS_REGION: REGION,
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${dynamoPort}`,
    AWS_ENDPOINT_URL_SQS: sqsBase,
    AWS_ENDPOINT_URL_SNS: sqsBase,
    AWS_ENDPOINT_URL_S3: sqsBase,
    TABLE_NAME: name('table'),
    BUCKET_NAME: name(resources.attachmentsBucket.name),
    // Queue URLs on the loopback address: fauxqs routes by path, and *.localhost does not resolve here.
    SYNC_QUEUE_URL: `${sqsBase}/${ACCOUNT}/${name(resources.syncQueue.name)}`,
    SYNC_DLQ_URL: `${sqsBase}/${ACCOUNT}/${name(resources.syncDeadLetterQueue.name)}`,
    JOB_IMPORT_QUEUE_URL: `${sqsBase}/${ACCOUNT}/${name(resources.jobImportQueue.name)}`,
    JOB_IMPORT_DLQ_URL: `${sqsBase}/${ACCOUNT}/${name(resources.jobImportDeadLetterQueue.name)}`,
    WEBHOOK_QUEUE_URL: `${sqsBase}/${ACCOUNT}/${name(resources.webhookQueue.name)}`,
    WEBHOOK_DLQ_URL: `${sqsBase}/${ACCOUNT}/${name(resources.webhookDeadLetterQueue.name)}`,
    EVENTS_TOPIC_ARN: `arn:aws:sns:${REGION}:${ACCOUNT}:${name(resources.eventsTopic.name)}`,
    CURSOR_SECRET: persistentSecret(dataDir),
    // D18 locally: ATS credentials are sealed under a key kept in the data directory (AES-256-GCM).
    CREDENTIALS_KEY_FILE: join(dataDir, 'credentials.key'),
  };
  ensureLocalKeyFile(env.CREDENTIALS_KEY_FILE);
  Object.assign(process.env, env);
  resetClients();
  forgetIdBlocks();
  const fresh = await ensureTable(env.TABLE_NAME);

  const reaper = startTtlReaper(env.TABLE_NAME);

  return {
    env,
    fresh,
    fauxqs,
    async stop() {
      clearInterval(reaper);
      resetClients();
      await fauxqs.stop();
      await proxy.close();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
    },
  };
}
