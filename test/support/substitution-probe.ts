/**
 * Calls into every library that lib/bundle-substitutions.ts changes in the bundles (P231) and returns what
 * they answered: e-mails built by `mimeMessage()` (nodemailer), XML with entities through fast-xml-parser
 * (is-unsafe), the SDK clients' user agents (their package.json) and the X-Ray SDK's own data (its
 * package.json), and requests through the SDK's protocols (the event-stream stub) against a handler that
 * answers without a network. test/cdk/bundle-substitutions.test.ts runs it from source and bundled as the
 * functions are, and compares.
 */
import { Readable } from 'node:stream';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client, SelectObjectContentCommand } from '@aws-sdk/client-s3';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import AWSXRay from 'aws-xray-sdk-core';
import { XMLParser } from 'fast-xml-parser';
import { CONTENT_TYPES } from '#applications/attachments.js';
import { dynamoClient, kms, resetClients, s3, sns, sqs } from '#platform/clients.js';
import { mimeMessage, type Mail } from '#delivery/email.js';

const DATE = new Date('2026-01-01T00:00:00Z');
const pdf = Buffer.from('%PDF-1.4\n%âãÏÓ\n');

/** The e-mails of the tests of shared/delivery/email.ts, and an attachment without a file name of every permitted type. */
const MAILS: Mail[] = [
  {
    to: 'hr@example.com',
    subject: 'Application: Größe\r\nBcc: evil@example.com',
    text: 'Hello',
    attachments: [{ filename: 'cv "final"\r\n.pdf', contentType: 'application/pdf', content: pdf }],
    id: 'application-42.company-7',
  },
  {
    to: 'hr@example.com',
    subject: 'Bewerbung: Küchenchef (m/w/d) für unser Restaurant am Hafen – Größe, Übersicht und Ämter',
    text: 'Grüße aus Köln\nzweite Zeile\r\ndritte',
    attachments: [
      {
        filename: 'Lebenslauf Jürgen Müller – Zeugnisse und Referenzen aus fünfzehn Jahren.pdf',
        contentType: 'application/pdf',
        content: Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256)),
      },
      { filename: 'photo.jpg', contentType: 'image/jpeg; name="x.png"', content: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) },
      {
        filename: 'cv.pdf',
        contentType: 'application/pdf; x=1\r\nContent-Type: text/html\r\n\r\n<html><script>alert(1)</script>',
        content: pdf,
      },
      { filename: 'archive', contentType: 'application/zip', content: Buffer.from('PK\u0003\u0004') },
    ],
    id: 'application-43.company-7',
  },
  { to: 'hr@example.com', subject: 'Hi\rBcc: a@example.com\nX-Evil: 1', text: 'Hello', attachments: [], id: 'application-44.company-7' },
  {
    to: 'hr@example.com',
    subject: 'Unnamed files',
    text: 'Hello',
    attachments: [...Object.keys(CONTENT_TYPES), 'not a type'].map((contentType) => ({ filename: '', contentType, content: pdf })),
    id: 'application-45.company-7',
  },
];

/** Entity values that is-unsafe's HTML and XML patterns block and others (SQL, shell, ReDoS) that they let through. */
const ENTITY_VALUES = [
  'hello',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  'jav&#x61;script:alert(1)',
  '<svg onload=alert(1)>',
  '{"$gt": ""}',
  "' OR 1=1 --",
  '$(rm -rf /)',
  '(a+)+$',
];

/** The service's clients as the functions build them (the e-mail's SES client is built in email.ts alone). */
const CLIENTS = {
  DynamoDB: dynamoClient,
  KMS: kms,
  S3: s3,
  SESv2: () => new SESv2Client({ region: 'us-east-1' }),
  SNS: sns,
  SQS: sqs,
};

interface Sent {
  method: string;
  hostname: string;
  path: string;
  query: unknown;
  contentType: unknown;
  target: unknown;
  body: string;
}

