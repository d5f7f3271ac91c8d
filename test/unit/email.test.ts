import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageIdOf, mimeMessage, sendMail } from '#delivery/email.js';
import { projectRoot } from '../../lib/project-paths.js';
import { startSimulatorServer } from '../simulators/server.js';

describe('e-mail fallback message', () => {
  const mail = {
    to: 'hr@example.com',
    subject: 'Application: Größe\r\nBcc: evil@example.com',
    text: 'Hello',
    attachments: [{ filename: 'cv "final"\r\n.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4') }],
  };
  let raw: string;
  beforeAll(async () => {
    raw = await mimeMessage(mail, 'applications@example.com', new Date('2026-01-01T00:00:00Z'));
  });

  test('headers cannot be injected through the subject or a file name', () => {
    const headerLines = raw.split('\r\n');
    expect(headerLines.filter((l) => /^Bcc:/i.test(l))).toEqual([]);
    expect(raw).toContain('filename="cv _final___.pdf"');
    expect(raw).toMatch(/^Subject: =\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/m);
  });

  test('the attachment travels as Base64 in its own part', () => {
    expect(raw).toContain('Content-Type: application/pdf; name="cv _final___.pdf"');
    expect(raw).toContain(Buffer.from('%PDF-1.4').toString('base64'));
    expect(raw).toContain('Date: Thu, 01 Jan 2026 00:00:00 +0000');
  });

  test('a content type carrying line breaks and a second header is never written raw (issue 10, defect 5)', async () => {
    const hostile = await mimeMessage(
      {
        ...mail,
        attachments: [
          {
            filename: 'cv.pdf',
            contentType: 'application/pdf; x=1\r\nContent-Type: text/html\r\n\r\n<html><script>alert(1)</script>',
            content: Buffer.from('%PDF-1.4'),
          },
        ],
      },
      'applications@example.com',
    );
    expect(hostile).not.toContain('text/html');
    expect(hostile).not.toContain('<script>');
    expect(hostile.split('\r\n').filter((l) => /^Content-Type:/i.test(l))).toEqual([
      expect.stringMatching(/^Content-Type: multipart\/mixed;/),
      'Content-Type: text/plain; charset=utf-8',
      'Content-Type: application/octet-stream; name=cv.pdf',
    ]);
  });
});

describe('what the library is given is all it writes (P218)', () => {
  test('a sender or subject with lone CR or LF adds no header line', async () => {
    const raw = await mimeMessage(
      { to: 'hr@example.com', subject: 'Hi\rBcc: a@example.com\nX-Evil: 1', text: 'Hello', attachments: [] },
      'applications@example.com\r\nBcc: b@example.com',
    );
    const head = raw.slice(0, raw.indexOf('\r\n\r\n')).split('\r\n');
    expect(head.filter((l) => /^(Bcc|X-Evil):/i.test(l))).toEqual([]);
    expect(raw.replace(/\r\n/g, '').includes('\r')).toBe(false);
  });

  test('a message without attachments is one text part; line ends become CRLF', async () => {
    const raw = await mimeMessage(
      { to: 'hr@example.com', subject: 'Cook', text: 'Hello\nsecond line\r\nthird', attachments: [] },
      'applications@example.com',
    );
    expect(raw).not.toContain('multipart/');
    expect(raw).toMatch(/^Content-Type: text\/plain; charset=utf-8\r$/m);
    expect(raw.replace(/\r\n/g, '').includes('\n')).toBe(false);
    expect(raw).toMatch(/^MIME-Version: 1\.0\r$/m);
  });

  test('non-ASCII text is Base64, never 8-bit in the message', async () => {
    const raw = await mimeMessage({ to: 'hr@example.com', subject: 'Grüße', text: 'Grüße aus Köln', attachments: [] }, 'a@example.com');
    expect([...raw].every((c) => c.charCodeAt(0) < 0x80)).toBe(true);
    expect(raw).toContain('Content-Transfer-Encoding: base64');
    expect(raw).toContain(Buffer.from('Grüße aus Köln').toString('base64'));
  });
});

