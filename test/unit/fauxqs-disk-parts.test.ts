/**
 * `npm start`'s S3 stand-in keeps multipart parts on disk (issue 42 item 5, P331): an upload in 5 MiB parts, as
 * the create streams an attachment (`attachment-upload.ts`), reads back byte for byte with S3's multipart ETag
 * (the MD5 of the parts' MD5s, "-" and the count) and composite SHA-256 checksum (the SHA-256 of the parts'
 * SHA-256s, "-" and the count: https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html),
 * is a file under the storage folder, survives a restart, and leaves no part behind; the parts are read from their
 * files at completion (fauxqs alone keeps them in memory); an ETag that does not match is refused as S3 refuses it
 * (InvalidPart).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { startFauxqsOnLoopback } from '../../local/emulators.js';
import { keepMultipartPartsOnDisk } from '../../local/fauxqs-disk-parts.js';

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'fauxqs-parts-'));
const client = (port: number) =>
  new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
const start = () => startFauxqsOnLoopback({ port: 0, logger: false, s3StorageDir: dir });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every file under `root`, relative. */
const files = (root: string): string[] =>
  readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((name) => statSync(join(root, name)).isFile());

test('an upload in parts is stored as one file, read back whole with S3 multipart ETag and checksum, and kept over a restart', async () => {
  await keepMultipartPartsOnDisk();
  // Three parts, the last short, each its own byte so that a part out of place would show.
  const parts = [Buffer.alloc(5 * MiB, 1), Buffer.alloc(5 * MiB, 2), Buffer.alloc(MiB + 7, 3)];
  const body = Buffer.concat(parts);
  let server = await start();
  try {
    let s3 = client(server.port);
    await s3.send(new CreateBucketCommand({ Bucket: 'bench-bucket' }));
    await new Upload({
      client: s3,
      params: {
        Bucket: 'bench-bucket',
        Key: 'attachments/1/cv.pdf',
        Body: body,
        ContentType: 'application/pdf',
        ChecksumAlgorithm: 'SHA256',
      },
      partSize: 5 * MiB,
      queueSize: 1,
    }).done();

    const md5s = Buffer.concat(parts.map((p) => createHash('md5').update(p).digest()));
    const sha256s = Buffer.concat(parts.map((p) => createHash('sha256').update(p).digest()));
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'bench-bucket', Key: 'attachments/1/cv.pdf', ChecksumMode: 'ENABLED' }));
    expect(head.ETag).toBe(`"${createHash('md5').update(md5s).digest('hex')}-3"`);
    expect(head.ChecksumSHA256).toBe(`${createHash('sha256').update(sha256s).digest('base64')}-3`);
    expect(head.ContentLength).toBe(body.length);
    expect(head.ContentType).toBe('application/pdf');
    const read = async () =>
      Buffer.from(
        await (await s3.send(new GetObjectCommand({ Bucket: 'bench-bucket', Key: 'attachments/1/cv.pdf' }))).Body!.transformToByteArray(),
      );
    expect((await read()).equals(body)).toBe(true);
    // One file holds the object; no part is left.
    const data = files(dir).filter((name) => name.endsWith('.data'));
    expect(data).toEqual([join('buckets', 'bench-bucket', 'objects', 'attachments', '1', 'cv.pdf.data')]);
    expect(readFileSync(join(dir, data[0])).equals(body)).toBe(true);
    expect(existsSync(join(dir, '_multipart')) ? files(join(dir, '_multipart')) : []).toEqual([]);

    await server.stop();
    server = await start();
    s3 = client(server.port);
    expect((await read()).equals(body)).toBe(true);

    // The parts of an upload in progress are read from their files when it completes, not from memory: a part's
    // file changed in between (same length) is what the object holds.
    const started = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'bench-bucket', Key: 'edited' }));
    const sent = await Promise.all(
      [parts[0], parts[2]].map((Body, i) =>
        s3.send(new UploadPartCommand({ Bucket: 'bench-bucket', Key: 'edited', UploadId: started.UploadId, PartNumber: i + 1, Body })),
      ),
    );
    writeFileSync(join(dir, '_multipart', started.UploadId!, 'parts', '2.data'), Buffer.alloc(parts[2].length, 9));
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'bench-bucket',
        Key: 'edited',
        UploadId: started.UploadId,
        MultipartUpload: { Parts: sent.map((p, i) => ({ PartNumber: i + 1, ETag: p.ETag })) },
      }),
    );
    const edited = Buffer.from(
      await (await s3.send(new GetObjectCommand({ Bucket: 'bench-bucket', Key: 'edited' }))).Body!.transformToByteArray(),
    );
    expect(edited.equals(Buffer.concat([parts[0], Buffer.alloc(parts[2].length, 9)]))).toBe(true);

    // A part list whose ETag names no uploaded part: refused, nothing stored.
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'bench-bucket', Key: 'other' }));
    await s3.send(new UploadPartCommand({ Bucket: 'bench-bucket', Key: 'other', UploadId, PartNumber: 1, Body: parts[2] }));
    const refused = await s3
      .send(
        new CompleteMultipartUploadCommand({
          Bucket: 'bench-bucket',
          Key: 'other',
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"00000000000000000000000000000000"' }] },
        }),
      )
      .catch((error: Error) => error);
    expect((refused as Error).name).toBe('InvalidPart');
    expect(files(dir).filter((name) => name.includes('other'))).toEqual([]);
  } finally {
    await server.stop();
  }
}, 60_000);

test('with `--expose-gc` (npm start), each stored part is followed by one full collection (P367)', async () => {
  await keepMultipartPartsOnDisk();
  const collections: number[] = [];
  const global = globalThis as { gc?: () => void };
  const before = global.gc;
  global.gc = () => collections.push(Date.now());
  const server = await start();
  try {
    const s3 = client(server.port);
    await s3.send(new CreateBucketCommand({ Bucket: 'gc-bucket' }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'gc-bucket', Key: 'gc' }));
    for (const [i, fill] of [7, 8].entries()) {
      await s3.send(
        new UploadPartCommand({ Bucket: 'gc-bucket', Key: 'gc', UploadId, PartNumber: i + 1, Body: Buffer.alloc(5 * MiB, fill) }),
      );
      // Scheduled when the part is stored, run once the handler has returned (its Buffers are no longer referenced).
      await new Promise((resolve) => setImmediate(resolve));
      expect(collections).toHaveLength(i + 1);
    }
    // A small request that stores no part collects nothing.
    await s3.send(new HeadObjectCommand({ Bucket: 'gc-bucket', Key: 'gc' })).catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(collections).toHaveLength(2);
  } finally {
    global.gc = before;
    await server.stop();
  }
}, 60_000);
