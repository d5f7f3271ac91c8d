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
import MailComposer from 'nodemailer/lib/mail-composer';
import { parseMediaType } from '#platform/web-formats.js';

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
  /**
   * A stable id for what the message is about (the application): the same id on a resend makes it the
   * same message for mail systems, which keep one copy per Message-ID (docs/decisions.md, P106).
   */
  id?: string;
}

let ses: SESv2Client | undefined;

/** A file name for a quoted header parameter: no quotes, backslashes or line breaks. */
const safeName = (value: string) => value.replace(/["\\\r\n]/g, '_');
/** Only a well-formed media type goes into a MIME header (stored ones are normalised already; this is the last line). */
const safeContentType = (value: string) => parseMediaType(value)?.essence ?? 'application/octet-stream';

/**
 * The message as MIME text, built by nodemailer's MailComposer (header encoding, folding, boundaries).
 * No content is read from paths or URLs: everything is given as buffers.
 */
export async function mimeMessage(mail: Mail, from: string, date = new Date()): Promise<string> {
  const composer = new MailComposer({
    from,
    to: mail.to,
    subject: mail.subject.replace(/[\r\n]+/g, ' '),
    date: date.toUTCString(),
    messageId: messageIdOf(mail),
    text: mail.text,
    textEncoding: 'base64',
    disableFileAccess: true,
    disableUrlAccess: true,
    attachments: mail.attachments.map((a) => ({
      filename: safeName(a.filename),
      contentType: safeContentType(a.contentType),
      content: a.content,
      contentTransferEncoding: 'base64',
    })),
  });
  const raw = await composer.compile().build();
  return raw.toString('utf8');
}

/** The Message-ID: derived from `mail.id` when given (no angle brackets or spaces can come from it). */
export function messageIdOf(mail: Pick<Mail, 'id'>): string {
  const local = mail.id ? mail.id.replace(/[^A-Za-z0-9.-]/g, '-') : randomUUID();
  return `<${local}@hiring-integration-service>`;
}

export async function sendMail(mail: Mail): Promise<void> {
  // Addresses come from imported job data: refuse anything that is not one plain address.
  if (!/^[^\s@",;<>]+@[^\s@",;<>]+$/.test(mail.to)) throw new Error('not a single e-mail address');
  const from = process.env.EMAIL_FROM ?? 'applications@hiring-integration.invalid';
  const raw = await mimeMessage(mail, from);
  const outbox = process.env.EMAIL_OUTBOX_DIR;
  if (outbox) {
    mkdirSync(outbox, { recursive: true });
    // One file per message: a resend of the same message replaces its file, as a mail system keeps one copy.
    const name = mail.id
      ? messageIdOf(mail).replace(/[<>@]/g, '_')
      : `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
    writeFileSync(join(outbox, `${name}.eml`), raw);
    return;
  }
  ses ??= new SESv2Client({ region: process.env.AWS_REGION ?? 'us-east-1' });
  await ses.send(
    new SendEmailCommand({ FromEmailAddress: from, Destination: { ToAddresses: [mail.to] }, Content: { Raw: { Data: Buffer.from(raw) } } }),
  );
}
