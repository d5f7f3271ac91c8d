import { mimeMessage } from '#delivery/email.js';

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
    expect(raw).toContain('Date: Thu, 01 Jan 2026 00:00:00 GMT');
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
