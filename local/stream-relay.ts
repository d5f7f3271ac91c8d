/**
 * The table's stream, locally: a poller (`DescribeStream`, `GetShardIterator`, `GetRecords`) that feeds the
 * stream to the `EventRelay` function (`functions/event-relay.ts`, the handler that runs on AWS) the way
 * Lambda's DynamoDB event source mapping does (P115, P184):
 * - the stack's event filters (`trigger.filters`, ORed): records that match none are passed over, never delivered;
 * - batches of up to the trigger's batch size, each shard in order, a parent shard before its children;
 * - partial batch failures: the next batch starts at the first failed record;
 * - a failed invocation (an error, or a simulated crash at `relay.after-publish`) retries the same batch, up
 *   to the trigger's `retryAttempts`; then, like the mapping's on-failure destination, the batch is logged
 *   and passed over (its outbox items stay, for `hiring-admin outbox replay`; an item's event whose parking
 *   failed stays only on its item, P240).
 * `runOnce()` is one pass over every shard; `drain()` passes until one delivers nothing (tests); `npm start`
 * polls in the background.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type Shard,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { backgroundFunctions, matchesAnyFilter } from '#delivery/background-functions.js';
import { config, dynamoClient, quietClient } from '#platform/clients.js';
import { isSimulatedCrash } from '#platform/faults.js';
import { logger } from '#platform/logger.js';

export interface EventRelay {
  /** One pass over the stream's shards; resolves to the records delivered to the relay (failed ones included). */
  runOnce(): Promise<number>;
  /** Passes until one delivers nothing and fails nothing (or `maxWaitMs`, 120 s, passes); resolves to the records delivered. */
  drain(maxWaitMs?: number): Promise<number>;
  stop(): Promise<void>;
}

type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

interface ShardState {
  /** Where the next read starts: after the last record handled, or at a failed one. */
  position?: { type: Extract<ShardIteratorType, 'AFTER_SEQUENCE_NUMBER' | 'AT_SEQUENCE_NUMBER'>; sequence: string };
  /** Failed invocations of the batch at `position`. */
  attempts: number;
  /** The shard is closed and every record of it handled. */
  finished: boolean;
}

/** A stream record as Lambda hands it to a function. */
function lambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const change = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion ?? process.env.AWS_REGION ?? 'us-east-1',
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: change.ApproximateCreationDateTime
        ? Math.floor(change.ApproximateCreationDateTime.getTime() / 1000)
        : undefined,
      Keys: change.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
      NewImage: change.NewImage as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
      OldImage: change.OldImage as NonNullable<DynamoDBRecord['dynamodb']>['OldImage'],
      SequenceNumber: change.SequenceNumber,
      SizeBytes: change.SizeBytes,
      StreamViewType: change.StreamViewType as NonNullable<DynamoDBRecord['dynamodb']>['StreamViewType'],
    },
  };
}

