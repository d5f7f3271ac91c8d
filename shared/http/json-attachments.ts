/**
 * A JSON create body read in chunks (the lean body path, issue 15). Every string at `attachments[i].data`
 * of the top-level object is checked and decoded from Base64 piece by piece and handed to the stager as
 * it is read (to S3, under a pending-upload marker); the rest of the body is copied, with each such string
 * replaced by a placeholder, and parsed by `JSON.parse` as before. So the schema validator sees the same
 * document (a placeholder is a non-empty string where the data was one; an empty string stays empty), and
 * neither the body nor the Base64 text nor the decoded file is ever held whole.
 */
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import type { AttachmentStager, StagedFile } from '#applications/attachments.js';
import { BadRequestError, invalidField } from '#platform/errors.js';

/** What the scan found: the fields (data strings as placeholders) and the staged attachments by placeholder. */
export interface ScannedJson {
  fields: Record<string, unknown>;
  staged: Map<string, StagedFile>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const EQUALS = 0x3d;
/** Base64 characters decoded at a time. */
const BATCH = 64 * 1024;
const ESCAPES: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9 };

const ALPHABET = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') ALPHABET[c.charCodeAt(0)] = 1;

interface Frame {
  kind: 'object' | 'array';
  key: string | undefined;
  expectKey: boolean;
}

/** One `data` string being read: the same checks as `isBase64`, and the bytes decoded in batches to the stager. */
class DataString {
  readonly placeholder: string;
  length = 0;
  padding = 0;
  wellFormed = true;
  private batch = Buffer.allocUnsafe(BATCH);
  private filled = 0;
  private out: PassThrough | undefined;
  staging: Promise<StagedFile> | undefined;

  constructor(
    index: number,
    private readonly stager: AttachmentStager,
  ) {
    this.placeholder = `\u0000${index}`;
  }

  /** A run of plain bytes of the string (no quote, backslash or control character): the common case, in bulk. */
  run(chunk: Buffer, from: number, to: number): void {
    if (!this.wellFormed || this.padding > 0) {
      for (let i = from; i < to; i++) this.char(chunk[i]);
      return;
    }
    let i = from;
    while (i < to) {
      // The longest stretch of Base64 alphabet that fits the batch, copied at once.
      const room = Math.min(to, i + (BATCH - this.filled));
      let j = i;
      while (j < room && ALPHABET[chunk[j]] === 1) j++;
      chunk.copy(this.batch, this.filled, i, j);
      this.filled += j - i;
      this.length += j - i;
      if (this.filled === BATCH) this.flush(false);
      if (j < room) {
        // Padding or a character outside the alphabet: one at a time from here.
        for (let k = j; k < to; k++) this.char(chunk[k]);
        return;
      }
      i = j;
    }
  }

  /** One character of the string's value (after JSON escapes). */
  char(code: number): void {
    this.length++;
    if (!this.wellFormed) return;
    if (code === EQUALS) {
      if (++this.padding > 2) this.fail();
      return;
    }
    if (code > 0xff || ALPHABET[code] !== 1 || this.padding > 0) {
      this.fail();
      return;
    }
    this.batch[this.filled++] = code;
    if (this.filled === BATCH) this.flush(false);
  }

  private sink(): PassThrough {
    if (!this.out) {
      this.out = new PassThrough();
      this.staging = this.stager.stage(this.out);
      // Awaited at the end of the body; until then a failure must not count as unhandled.
      this.staging.catch(() => undefined);
    }
    return this.out;
  }

  private flush(last: boolean): void {
    const usable = last ? this.filled : this.filled - (this.filled % 4);
    if (usable) this.sink().write(Buffer.from(this.batch.toString('latin1', 0, usable), 'base64'));
    this.batch.copy(this.batch, 0, usable, this.filled);
    this.filled -= usable;
  }

  private fail(): void {
    this.wellFormed = false;
    this.batch = Buffer.alloc(0);
    this.filled = 0;
    this.out?.end();
  }

  /** Whether the stager is behind (the reader then waits before reading on). */
  get needsDrain(): boolean {
    return this.out?.writableNeedDrain ?? false;
  }

  async drain(): Promise<void> {
    if (this.out && this.staging) await Promise.race([once(this.out, 'drain'), this.staging]);
  }

  /** The string ended: the last bytes go up; a well-formed one is staged even when it decodes to nothing. */
  end(): void {
    if (this.wellFormed && this.length % 4 === 1) this.fail();
    // An empty string is left to the schema (`minLength`), as before.
    if (!this.wellFormed || this.length === 0) return;
    this.flush(true);
    this.sink().end();
  }

  /** The body ended or failed inside the string. */
  abort(error?: Error): void {
    if (error) this.out?.destroy(error);
    else this.out?.end();
  }

  async result(): Promise<StagedFile> {
    const staged = this.staging ? await this.staging : undefined;
    if (this.wellFormed && staged) return { ...staged, submittedLength: this.length };
    return {
      staged: true,
      key: staged?.key ?? '',
      size: 0,
      submittedLength: this.length,
      wellFormed: false,
      head: Buffer.alloc(0),
      checksum: '',
    };
  }
}

