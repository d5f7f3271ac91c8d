/**
 * The AWS SDK clients, one module-scope singleton each, created on first use. Environment variables are
 * the only switch between AWS and the local emulators: `AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL_S3`,
 * `AWS_ENDPOINT_URL_SQS`, `AWS_ENDPOINT_URL_SNS` (and, for tests, `AWS_ENDPOINT_URL_KMS`) point at the emulators locally and are unset on AWS.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SNSClient } from '@aws-sdk/client-sns';
import type { KMSClient } from '@aws-sdk/client-kms';
import { recordDynamoCall } from '#platform/request-metrics.js';

export interface ServiceConfig {
  tableName: string;
  bucketName: string;
  syncQueueUrl: string;
  eventsTopicArn: string;
  jobImportQueueUrl: string;
  webhookQueueUrl: string;
}

export function config(): ServiceConfig {
  return {
    tableName: required('TABLE_NAME'),
    bucketName: process.env.BUCKET_NAME ?? '',
    syncQueueUrl: process.env.SYNC_QUEUE_URL ?? '',
    eventsTopicArn: process.env.EVENTS_TOPIC_ARN ?? '',
    jobImportQueueUrl: process.env.JOB_IMPORT_QUEUE_URL ?? '',
    webhookQueueUrl: process.env.WEBHOOK_QUEUE_URL ?? '',
  };
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}

/**
 * A client without the SDK's logger middleware (P374). We give the SDK no logger, so it logs to a no-op one; but
 * the middleware still builds each log entry before handing it over: it walks every call's input and output
 * through the operation's schema to mask sensitive members: a tenth of the SDK's CPU in ten HTTP test files'
 * profile (1.3 of 12.4 s). Without it nothing is logged, as before, and nothing is walked.
 */
export function quietClient<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

function base(endpointVariable: string) {
  const endpoint = process.env[endpointVariable];
  return {
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  };
}

/** The item and query operations, whose calls ask for and report their consumed capacity. */
const ACCOUNTED =
  /^(GetItem|PutItem|UpdateItem|DeleteItem|Query|Scan|BatchGetItem|BatchWriteItem|TransactGetItems|TransactWriteItems|Get|Put|Update|Delete|BatchGet|BatchWrite|TransactGet|TransactWrite)Command$/;

/** Of those, the ones that write (their units are write units). */
const WRITES = /^(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems|Put|Update|Delete|BatchWrite|TransactWrite)Command$/;

/**
 * A write that meets a transaction in progress on the same item, or a transaction that meets another write,
 * is refused whole (`TransactionConflictException`, or a cancellation whose reasons are only
 * `TransactionConflict` and `None`), with nothing written: DynamoDB's advice is to retry, which the SDK does
 * not do for these. Our proxy over dynalite serialised them instead, so they never showed before P186.
 */
const CONFLICT_ATTEMPTS = 6;
const CONFLICT_BACKOFF_MS = 10;

export function isTransactionConflict(error: unknown): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === 'TransactionConflictException') return true;
  if (e?.name !== 'TransactionCanceledException' || !e.CancellationReasons?.length) return false;
  const codes = e.CancellationReasons.map((r) => r.Code ?? 'None');
  return codes.includes('TransactionConflict') && codes.every((c) => c === 'None' || c === 'TransactionConflict');
}

/**
 * Locally only: a stand-in whose accounting of transactions is not AWS's (DynamoDB Local, P188) lets the
 * local runtime price a TransactWriteItems by AWS's documented formula instead. It gets the command's input
 * and sends it; what it returns is what the account records. Unset on AWS and in Lambda.
 */
export type TransactionAccountant = <R extends { output: unknown }>(input: Record<string, unknown>, send: () => Promise<R>) => Promise<R>;
let transactionAccountant: TransactionAccountant | undefined;

export function setTransactionAccountant(accountant: TransactionAccountant | undefined): void {
  transactionAccountant = accountant;
}

let dynamo: DynamoDBClient | undefined;
let documentClient: DynamoDBDocumentClient | undefined;
let s3Client: S3Client | undefined;
let sqsClient: SQSClient | undefined;
let snsClient: SNSClient | undefined;
let kmsClient: KMSClient | undefined;

/**
 * The DynamoDB client. Every item or query call made through it (by the document client, by Powertools
 * idempotency, by anything else) asks for its consumed capacity and adds it to the request's account.
 */
export function dynamoClient(): DynamoDBClient {
  if (!dynamo) {
    dynamo = quietClient(new DynamoDBClient(base('AWS_ENDPOINT_URL_DYNAMODB')));
    dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        const accounted = ACCOUNTED.test(String(context.commandName));
        const input = args.input as Record<string, unknown>;
        if (accounted) input.ReturnConsumedCapacity ??= 'TOTAL';
        const startedAt = performance.now();
        const result =
          transactionAccountant && context.commandName === 'TransactWriteItemsCommand'
            ? await transactionAccountant(input, () => next(args))
            : await next(args);
        if (accounted)
          recordDynamoCall(
            (result.output as { ConsumedCapacity?: Parameters<typeof recordDynamoCall>[0] }).ConsumedCapacity,
            WRITES.test(String(context.commandName)) ? 'write' : 'read',
            startedAt,
          );
        return result;
      },
      { step: 'initialize', name: 'accountConsumedCapacity' },
    );
    dynamo.middlewareStack.add(
      (next) => async (args) => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await next(args);
          } catch (error) {
            if (attempt >= CONFLICT_ATTEMPTS || !isTransactionConflict(error)) throw error;
            await new Promise((r) => setTimeout(r, Math.random() * CONFLICT_BACKOFF_MS * 2 ** attempt));
          }
        }
      },
      { step: 'initialize', name: 'retryTransactionConflicts' },
    );
  }
  return dynamo;
}

export function db(): DynamoDBDocumentClient {
  return (documentClient ??= DynamoDBDocumentClient.from(dynamoClient(), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  }));
}

export function s3(): S3Client {
  return (s3Client ??= quietClient(
    new S3Client({ ...base('AWS_ENDPOINT_URL_S3'), forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3) }),
  ));
}

export function sqs(): SQSClient {
  return (sqsClient ??= quietClient(new SQSClient(base('AWS_ENDPOINT_URL_SQS'))));
}

export function sns(): SNSClient {
  return (snsClient ??= quietClient(new SNSClient(base('AWS_ENDPOINT_URL_SNS'))));
}

/**
 * The KMS client, its module imported on first use (P288): only a secret sealed or opened on AWS calls KMS (locally
 * the key is a file), so a function that reads no credentials, or none of a company whose ATS has any, never loads
 * it, and one that does loads it while its other first requests are on the way.
 */
export async function kms(): Promise<KMSClient> {
  const { KMSClient } = await import('#platform/kms.js');
  return (kmsClient ??= quietClient(new KMSClient(base('AWS_ENDPOINT_URL_KMS'))));
}

/** Forget the singletons (the local runtime calls this after it has pointed the environment elsewhere). */
export function resetClients(): void {
  for (const client of [dynamo, s3Client, sqsClient, snsClient, kmsClient]) client?.destroy();
  dynamo = documentClient = s3Client = sqsClient = snsClient = kmsClient = undefined;
}
