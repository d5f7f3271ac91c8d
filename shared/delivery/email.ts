/**
 * The e-mail fallback (D12): the application, with its attachments, mailed to the job's
 * `application_email` or else the company's `contact_email`. On AWS through SES (raw MIME, so attachments
 * go along); locally `EMAIL_OUTBOX_DIR` is set and each message is written there as an `.eml` file a person
 * can open.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
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

/** RFC 2045 `token`: a parameter value that needs no quotes. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ASCII = /^[\x20-\x7e]*$/;
/** Lines stay within RFC 5322's recommended 78 characters (without CRLF). */
const LINE = 78;

/** Base64 in lines of 76 characters (RFC 2045 6.8). */
const base64Lines = (content: Buffer) => (content.toString('base64').match(/.{1,76}/g) ?? ['']).join('\r\n');

/**
 * RFC 2047 encoded words (`=?UTF-8?B?…?=`, 68 characters each, never splitting a character), one per
 * folded line, so that even after `Subject: ` a line stays within 78.
 */
function encodedWords(value: string): string {
  const words: string[] = [''];
  for (const char of value) {
    // 42 bytes of UTF-8 are 56 Base64 characters, 68 with `=?UTF-8?B?` and `?=`.
    if (Buffer.byteLength(words[words.length - 1] + char) > 42) words.push('');
    words[words.length - 1] += char;
  }
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join('\r\n ');
}

/** An unstructured header (the subject): as it is when it is short printable ASCII, else encoded words. */
const header = (name: string, value: string) =>
  `${name}: ${ASCII.test(value) && name.length + 2 + value.length <= LINE ? value : encodedWords(value)}`;

/** A header with one parameter, on the same line when it fits, else on a folded line of its own. */
const withParameter = (head: string, parameter: string) =>
  !parameter.includes('\r\n') && head.length + 2 + parameter.length <= LINE ? `${head}; ${parameter}` : `${head};\r\n ${parameter}`;

/** `name=value` of a Content-Type: a token as is, short ASCII quoted, anything else as quoted encoded words. */
const nameParameter = (value: string) =>
  `name=${TOKEN.test(value) ? value : ASCII.test(value) && value.length <= LINE - 10 ? `"${value}"` : `"${encodedWords(value)}"`}`;

/** The Content-Disposition `filename`: a token, short ASCII quoted, else RFC 2231 sections (`filename*0*=utf-8''…`). */
function filenameParameter(value: string): string {
  if (TOKEN.test(value)) return `filename=${value}`;
  if (ASCII.test(value) && value.length <= LINE - 14) return `filename="${value}"`;
  const encoded = encodeURIComponent(value).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  // Sections of at most 50 characters, never splitting a %XX escape (RFC 2231 3).
  const sections: string[] = [];
  for (const unit of encoded.match(/%[0-9A-F]{2}|[^%]/g) ?? []) {
    if (!sections.length || sections[sections.length - 1].length + unit.length > 50) sections.push('');
    sections[sections.length - 1] += unit;
  }
  return sections.map((section, i) => `filename*${i}*=${i === 0 ? "utf-8''" : ''}${section}`).join(';\r\n ');
}

/**
 * The message as MIME text (RFC 5322 headers, RFC 2045/2046 multipart/mixed, everything in Base64): the text
 * part first, then one part per attachment. Built here rather than by a library: it is this one message
 * shape, and the MIME libraries of the registry cost the sync worker 138 kB (nodemailer) or bring the Babel
 * runtime and the media-type database (mimetext) (docs/decisions.md, P136). The subject and file names are
 * written only as encoded words or quoted strings without line breaks, so no header can be injected.
 */
export function mimeMessage(mail: Mail, from: string, date = new Date()): Promise<string> {
  const boundary = `--_hiring-${randomBytes(12).toString('hex')}`;
  const lines = [
    `From: ${from.replace(/[\r\n]+/g, ' ')}`,
    `To: ${mail.to}`,
    header('Subject', mail.subject.replace(/[\r\n]+/g, ' ')),
    `Message-ID: ${messageIdOf(mail)}`,
    `Date: ${date.toUTCString()}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(Buffer.from(mail.text, 'utf8')),
  ];
  for (const a of mail.attachments) {
    const filename = safeName(a.filename);
    lines.push(
      `--${boundary}`,
      withParameter(`Content-Type: ${safeContentType(a.contentType)}`, nameParameter(filename)),
      'Content-Transfer-Encoding: base64',
      withParameter('Content-Disposition: attachment', filenameParameter(filename)),
      '',
      base64Lines(a.content),
    );
  }
  lines.push(`--${boundary}--`, '');
  return Promise.resolve(lines.join('\r\n'));
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