describe('a resent message is the same message (issue 12: a crash between sending and the status write)', () => {
  const mail = { to: 'hr@example.com', subject: 'Application: Cook', text: 'Hello', attachments: [], id: 'application-42.company-7' };

  test('the Message-ID is derived from the application, the same on every send', async () => {
    const first = await mimeMessage(mail, 'applications@example.com', new Date('2026-01-01T00:00:00Z'));
    const second = await mimeMessage(mail, 'applications@example.com', new Date('2026-01-01T00:05:00Z'));
    // Header lines may be folded onto continuation lines; unfold before reading one.
    const messageId = (raw: string) => /^Message-ID: *(.*)$/m.exec(raw.replace(/\r\n[ \t]+/g, ' '))?.[1]?.trim();
    expect(messageId(first)).toBe('<application-42.company-7@hiring-integration-service>');
    expect(messageId(second)).toBe(messageId(first));
    // Without an id every message is its own.
    const a = await mimeMessage({ ...mail, id: undefined }, 'applications@example.com');
    const b = await mimeMessage({ ...mail, id: undefined }, 'applications@example.com');
    expect(messageId(a)).not.toBe(messageId(b));
  });

  test('nothing from the id reaches the header but letters, digits, dots and dashes', () => {
    expect(messageIdOf({ id: 'a>b\r\nBcc: x@y' })).toBe('<a-b--Bcc--x-y@hiring-integration-service>');
  });

  test('locally, sending it again replaces its .eml instead of adding a second one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'his-outbox-'));
    const previous = process.env.EMAIL_OUTBOX_DIR;
    process.env.EMAIL_OUTBOX_DIR = dir;
    try {
      await sendMail(mail);
      await sendMail(mail);
      await sendMail({ ...mail, id: 'application-43.company-7' });
      expect(readdirSync(dir).sort()).toEqual([
        '_application-42.company-7_hiring-integration-service_.eml',
        '_application-43.company-7_hiring-integration-service_.eml',
      ]);
    } finally {
      if (previous === undefined) delete process.env.EMAIL_OUTBOX_DIR;
      else process.env.EMAIL_OUTBOX_DIR = previous;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an SES refusal', () => {
  test("is rethrown with SES's error name and status only: its message, which quotes the recipient, is not passed on", async () => {
    // SESv2 (restJson1) answers a sandbox account's unverified recipient with 400 MessageRejected, quoting the address.
    const ses = await startSimulatorServer(() => ({
      status: 400,
      headers: { 'x-amzn-errortype': 'MessageRejected' },
      body: {
        message: 'Email address is not verified. The following identities failed the check in region US-EAST-1: ada.candidate@example.com',
      },
    }));
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SESV2: ses.url,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
    });
    delete process.env.EMAIL_OUTBOX_DIR;
    try {
      const error = (await sendMail({ to: 'ada.candidate@example.com', subject: 'Your application', text: 'Hello', attachments: [] }).then(
        () => undefined,
        (e: unknown) => e,
      )) as Error;
      expect(ses.requests.map((r) => [r.method, r.path])).toEqual([['POST', '/v2/email/outbound-emails']]);
      expect({ name: error.name, message: error.message }).toEqual({
        name: 'MessageRejected',
        message: 'SES refused it: MessageRejected (400).',
      });
      expect(JSON.stringify({ ...error, stack: error.stack })).not.toContain('ada.candidate');
    } finally {
      process.env = saved;
      await ses.stop();
    }
  });
});

test('an SES that does not answer is named by its system code, not an undefined status', async () => {
  const ses = await startSimulatorServer(() => ({ status: 200, body: {} }));
  await ses.stop(); // a port nothing listens on
  // In a plain Node process, as on Lambda: under Jest's module sandbox the SDK wraps a socket error and drops its code.
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      "const { sendMail } = await import('#delivery/email.js'); await sendMail({ to: 'ada.candidate@example.com', subject: 'Hi', text: 'Hello', attachments: [] }).catch((e) => process.stdout.write(e.message));",
    ],
    {
      cwd: projectRoot,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        AWS_ENDPOINT_URL_SESV2: ses.url,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_REGION: 'us-east-1',
      },
    },
  );
  expect(run.stdout).toBe('SES did not answer: Error ECONNREFUSED.');
});

describe('the MIME text itself (nodemailer MailComposer since P218)', () => {
  const long = 'Bewerbung: Küchenchef (m/w/d) für unser Restaurant am Hafen – Größe, Übersicht und Ämter';
  const name = 'Lebenslauf Jürgen Müller – Zeugnisse und Referenzen aus fünfzehn Jahren.pdf';
  const content = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256));
  let raw: string;
  beforeAll(async () => {
    raw = await mimeMessage(
      { to: 'hr@example.com', subject: long, text: 'Grüße', attachments: [{ filename: name, contentType: 'application/pdf', content }] },
      'applications@example.com',
    );
  });
  const unfold = (text: string) => text.replace(/\r\n[ \t]+/g, ' ');
  const decodeWords = (value: string) =>
    value
      .split(' ')
      .map((w) => /^=\?UTF-8\?B\?([A-Za-z0-9+/=]+)\?=$/.exec(w)?.[1])
      .map((b64) => Buffer.from(b64!, 'base64').toString('utf8'))
      .join('');

  test('every line ends in CRLF and stays within 78 characters, encoded words within 75', () => {
    expect(raw.endsWith('\r\n')).toBe(true);
    expect(raw.replace(/\r\n/g, '').includes('\n')).toBe(false);
    for (const line of raw.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
    for (const word of raw.match(/=\?UTF-8\?B\?[^?]*\?=/g) ?? []) expect(word.length).toBeLessThanOrEqual(75);
  });

  test('a long non-ASCII subject and file name decode back to what was given', () => {
    const headers = unfold(raw);
    expect(decodeWords(/^Subject: (.*)$/m.exec(headers)![1])).toBe(long);
    expect(decodeWords(/; name="([^"]*)"$/m.exec(headers)![1])).toBe(name);
    const sections = [...headers.matchAll(/filename\*(\d+)\*=(?:utf-8'')?([^;\r\n]*)/g)];
    expect(sections.map((m) => Number(m[1]))).toEqual(sections.map((_, i) => i));
    expect(decodeURIComponent(sections.map((m) => m[2]).join(''))).toBe(name);
  });

  test('the parts split on the boundary: the text, then the attachment with its bytes', () => {
    const boundary = /boundary="([^"]+)"/.exec(raw)![1];
    const parts = raw.split(`--${boundary}`);
    expect(parts.length).toBe(4); // headers, text, attachment, and the epilogue after the closing `--`
    expect(parts[3]).toBe('--\r\n');
    const body = (part: string) => Buffer.from(part.slice(part.indexOf('\r\n\r\n') + 4).replace(/\r\n/g, ''), 'base64');
    expect(body(parts[1]).toString('utf8')).toBe('Grüße');
    expect(body(parts[2]).equals(content)).toBe(true);
  });
});
