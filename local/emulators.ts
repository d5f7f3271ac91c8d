/**
 * The embedded stand-ins for AWS: AWS's DynamoDB Local (a JVM, `dynamodb-local.ts`) and fauxqs (SQS, SNS,
 * S3, in-process), on loopback with their data under one directory, and the table (with its stream and TTL),
 * queues, topic and bucket created from the same definitions the CDK stack uses. Pointing the environment at
 * them is all the service code sees. A test run shares one DynamoDB Local (started by Jest's global set-up,
 * `DYNAMODB_LOCAL_ENDPOINT`), with a table of its own per runtime.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import { join, resolve } from 'node:path';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { startFauxqs } from 'fauxqs';
import { keepMultipartPartsOnDisk } from './fauxqs-disk-parts.js';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, dynamoClient, resetClients } from '#platform/clients.js';
import { forgetIdBlocks } from '#platform/ids.js';
import { LOCAL_PREFIX, resources } from '#platform/resources.js';
import { createTableInput, tableDefinition } from '#platform/table.js';
import { ensureLocalKeyFile } from '#platform/secrets.js';
import { logger } from '#platform/logger.js';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.js';
import { installTransactionFormula } from './capacity-formula.js';

export interface Emulators {
  /** Environment variables that point the service at the emulators. */
  env: Record<string, string>;
  /** Whether the table was created by this start (an empty data directory). */
  fresh: boolean;
  fauxqs: Awaited<ReturnType<typeof startFauxqs>>;
  stop(): Promise<void>;
}

export interface EmulatorOptions {
  /** Delete the table when stopping (a test runtime's table in the shared DynamoDB Local). */
  dropTable?: boolean;
}

const ACCOUNT = '000000000000';
const REGION = 'us-east-1';

/** Set by Jest's global set-up: the DynamoDB Local every runtime of the test run shares. */
export const SHARED_DYNAMODB_VARIABLE = 'DYNAMODB_LOCAL_ENDPOINT';

/** fauxqs listens on every interface; ours must listen on loopback only, so its one listen call is steered. */
export async function startFauxqsOnLoopback(options: Parameters<typeof startFauxqs>[0]) {
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

async function waitForTable(tableName: string, ready: (table: Awaited<ReturnType<typeof describe>>) => boolean): Promise<void> {
  for (let waited = 0; ; waited += 20) {
    if (ready(await describe(tableName))) return;
    if (waited > 30_000) throw new Error(`table ${tableName} did not become ready`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function describe(tableName: string) {
  return (await dynamoClient().send(new DescribeTableCommand({ TableName: tableName }))).Table;
}

/**
 * Creates the table, or brings an existing one to the definition the way a deployment does on AWS: a
 * missing index is added by UpdateTable (one at a time, as CloudFormation does), an index whose keys changed
 * is deleted and added again, and the stream is enabled with the definition's view type (P240: a stream of another
 * view type is turned off and on again). What a new index needs in existing items is written
 * by the backfill that ships with the change (docs/decisions.md, P190).
 */
async function ensureTable(tableName: string): Promise<boolean> {
  let table: Awaited<ReturnType<typeof describe>>;
  try {
    table = await describe(tableName);
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    await createTable(tableName);
    return true;
  }
  const input = createTableInput(tableName);
  // An index whose keys or projection differ from the definition is deleted and made again, as a deployment
  // replaces it (DynamoDB fills a new index from the table's items).
  const present = new Map(
    (table?.GlobalSecondaryIndexes ?? []).map((i) => [
      i.IndexName!,
      [
        ...(i.KeySchema ?? []).map((k) => k.AttributeName),
        i.Projection?.ProjectionType,
        ...(i.Projection?.NonKeyAttributes ?? []).toSorted(),
      ].join('/'),
    ]),
  );
  const wanted = new Map(
    tableDefinition.globalSecondaryIndexes.map((i) => [
      i.name as string,
      [i.partitionKey, i.sortKey, i.projection, ...('include' in i && i.include ? [...i.include].toSorted() : [])].join('/'),
    ]),
  );
  for (const [name, keys] of present) {
    if (wanted.get(name) === keys) continue;
    await dynamoClient().send(
      new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: name } }] }),
    );
    await waitForTable(tableName, (t) => !(t?.GlobalSecondaryIndexes ?? []).some((i) => i.IndexName === name));
    present.delete(name);
  }
  for (const index of input.GlobalSecondaryIndexes) {
    if (present.has(index.IndexName)) continue;
    await dynamoClient().send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: input.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    await waitForTable(tableName, (t) =>
      (t?.GlobalSecondaryIndexes ?? []).some((i) => i.IndexName === index.IndexName && i.IndexStatus === 'ACTIVE'),
    );
  }
  // A stream of another view type (NEW_IMAGE before P240) is turned off and on again with the wanted one, as a
  // deployment does: a new stream, whose relay starts at its beginning (what waits in the outbox stays).
  const stream = table?.StreamSpecification;
  if (stream?.StreamEnabled && stream.StreamViewType !== input.StreamSpecification.StreamViewType) {
    await dynamoClient().send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: false } }));
    await waitForTable(tableName, (t) => t?.TableStatus === 'ACTIVE');
  }
  if (!stream?.StreamEnabled || stream.StreamViewType !== input.StreamSpecification.StreamViewType)
    await dynamoClient().send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: input.StreamSpecification }));
  return false;
}

