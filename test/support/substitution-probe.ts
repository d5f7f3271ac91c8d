/**
 * Calls into every library that lib/bundle-substitutions.ts changes in the bundles (P231) and returns what
 * they answered: e-mails built by `mimeMessage()` (nodemailer), XML with entities through fast-xml-parser
 * (is-unsafe), the SDK clients' user agents (their package.json) and the X-Ray SDK's own data (its
 * package.json). test/cdk/bundle-substitutions.test.ts runs it from source and bundled as the functions are,
 * and compares.
 */
import { SESv2Client } from '@aws-sdk/client-sesv2';
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
    const agent = (await client().config.defaultUserAgentProvider()) as [string, string?][];
    userAgents[name] = agent.filter(([key]) => key.startsWith('api/') || key === 'aws-sdk-js');
  }
  resetClients();
  const xray = (AWSXRay.SegmentUtils as unknown as { sdkData: unknown }).sdkData;
  return { mails, xml, userAgents, xray };
}
