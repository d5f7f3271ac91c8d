/**
 * The e-mail fallback (D12): the application, with its attachments, mailed to the job's
 * `application_email` or else the company's `contact_email`. On AWS through SES (raw MIME, so attachments
 * go along); locally `EMAIL_OUTBOX_DIR` is set and each message is written there as an `.eml` file a person
 * can open.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  attachments: MailAttachment[];
}

let ses: SESv2Client | undefined;

const encodeHeader = (value: string) => (/^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value).toString('base64')}?=`);
/** A file name inside a quoted header parameter: no quotes, backslashes or line breaks. */
const quotedName = (value: string) => encodeHeader(value.replace(/["\\\r\n]/g, '_'));
const wrap = (base64: string) => base64.replace(/.{1,76}/g, '$&\r\n');

export function mimeMessage(mail: Mail, from: string, date = new Date()): string {
  const boundary = `his-${randomUUID()}`;
  const parts = [
    `From: ${from}`,
    `To: ${mail.to}`,
    `Subject: ${encodeHeader(mail.subject.replace(/[\r\n]+/g, ' '))}`,
    `Date: ${date.toUTCString()}`,
    `Message-ID: <${randomUUID()}@hiring-integration-service>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    wrap(Buffer.from(mail.text, 'utf8').toString('base64')),
  ];
  for (const attachment of mail.attachments) {
    parts.push(
      `--${boundary}`,
      `Content-Type: ${attachment.contentType}; name="${quotedName(attachment.filename)}"`,
      `Content-Disposition: attachment; filename="${quotedName(attachment.filename)}"`,
      'Content-Transfer-Encoding: base64',
      '',
      wrap(attachment.content.toString('base64')),
    );
  }
  parts.push(`--${boundary}--`, '');
  return parts.join('\r\n');
}

export async function sendMail(mail: Mail): Promise<void> {
  // Addresses come from imported job data: refuse anything that is not one plain address.
  if (!/^[^\s@",;<>]+@[^\s@",;<>]+$/.test(mail.to)) throw new Error('not a single e-mail address');
  const from = process.env.EMAIL_FROM ?? 'applications@hiring-integration.invalid';
  const raw = mimeMessage(mail, from);
  const outbox = process.env.EMAIL_OUTBOX_DIR;
  if (outbox) {
    mkdirSync(outbox, { recursive: true });
    writeFileSync(join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`), raw);
    return;
  }
  ses ??= new SESv2Client({ region: process.env.AWS_REGION ?? 'us-east-1' });
  await ses.send(
    new SendEmailCommand({ FromEmailAddress: from, Destination: { ToAddresses: [mail.to] }, Content: { Raw: { Data: Buffer.from(raw) } } }),
  );
}