/** Reads a JSON body; see the module comment. Waits for every upload it started, whatever happens. */
export async function scanJson(chunks: AsyncIterable<Buffer> | Iterable<Buffer>, stager: AttachmentStager): Promise<ScannedJson> {
  const skeleton: Buffer[] = [];
  const stack: Frame[] = [];
  const strings: DataString[] = [];
  let inString = false;
  let keyBytes: Buffer[] | undefined;
  let data: DataString | undefined;
  /** 0: none; 1: after a backslash; 2..5: reading the hex digits of \u */
  let escape = 0;
  let hex = 0;
  let malformed = false;

  const atData = () =>
    stack.length === 3 &&
    stack[0].kind === 'object' &&
    stack[0].key === 'attachments' &&
    stack[1].kind === 'array' &&
    stack[2].kind === 'object' &&
    !stack[2].expectKey &&
    stack[2].key === 'data';

  function scan(chunk: Buffer): void {
    let copyFrom = 0;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const b = chunk[i];
      if (data) {
        if (escape === 1) {
          escape = 0;
          if (b === 0x75) {
            escape = 2;
            hex = 0;
          } else if (Object.hasOwn(ESCAPES, b)) data.char(ESCAPES[b]);
          else malformed = true;
        } else if (escape >= 2) {
          const digit = b >= 0x30 && b <= 0x39 ? b - 0x30 : (b | 0x20) >= 0x61 && (b | 0x20) <= 0x66 ? (b | 0x20) - 0x57 : -1;
          if (digit < 0) malformed = true;
          hex = hex * 16 + Math.max(digit, 0);
          if (++escape === 6) {
            escape = 0;
            data.char(hex);
          }
        } else if (b === QUOTE) {
          data.end();
          skeleton.push(Buffer.from(JSON.stringify(data.length ? data.placeholder : '')));
          data = undefined;
          inString = false;
          copyFrom = i + 1;
        } else if (b === BACKSLASH) escape = 1;
        else if (b < 0x20) malformed = true;
        else {
          let j = i + 1;
          while (j < n && chunk[j] !== QUOTE && chunk[j] !== BACKSLASH && chunk[j] >= 0x20) j++;
          data.run(chunk, i, j);
          i = j - 1;
        }
        continue;
      }
      if (inString) {
        if (escape) escape = 0;
        else if (b === BACKSLASH) escape = 1;
        else if (b === QUOTE) {
          inString = false;
          if (keyBytes) {
            keyBytes.push(chunk.subarray(copyFrom, i + 1));
            const raw = Buffer.concat(keyBytes).toString('utf8');
            keyBytes = undefined;
            try {
              stack[stack.length - 1].key = JSON.parse(raw) as string;
            } catch {
              stack[stack.length - 1].key = undefined;
            }
            skeleton.push(Buffer.from(raw));
            copyFrom = i + 1;
          }
        }
        continue;
      }
      const top = stack[stack.length - 1];
      if (b === QUOTE) {
        if (top?.kind === 'object' && top.expectKey) {
          // A key: copied as it is, and decoded to follow the path.
          if (i > copyFrom) skeleton.push(Buffer.from(chunk.subarray(copyFrom, i)));
          copyFrom = i;
          keyBytes = [];
          inString = true;
        } else if (atData()) {
          if (i > copyFrom) skeleton.push(Buffer.from(chunk.subarray(copyFrom, i)));
          data = new DataString(strings.length, stager);
          strings.push(data);
          inString = true;
        } else inString = true;
      } else if (b === 0x7b) stack.push({ kind: 'object', key: undefined, expectKey: true });
      else if (b === 0x5b) stack.push({ kind: 'array', key: undefined, expectKey: false });
      else if (b === 0x7d || b === 0x5d) stack.pop();
      else if (b === 0x2c && top?.kind === 'object') top.expectKey = true;
      else if (b === 0x3a && top?.kind === 'object') top.expectKey = false;
    }
    if (keyBytes) keyBytes.push(Buffer.from(chunk.subarray(copyFrom)));
    else if (!data && copyFrom < n) skeleton.push(Buffer.from(chunk.subarray(copyFrom)));
  }

  let failure: Error | undefined;
  try {
    for await (const chunk of chunks) {
      scan(chunk);
      if (data?.needsDrain) await data.drain();
    }
  } catch (error) {
    failure = error as Error;
  }
  // A body that ends inside a data string is not JSON; its upload is ended (or dropped on failure).
  if (data) {
    data.abort(failure);
    malformed = true;
  }
  const results = await Promise.allSettled(strings.map((s) => s.result()));
  if (failure) throw failure;
  const rejected = results.find((r) => r.status === 'rejected');
  if (rejected) throw rejected.reason;
  const staged = new Map<string, StagedFile>();
  strings.forEach((s, i) => staged.set(s.placeholder, (results[i] as PromiseFulfilledResult<StagedFile>).value));
  let fields: unknown;
  try {
    if (malformed) throw new SyntaxError('malformed');
    fields = JSON.parse(Buffer.concat(skeleton).toString('utf8'));
  } catch {
    throw new BadRequestError('The request body is not valid JSON.', 'malformed_json');
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw invalidField('body', 'Must be a JSON object.');
  return { fields: fields as Record<string, unknown>, staged };
}