async function createTable(tableName: string): Promise<void> {
  await dynamoClient().send(new CreateTableCommand(createTableInput(tableName)));
  await waitForTable(tableName, (t) => t?.TableStatus === 'ACTIVE');
  // DynamoDB Local deletes expired items itself, as AWS does (AWS within days; nothing may depend on when).
  await dynamoClient().send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
    }),
  );
}

/**
 * DynamoDB Local 3.3.1 deletes expired items of a table without indexes within a second, but never those of
 * a table with global secondary indexes, as ours has (the probe: docs/access-patterns.md, "Where DynamoDB
 * Local differs"). AWS deletes them within days. So `npm start` (not the tests, whose tables are short-lived)
 * still reaps them every minute, with a Scan of the TTL attribute: local only, no index entries of its own,
 * and nothing in the service depends on when (or whether yet) an item has gone.
 */
export async function reapExpiredItems(tableName: string): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  let start: Record<string, unknown> | undefined;
  let deleted = 0;
  do {
    const out = await db().send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#ttl < :now',
        ExpressionAttributeNames: { '#ttl': tableDefinition.ttlAttribute },
        ExpressionAttributeValues: { ':now': now },
        ProjectionExpression: 'PK, SK',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      await db().send(new DeleteCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK } }));
      deleted += 1;
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return deleted;
}

/**
 * Runs `reapExpiredItems` a minute after the previous pass has finished, until stopped: one pass at a time, so
 * that on a large table (a Scan of 100,000 applications takes over a minute) passes never pile up.
 */
export function startTtlReaper(tableName: string, intervalMs = 60_000): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void reapExpiredItems(tableName)
        .catch(() => undefined)
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

function persistentSecret(dataDir: string): string {
  const file = join(dataDir, 'cursor-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/**
 * The DynamoDB Local this data directory uses: the test run's shared one (then the table is named after the
 * directory, so runtimes and admin commands on the same directory meet), or a JVM of its own keeping its
 * database file under `<dataDir>/dynamodb-local`.
 */
async function dynamoFor(dataDir: string): Promise<{ endpoint: string; tableName: string; own?: DynamoDbLocal }> {
  const shared = process.env[SHARED_DYNAMODB_VARIABLE];
  if (shared) {
    const suffix = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12);
    return { endpoint: shared, tableName: `${LOCAL_PREFIX}-table-${suffix}` };
  }
  if (existsSync(join(dataDir, 'dynamodb')))
    logger.warn(
      `${join(dataDir, 'dynamodb')} holds data of dynalite, the emulator used before DynamoDB Local; it is not read (see docs/decisions.md, P184)`,
    );
  const dbPath = join(dataDir, 'dynamodb-local');
  mkdirSync(dbPath, { recursive: true });
  const own = await startDynamoDbLocal({ dbPath });
  return { endpoint: own.endpoint, tableName: `${LOCAL_PREFIX}-table`, own };
}

export async function startEmulators(dataDir: string, options: EmulatorOptions = {}): Promise<Emulators> {
  mkdirSync(join(dataDir, 'fauxqs'), { recursive: true });
  mkdirSync(join(dataDir, 's3'), { recursive: true });

  // Multipart uploads' parts on disk, not in memory (P331).
  await keepMultipartPartsOnDisk();
  // The JVM starts while fauxqs does.
  const [dynamo, fauxqs] = await Promise.all([
    dynamoFor(dataDir),
    startFauxqsOnLoopback({
      port: 0,
      logger: false,
      dataDir: join(dataDir, 'fauxqs'),
      s3StorageDir: join(dataDir, 's3'),
    }),
  ]);
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
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SQS: sqsBase,
    AWS_ENDPOINT_URL_SNS: sqsBase,
    AWS_ENDPOINT_URL_S3: sqsBase,
    TABLE_NAME: dynamo.tableName,
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
  // Transactions priced by AWS's formula, not by DynamoDB Local's own figure (P188).
  const uninstallFormula = installTransactionFormula(dynamo.endpoint);

  return {
    env,
    fresh,
    fauxqs,
    async stop() {
      if (options.dropTable)
        await dynamoClient()
          .send(new DeleteTableCommand({ TableName: env.TABLE_NAME }))
          .catch(() => undefined);
      uninstallFormula();
      resetClients();
      await fauxqs.stop();
      await dynamo.own?.stop();
    },
  };
}
