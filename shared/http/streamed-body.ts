/**
 * The lean body path (issue 15): where the HTTP adapter of the local runtime and the container hands the
 * create route its request body as a stream instead of the proxy event's string. The event then has
 * `body: null` and carries this object; the route reads the chunks once, as they arrive, and nothing
 * holds the whole body (on Lambda the body is still the event's string: API Gateway delivers it so).
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PayloadTooLargeError } from '#platform/errors.js';

const STREAMED = Symbol.for('his.streamed-body');

export class StreamedBody {
  /** Chunks read ahead (only when the digest was asked for before the body was parsed). */
  private readonly ahead: Buffer[] = [];
  private readonly hash = createHash('sha256');
  private size = 0;
  private done = false;
  private used = false;
  private digestValue: string | undefined;

  constructor(
    private readonly source: Readable,
    private readonly maxBytes: number,
  ) {}

  /** Counts a chunk against the limit (413 once the body reaches it) and into the digest. */
  private count(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size >= this.maxBytes) throw new PayloadTooLargeError(this.maxBytes);
    this.hash.update(chunk);
  }

  /** The source's chunks, without destroying it when the reader stops early (the answer must still reach the client). */
  private async *live(): AsyncGenerator<Buffer> {
    if (this.done) return;
    for await (const chunk of this.source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      this.count(chunk);
      yield chunk;
    }
    this.done = true;
  }

  /**
   * SHA-256 of the whole body (for `Idempotency-Key`, which must compare bodies before the route runs):
   * reads the rest of the body ahead, held as chunks, which `chunks()` then hands out and lets go of.
   */
  async digest(): Promise<string> {
    if (this.digestValue !== undefined) return this.digestValue;
    if (this.used) throw new Error('the body was already read');
    for await (const chunk of this.live()) this.ahead.push(chunk);
    this.digestValue = this.hash.digest('hex');
    return this.digestValue;
  }

  /** The body's chunks, once. */
  async *chunks(): AsyncGenerator<Buffer> {
    if (this.used) throw new Error('the body was already read');
    this.used = true;
    while (this.ahead.length) yield this.ahead.shift()!;
    yield* this.live();
  }
}

/** Hands the route the body as a stream (the adapter does this for the create route). */
export function attachStreamedBody(event: APIGatewayProxyEvent, body: StreamedBody): void {
  (event as unknown as Record<symbol, StreamedBody>)[STREAMED] = body;
}

/** The streamed body of the event, if the adapter attached one. */
export function streamedBody(event: unknown): StreamedBody | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  return (event as Record<symbol, StreamedBody | undefined>)[STREAMED];
}
