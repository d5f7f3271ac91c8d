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
 * The message as MIME text, built by nodemailer's MailComposer (docs/decisions.md, P218, replacing P136's
 * hand-built text): RFC 5322 headers with RFC 2047 encoded words where needed, `multipart/mixed` with the text
 * part and one part per attachment (a message without attachments is the text part alone), RFC 2231 file
 * names, header lines folded within 78 characters, non-ASCII text and every attachment in Base64
 * (`textEncoding: 'base64'`). The library reads no file and fetches no URL (`disableFileAccess`,
 * `disableUrlAccess`): every content is given as a Buffer or string. Header injection stays impossible: line
 * breaks in the subject and the sender become spaces (here, and again in the library), file names lose quotes,
 * backslashes and line breaks, content types are re-serialised from the parsed media type, and the Message-ID
 * is `messageIdOf()` (P106).
 */
export async function mimeMessage(mail: Mail, from: string, date = new Date()): Promise<string> {
  // Imported when the first message is built: a function whose code never builds one (the link pages, the
  // sweeper, which share modules with the senders) bundles none of the library, and the senders load it lazily.
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer/index.js');
  const composer = new MailComposer({
    from: from.replace(/[\r\n]+/g, ' '),
    to: mail.to,
    subject: mail.subject.replace(/[\r\n]+/g, ' '),
    messageId: messageIdOf(mail),
    date,
    // CRLF line ends in a part the library leaves as 7bit text (printable ASCII); Base64 parts are folded by it.
    text: mail.text.replace(/\r?\n/g, '\r\n'),
    attachments: mail.attachments.map((a) => ({
      filename: safeName(a.filename),
      contentType: safeContentType(a.contentType),
      content: a.content,
      contentTransferEncoding: 'base64' as const,
    })),
    textEncoding: 'base64',
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return (await composer.compile().build()).toString('utf8');
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
  try {
    await ses.send(
      new SendEmailCommand({
        FromEmailAddress: from,
        Destination: { ToAddresses: [mail.to] },
        Content: { Raw: { Data: Buffer.from(raw) } },
      }),
    );
  } catch (error) {
    // SES's messages can quote the recipient ("Email address is not verified. … failed the check in region …: <address>"),
    // and callers log what they catch: only the error's name and status (or, unanswered, its system code) go on.
    const { name = 'Error', code, $metadata } = error as { name?: string; code?: unknown; $metadata?: { httpStatusCode?: number } };
    const status = $metadata?.httpStatusCode;
    const text = status
      ? `SES refused it: ${name} (${status}).`
      : `SES did not answer: ${name}${typeof code === 'string' ? ` ${code}` : ''}.`;
    throw Object.assign(new Error(text), { name });
  }
}
