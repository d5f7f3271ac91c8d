/**
 * Read-only looks into the emulators' stores, for asserting what a request left behind (or did not):
 * table items, bucket objects and queue messages. Tests never write through these.
 */
import { ListObjectsV2Command, GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { config, db, s3, sqs } from '#platform/clients.js';

export async function allItems(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new ScanCommand({ TableName: config().tableName, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

export async function applicationItems(): Promise<Record<string, unknown>[]> {
  return (await allItems()).filter((item) => String(item.PK).startsWith('APPLICATION#'));
}

export async function objectKeys(prefix = ''): Promise<string[]> {
  const out = await s3().send(new ListObjectsV2Command({ Bucket: config().bucketName, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

export async function objectBytes(key: string): Promise<Buffer> {
  const out = await s3().send(new GetObjectCommand({ Bucket: config().bucketName, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

export async function objectHead(key: string) {
  return s3().send(new HeadObjectCommand({ Bucket: config().bucketName, Key: key }));
}

/** Receives and deletes every message now visible on a queue. */
export async function drainQueue(queueUrl = config().syncQueueUrl): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const out = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!out.Messages?.length) return bodies;
    for (const message of out.Messages) {
      bodies.push(message.Body ?? '');
      await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
    }
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

/**
 * What the stores hold, for asserting that a request left nothing behind: every table item (but the id
 * counters, whose blocks an instance reserves ahead, and the hourly `last_used_at` of keys), every object
 * key, and the sync messages now waiting (which it consumes).
 */
export async function storeState(): Promise<{ items: string[]; objects: string[]; messages: number }> {
  const items = (await allItems())
    .filter((item) => !String(item.PK).startsWith('IDCOUNTER#'))
    .map(({ last_used_at: _lastUsed, ...rest }) => canonical(rest))
    .sort();
  return { items, objects: (await objectKeys()).sort(), messages: (await drainQueue()).length };
}