export function startEventRelay(options: { background: boolean; idleMs?: number }): EventRelay {
  const definition = backgroundFunctions.find((f) => f.trigger.kind === 'outboxStream');
  if (!definition || definition.trigger.kind !== 'outboxStream')
    throw new Error('no outboxStream consumer in shared/delivery/background-functions.ts');
  const trigger = definition.trigger;
  let handler: Promise<StreamHandler> | undefined;
  let client: DynamoDBStreamsClient | undefined;
  let streamArn: string | undefined;
  const shards = new Map<string, ShardState>();
  let running = options.background;
  let inFlight: Promise<number> = Promise.resolve(0);
  let lastPassFailed = false;

  const streams = () =>
    (client ??= quietClient(
      new DynamoDBStreamsClient({
        region: process.env.AWS_REGION ?? 'us-east-1',
        endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    ));

  async function listShards(arn: string): Promise<Shard[]> {
    const all: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await streams().send(new DescribeStreamCommand({ StreamArn: arn, ExclusiveStartShardId: start }));
      all.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return all;
  }

  /** Hands one batch to the relay; resolves to whether the shard may go on (false: retry later). */
  async function deliver(records: _Record[], state: ShardState, arn: string): Promise<boolean> {
    const last = records[records.length - 1].dynamodb!.SequenceNumber!;
    const matching = records.map((r) => lambdaRecord(r, arn)).filter((r) => matchesAnyFilter(r, trigger.filters));
    if (!matching.length) {
      state.position = { type: 'AFTER_SEQUENCE_NUMBER', sequence: last };
      return true;
    }
    delivered += matching.length;
    handler ??= import(`../functions/${definition!.handler}.js`).then((m: { handler: StreamHandler }) => m.handler);
    let response: DynamoDBBatchResponse | void;
    try {
      response = await (await handler)({ Records: matching });
    } catch (error) {
      state.attempts += 1;
      failed = true;
      if (isSimulatedCrash(error)) logger.warn('event relay died (simulated crash); the batch is retried', { point: error.point });
      else logger.error('event relay invocation failed; the batch is retried', { error: error as Error });
      if (state.attempts <= trigger.retryAttempts) return false;
      // The mapping's retries are spent: the batch goes to the on-failure destination and the shard moves on.
      logger.error('event relay batch passed over after its retries; its outbox items wait for `outbox replay`', {
        firstSequenceNumber: matching[0].dynamodb?.SequenceNumber,
        records: matching.length,
      });
      state.position = { type: 'AFTER_SEQUENCE_NUMBER', sequence: last };
      state.attempts = 0;
      return true;
    }
    const failure = response?.batchItemFailures?.[0]?.itemIdentifier;
    if (failure) {
      failed = true;
      const sameBatch = state.position?.type === 'AT_SEQUENCE_NUMBER' && state.position.sequence === failure;
      state.attempts = sameBatch ? state.attempts + 1 : 1;
      if (state.attempts <= trigger.retryAttempts) {
        state.position = { type: 'AT_SEQUENCE_NUMBER', sequence: failure };
        return false;
      }
      logger.error('event relay batch passed over after its retries; its outbox items wait for `outbox replay`', {
        firstSequenceNumber: failure,
      });
      state.position = { type: 'AFTER_SEQUENCE_NUMBER', sequence: last };
      state.attempts = 0;
      return true;
    }
    state.position = { type: 'AFTER_SEQUENCE_NUMBER', sequence: last };
    state.attempts = 0;
    return true;
  }

  let delivered = 0;
  let failed = false;

  async function readShard(shard: Shard, state: ShardState, arn: string): Promise<void> {
    const iterator = await streams().send(
      new GetShardIteratorCommand({
        StreamArn: arn,
        ShardId: shard.ShardId!,
        ShardIteratorType: state.position?.type ?? 'TRIM_HORIZON',
        ...(state.position ? { SequenceNumber: state.position.sequence } : {}),
      }),
    );
    let next = iterator.ShardIterator;
    while (next) {
      const out = await streams().send(new GetRecordsCommand({ ShardIterator: next, Limit: trigger.batchSize }));
      const records = out.Records ?? [];
      if (records.length && !(await deliver(records, state, arn))) return;
      if (!out.NextShardIterator) state.finished = true;
      if (!records.length) return;
      next = out.NextShardIterator;
    }
  }

  async function pass(): Promise<number> {
    delivered = 0;
    failed = false;
    try {
      streamArn ??= (await dynamoClient().send(new DescribeTableCommand({ TableName: config().tableName }))).Table?.LatestStreamArn;
      if (!streamArn) throw new Error(`table ${config().tableName} has no stream`);
      const all = await listShards(streamArn);
      const known = new Set(all.map((s) => s.ShardId!));
      for (const shard of all) {
        const state = shards.get(shard.ShardId!) ?? { attempts: 0, finished: false };
        shards.set(shard.ShardId!, state);
        if (state.finished) continue;
        // In order: a child shard waits until its parent's records are handled.
        const parent = shard.ParentShardId;
        if (parent && known.has(parent) && !shards.get(parent)?.finished) continue;
        await readShard(shard, state, streamArn);
      }
    } catch (error) {
      failed = true;
      // Stopping (`npm start` on Ctrl-C or SIGTERM): the emulators may already be gone; that is no fault.
      if (running || !options.background) logger.error('stream poll failed', { error: error as Error });
    }
    lastPassFailed = failed;
    return delivered;
  }

  function runOnce(): Promise<number> {
    // One pass at a time, like one invocation per shard.
    inFlight = inFlight.then(pass, pass);
    return inFlight;
  }

  const loop = running
    ? (async () => {
        while (running) {
          const count = await runOnce();
          if (!count || lastPassFailed) await new Promise((r) => setTimeout(r, options.idleMs ?? 200));
        }
      })()
    : undefined;

  return {
    runOnce,
    async drain(maxWaitMs = 120_000) {
      const deadline = Date.now() + maxWaitMs;
      let total = 0;
      while (Date.now() < deadline) {
        const count = await runOnce();
        total += count;
        if (!count && !lastPassFailed) return total;
        if (lastPassFailed) await new Promise((r) => setTimeout(r, 50));
      }
      return total;
    },
    async stop() {
      running = false;
      await loop;
      await inFlight.catch(() => undefined);
      client?.destroy();
    },
  };
}
