/**
 * Multipart uploads to fauxqs's S3 kept on disk (issue 42 item 5, P331). fauxqs 2.4 holds every part of an upload
 * in memory until it completes, then concatenates them into one Buffer before its file store writes the object, so a
 * 13.7 MB attachment cost `npm start` about twice its size at the create's peak (docs/benchmarks.md). Its file
 * store (`s3StorageDir`) already writes each part to disk as it arrives; with this patch the store keeps only each
 * part's size and ETag, and the completion appends the part files to the object's file one part at a time, then
 * keeps the object's metadata only (fauxqs reads such a body from disk on demand). Validation, ETag, composite
 * checksum and spy event are fauxqs's own, as in `S3Store.completeMultipartUpload`. Without a file store (tests
 * that give fauxqs no `s3StorageDir`) fauxqs's methods run unchanged. Local runtime only: on AWS, S3 is S3.
 *
 * fauxqs exports only its entry point; its store, checksum and error modules are reached by file beside it.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, truncateSync } from 'node:fs';
import { join, sep } from 'node:path';

interface Part {
  partNumber: number;
  body: Buffer;
  etag: string;
  checksumValue?: string;
  /** Set by the patch when the body was dropped (it is on disk). */
  size?: number;
}
interface Upload {
  bucket: string;
  key: string;
  contentType: string;
  metadata: Record<string, string>;
  parts: Map<number, Part>;
  checksumAlgorithm?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  cacheControl?: string;
  contentEncoding?: string;
}
interface FilePersistence {
  bucketsDir: string;
  multipartDir: string;
  upsertObject(bucket: string, obj: Record<string, unknown>): void;
  deleteMultipartUpload(uploadId: string): void;
}
interface Store {
  multipartUploads: Map<string, Upload>;
  multipartUploadsByBucket: Map<string, Set<string>>;
  buckets: Map<string, Map<string, Record<string, unknown>>>;
  persistence?: FilePersistence | object;
  spy?: { addMessage(m: Record<string, unknown>): void };
}

/** fauxqs's smallest part but the last (AWS's rule, which fauxqs enforces at completion). */
const MIN_PART_BYTES = 5 * 1024 * 1024;