/** A request handler that records what the client sends and answers `status`, `contentType` and `body`. */
function answering(sent: Sent[], status: number, contentType: string, body: string) {
  return {
    handle: async (request: {
      method: string;
      hostname: string;
      path: string;
      query: unknown;
      headers: Record<string, string>;
      body?: unknown;
    }) => {
      const chunks: Buffer[] = [];
      if (request.body instanceof Readable) for await (const chunk of request.body) chunks.push(Buffer.from(chunk as Buffer));
      else if (request.body instanceof Uint8Array)
        chunks.push(Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength));
      else if (typeof request.body === 'string') chunks.push(Buffer.from(request.body));
      sent.push({
        method: request.method,
        hostname: request.hostname,
        path: request.path,
        query: request.query,
        contentType: request.headers['content-type'],
        target: request.headers['x-amz-target'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      return { response: { statusCode: status, headers: { 'content-type': contentType }, body: Readable.from([Buffer.from(body)]) } };
    },
  };
}

const failure = (error: unknown) => ({ failed: (error as Error).name, message: (error as Error).message });

/** One call of each protocol the service speaks (S3's REST-XML, DynamoDB's JSON, SES's REST-JSON), and S3 errors. */
async function sdkCalls() {
  const sent: Sent[] = [];
  const base = { region: 'eu-central-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } };
  const s3Answering = (status: number, contentType: string, body: string) =>
    new S3Client({ ...base, requestHandler: answering(sent, status, contentType, body) });
  const object = await s3Answering(200, 'text/plain', 'the file').send(new GetObjectCommand({ Bucket: 'b', Key: 'cv/1.pdf' }));
  const put = await s3Answering(200, 'text/plain', '').send(
    new PutObjectCommand({ Bucket: 'b', Key: 'a b/ü.pdf', Body: 'data', ContentType: 'application/pdf' }),
  );
  const missing = await s3Answering(404, 'application/xml', '<Error><Code>NoSuchKey</Code><Message>The key is gone</Message></Error>')
    .send(new GetObjectCommand({ Bucket: 'b', Key: 'gone' }))
    .catch(failure);
  const item = await new DynamoDBClient({
    ...base,
    requestHandler: answering(sent, 200, 'application/x-amz-json-1.0', '{"Item":{"pk":{"S":"COMPANY#1"},"n":{"N":"2"}}}'),
  }).send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'COMPANY#1' } } }));
  const mailed = await new SESv2Client({
    ...base,
    requestHandler: answering(sent, 200, 'application/json', '{"MessageId":"m-1"}'),
  }).send(
    new SendEmailCommand({
      FromEmailAddress: 'applications@example.com',
      Destination: { ToAddresses: ['hr@example.com'] },
      Content: { Raw: { Data: Buffer.from('Subject: x\r\n\r\nHello') } },
    }),
  );
  // An event stream: the only kind of call the stub refuses (from source, the library fails on the empty stream instead).
  const select = await s3Answering(200, 'application/octet-stream', '')
    .send(
      new SelectObjectContentCommand({
        Bucket: 'b',
        Key: 'k',
        Expression: 'select * from s3object',
        ExpressionType: 'SQL',
        InputSerialization: { CSV: {} },
        OutputSerialization: { CSV: {} },
      }),
    )
    .then(async (output) => {
      for await (const event of output.Payload ?? []) void event;
      return { failed: null, message: '' };
    })
    .catch(failure);
  return {
    sent,
    answers: [
      { body: await object.Body?.transformToString(), contentType: object.ContentType },
      { etag: put.ETag ?? null },
      missing,
      item.Item,
      mailed.MessageId,
    ],
    select,
  };
}

export async function probe() {
  const mails: string[] = [];
  for (const mail of MAILS) mails.push(await mimeMessage(mail, 'applications@example.com\r\nBcc: b@example.com', DATE));
  const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, trimValues: true });
  const xml = ENTITY_VALUES.map((value) => {
    const entity = value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    return parser.parse(`<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "${entity}">]><a><b>&x;</b></a>`) as unknown;
  });
  const userAgents: Record<string, unknown> = {};
  for (const [name, client] of Object.entries(CLIENTS)) {
    const agent = (await (await client()).config.defaultUserAgentProvider()) as [string, string?][];
    userAgents[name] = agent.filter(([key]) => key.startsWith('api/') || key === 'aws-sdk-js');
  }
  resetClients();
  const xray = (AWSXRay.SegmentUtils as unknown as { sdkData: unknown }).sdkData;
  return { mails, xml, userAgents, xray, sdk: await sdkCalls() };
}
