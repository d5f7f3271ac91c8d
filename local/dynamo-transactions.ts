/**
 * dynalite implements neither TransactWriteItems nor TransactGetItems (nor UpdateTimeToLive), and the
 * service writes every create with its counter and index items in one transaction. This loopback proxy
 * sits in front of dynalite and adds them: every write goes through one lock, so a transaction's
 * operations apply back to back with nothing in between; they are applied one by one with their
 * conditions, and if one fails the ones already applied are restored from their old images and the
 * client gets DynamoDB's TransactionCanceledException with CancellationReasons. Reads pass straight through.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';

type Item = Record<string, AttributeValue>;
type Json = Record<string, any>;

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

class Lock {
  private tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

export async function startTransactionProxy(targetPort: number): Promise<{ port: number; close(): Promise<void> }> {
  const target = `http://127.0.0.1:${targetPort}`;
  const client = new DynamoDBClient({
    endpoint: target,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const lock = new Lock();
  const keySchemas = new Map<string, string[]>();

  async function keyNames(table: string): Promise<string[]> {
    let names = keySchemas.get(table);
    if (!names) {
      const out = await client.send(new DescribeTableCommand({ TableName: table }));
      names = (out.Table?.KeySchema ?? []).map((k) => k.AttributeName!);
      keySchemas.set(table, names);
    }
    return names;
  }

  function forward(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const upstream = httpRequest(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (response) => {
        res.writeHead(response.statusCode ?? 500, response.headers);
        response.pipe(res);
        response.on('end', () => resolve());
      });
      upstream.on('error', (error) => {
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: error.message }));
        resolve();
      });
      upstream.end(body);
    });
  }

  function reply(res: ServerResponse, status: number, body: Json): void {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `proxy-${Date.now()}` });
    res.end(JSON.stringify(body));
  }

  /** Puts back an item as it was before a transaction touched it. */
  async function restore(table: string, key: Item, old: Item | undefined): Promise<void> {
    if (old) await client.send(new PutItemCommand({ TableName: table, Item: old }));
    else await client.send(new DeleteItemCommand({ TableName: table, Key: key }));
  }

  async function transactWrite(input: Json): Promise<{ status: number; body: Json }> {
    const items: Json[] = input.TransactItems ?? [];
    if (!items.length || items.length > 100) {
      return {
        status: 400,
        body: { __type: 'com.amazon.coral.validate#ValidationException', message: 'TransactItems must have between 1 and 100 items' },
      };
    }
    const applied: { table: string; key: Item; old: Item | undefined }[] = [];
    let units = 0;
    for (let i = 0; i < items.length; i++) {
      const [kind, op] = Object.entries(items[i])[0] as [string, Json];
      const common = {
        TableName: op.TableName,
        ConditionExpression: op.ConditionExpression,
        ExpressionAttributeNames: op.ExpressionAttributeNames,
        ExpressionAttributeValues: op.ExpressionAttributeValues,
        ReturnValues: 'ALL_OLD' as const,
      };
      try {
        let key: Item;
        let old: Item | undefined;
        if (kind === 'Put') {
          const names = await keyNames(op.TableName);
          key = Object.fromEntries(names.map((n) => [n, op.Item[n]]));
          old = (await client.send(new PutItemCommand({ ...common, Item: op.Item }))).Attributes;
        } else if (kind === 'Update') {
          key = op.Key;
          old = (await client.send(new UpdateItemCommand({ ...common, Key: op.Key, UpdateExpression: op.UpdateExpression }))).Attributes;
        } else if (kind === 'Delete') {
          key = op.Key;
          old = (await client.send(new DeleteItemCommand({ ...common, Key: op.Key }))).Attributes;
        } else if (kind === 'ConditionCheck') {
          // Checked by a conditional no-op write that is undone at once.
          key = op.Key;
          const check = await client.send(
            new UpdateItemCommand({
              ...common,
              Key: op.Key,
              UpdateExpression: 'SET #txcheck = :txcheck',
              ExpressionAttributeNames: { ...(op.ExpressionAttributeNames ?? {}), '#txcheck': '__txcheck' },
              ExpressionAttributeValues: { ...(op.ExpressionAttributeValues ?? {}), ':txcheck': { BOOL: true } },
            }),
          );
          await restore(op.TableName, key, check.Attributes);
          units += 1;
          continue;
        } else {
          throw Object.assign(new Error(`unsupported transaction item ${kind}`), { name: 'ValidationException' });
        }
        applied.push({ table: op.TableName, key, old });
        units += 2;
      } catch (error) {
        for (const undo of applied.reverse()) await restore(undo.table, undo.key, undo.old);
        const name = (error as Error).name;
        if (name === 'ConditionalCheckFailedException') {
          const reasons = items.map((_, j) =>
            j === i ? { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' } : { Code: 'None' },
          );
          return {
            status: 400,
            body: {
              __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
              message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
              CancellationReasons: reasons,
            },
          };
        }
        return { status: 400, body: { __type: `com.amazon.coral.validate#${name}`, message: (error as Error).message } };
      }
    }
    const tables = [...new Set(items.map((it) => (Object.values(it)[0] as Json).TableName as string))];
    return {
      status: 200,
      body:
        input.ReturnConsumedCapacity && input.ReturnConsumedCapacity !== 'NONE'
          ? { ConsumedCapacity: tables.map((t) => ({ TableName: t, CapacityUnits: units / tables.length })) }
          : {},
    };
  }

  async function transactGet(input: Json): Promise<{ status: number; body: Json }> {
    const responses: Json[] = [];
    for (const entry of input.TransactItems ?? []) {
      const get = entry.Get;
      const out = await client.send(
        new GetItemCommand({
          TableName: get.TableName,
          Key: get.Key,
          ProjectionExpression: get.ProjectionExpression,
          ExpressionAttributeNames: get.ExpressionAttributeNames,
          ConsistentRead: true,
        }),
      );
      responses.push(out.Item ? { Item: out.Item } : {});
    }
    return { status: 200, body: { Responses: responses } };
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    try {
      if (operation === 'TransactWriteItems') {
        const out = await lock.run(() => transactWrite(JSON.parse(body.toString('utf8'))));
        return reply(res, out.status, out.body);
      }
      if (operation === 'TransactGetItems') {
        const out = await transactGet(JSON.parse(body.toString('utf8')));
        return reply(res, out.status, out.body);
      }
      if (operation === 'UpdateTimeToLive') {
        // dynalite keeps no TTL; the setting is accepted so the same set-up code runs against both.
        const input = JSON.parse(body.toString('utf8'));
        return reply(res, 200, { TimeToLiveSpecification: input.TimeToLiveSpecification });
      }
      if (WRITES.has(operation)) return await lock.run(() => forward(req, body, res));
      await forward(req, body, res);
    } catch (error) {
      reply(res, 500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: (error as Error).message });
    }
  };
  // handle() answers every error itself, so the promise it returns never rejects.
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      client.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