/** As fauxqs's file store names an object's files (`encodeKeyToPath` in `fileS3Persistence.js`). */
function objectPath(persistence: FilePersistence, bucket: string, key: string): string {
  // eslint-disable-next-line no-control-regex
  const encoded = key.replace(/[<>:"|?*\\%\x00-\x1f]/g, (ch) => '%' + ch.charCodeAt(0).toString(16).padStart(2, '0'));
  return join(persistence.bucketsDir, bucket, 'objects', encoded.split('/').join(sep) + '.data');
}

const onDisk = (store: Store): FilePersistence | undefined =>
  store.persistence && 'multipartDir' in store.persistence && 'bucketsDir' in store.persistence
    ? (store.persistence as FilePersistence)
    : undefined;

let patched: Promise<void> | undefined;

let collecting = false;

/**
 * P367: with `--expose-gc` (`npm start`), a full collection on the event loop's next turn after a part is stored,
 * when the part's handler no longer holds it. The parts stored before, the client's copies of them and the body's
 * chunks are dead, but their memory is outside V8's heap, held by small Buffer objects that outlived a scavenge;
 * until a full collection happened to come, a 27.5 MB create peaked at up to 3 times its body (bench:memory). A
 * collection of `npm start`'s heap takes a few milliseconds; a 27.5 MB body has at most six parts.
 */
function collectSoon(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc || collecting) return;
  collecting = true;
  setImmediate(() => {
    collecting = false;
    gc();
  });
}

/** Patches fauxqs's S3 store once per process (before or after a server starts: the methods are the class's). */
export function keepMultipartPartsOnDisk(): Promise<void> {
  return (patched ??= patch());
}

async function patch(): Promise<void> {
  // `import.meta.resolve` where the loader has it (Node, tsx); else the package beside this folder (Jest's VM modules).
  const entry =
    typeof import.meta.resolve === 'function'
      ? import.meta.resolve('fauxqs')
      : new URL('../node_modules/fauxqs/dist/app.js', import.meta.url).href;
  const { S3Store } = (await import(new URL('./s3/s3Store.js', entry).href)) as { S3Store: { prototype: Record<string, unknown> } };
  const { computeCompositeChecksum } = (await import(new URL('./s3/checksum.js', entry).href)) as {
    computeCompositeChecksum: (algorithm: string, checksums: string[]) => string;
  };
  const { S3Error } = (await import(new URL('./common/errors.js', entry).href)) as {
    S3Error: new (code: string, message: string, status: number) => Error;
  };
  const uploadPart = S3Store.prototype.uploadPart as (this: Store, ...args: unknown[]) => unknown;
  const complete = S3Store.prototype.completeMultipartUpload as (this: Store, ...args: unknown[]) => unknown;

  S3Store.prototype.uploadPart = function (this: Store, uploadId: string, partNumber: number, ...rest: unknown[]) {
    const result = uploadPart.call(this, uploadId, partNumber, ...rest);
    const part = onDisk(this) && this.multipartUploads.get(uploadId)?.parts.get(partNumber);
    // The file store has written the part (`upsertMultipartPart`): memory keeps its size.
    if (part) {
      Object.assign(part, { size: part.body.length, body: Buffer.alloc(0) });
      collectSoon();
    }
    return result;
  };

  S3Store.prototype.completeMultipartUpload = function (this: Store, uploadId: string, specs: { partNumber: number; etag: string }[]) {
    const persistence = onDisk(this);
    const upload = this.multipartUploads.get(uploadId);
    const objects = upload && this.buckets.get(upload.bucket);
    if (!persistence || !upload || !objects) return complete.call(this, uploadId, specs);
    const notFound = () =>
      new S3Error(
        'InvalidPart',
        "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
        400,
      );
    const parts = specs.map((spec, i) => {
      if (i > 0 && spec.partNumber <= specs[i - 1].partNumber)
        throw new S3Error(
          'InvalidPartOrder',
          'The list of parts was not in ascending order. The parts list must be specified in order by part number.',
          400,
        );
      const part = upload.parts.get(spec.partNumber);
      if (!part || spec.etag.replaceAll('"', '') !== part.etag.replaceAll('"', '')) throw notFound();
      const size = part.size ?? part.body.length;
      if (i < specs.length - 1 && size < MIN_PART_BYTES)
        throw new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size', 400);
      return { part, size };
    });
    const checksums = parts.flatMap(({ part }) => (part.checksumValue ? [part.checksumValue] : []));
    const checksumFields =
      upload.checksumAlgorithm && checksums.length
        ? {
            checksumAlgorithm: upload.checksumAlgorithm,
            checksumValue: computeCompositeChecksum(upload.checksumAlgorithm, checksums),
            checksumType: 'COMPOSITE',
            partChecksums: checksums,
          }
        : {};
    let offset = 0;
    const boundaries = parts.map(({ part, size }) => ({ partNumber: part.partNumber, offset: (offset += size) - size, length: size }));
    // ETag as S3's: the MD5 of the parts' binary MD5s (their ETags), and the part count.
    const digests = Buffer.concat(parts.map(({ part }) => Buffer.from(part.etag.replaceAll('"', ''), 'hex')));
    const obj = {
      key: upload.key,
      body: Buffer.alloc(0),
      contentType: upload.contentType,
      contentLength: offset,
      etag: `"${createHash('md5').update(digests).digest('hex')}-${specs.length}"`,
      lastModified: new Date(),
      metadata: upload.metadata,
      parts: boundaries,
      ...(upload.contentLanguage && { contentLanguage: upload.contentLanguage }),
      ...(upload.contentDisposition && { contentDisposition: upload.contentDisposition }),
      ...(upload.cacheControl && { cacheControl: upload.cacheControl }),
      ...(upload.contentEncoding && { contentEncoding: upload.contentEncoding }),
      ...checksumFields,
    };
    // The metadata and an empty body by the file store, then the parts appended one at a time.
    persistence.upsertObject(upload.bucket, obj);
    const data = objectPath(persistence, upload.bucket, upload.key);
    truncateSync(data, 0);
    for (const { part } of parts)
      appendFileSync(
        data,
        part.body.length ? part.body : readFileSync(join(persistence.multipartDir, uploadId, 'parts', `${part.partNumber}.data`)),
      );
    upload.parts.clear();
    persistence.deleteMultipartUpload(uploadId);
    objects.set(upload.key, obj);
    this.multipartUploads.delete(uploadId);
    this.multipartUploadsByBucket.get(upload.bucket)?.delete(uploadId);
    this.spy?.addMessage({ service: 's3', bucket: upload.bucket, key: upload.key, status: 'uploaded', timestamp: Date.now() });
    return obj;
  };
}
