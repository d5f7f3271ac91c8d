/**
 * The bundles' stand-in for nodemailer's extension table (shared/platform/mime-types-stub.ts, P231) answers as
 * the table does wherever our messages reach it: `mimeMessage()` never asks for a content type (every part has
 * one), and asks for an extension only for an attachment without a file name.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { jest } from '@jest/globals';
import real from 'nodemailer/lib/mime-funcs/mime-types.js';
import { CONTENT_TYPES } from '#applications/attachments.js';
import { mimeMessage } from '#delivery/email.js';
import * as stub from '#platform/mime-types-stub.js';

test('it has the functions of the module it replaces, and nodemailer calls no other', () => {
  expect(Object.keys(stub).sort()).toEqual(Object.keys(real).sort());
  const mimeFuncs = readFileSync(createRequire(import.meta.url).resolve('nodemailer/lib/mime-funcs/index.js'), 'utf8');
  expect([...new Set([...mimeFuncs.matchAll(/\bmimeTypes\.(\w+)/g)].map((m) => m[1]))].sort()).toEqual([
    'detectExtension',
    'detectMimeType',
  ]);
});

test('the extension of every permitted attachment type, and of the fallback type, is the table’s', () => {
  const types = [...Object.keys(CONTENT_TYPES), 'application/octet-stream'];
  expect(types.map((type) => [type, stub.detectExtension(type)])).toEqual(types.map((type) => [type, real.detectExtension(type)]));
  // The forms nodemailer accepts: any case, surrounding blanks.
  expect(stub.detectExtension(' Application/PDF ')).toBe(real.detectExtension(' Application/PDF '));
  // Where the table has no entry, its defaults.
  for (const type of ['text/x-unknown', 'application/x-unknown', 'unknown', '']) {
    expect({ type, extension: stub.detectExtension(type) }).toEqual({ type, extension: real.detectExtension(type) });
  }
});

test('the content type of the extensions of the permitted types is the table’s; other names get the default', () => {
  const names = [
    'cv.pdf',
    'CV.PDF',
    'pdf',
    'photo.jpg',
    'photo.jpeg',
    'scan.tif',
    'scan.tiff',
    'notes.txt',
    'sheet.xlsx',
    'a.rtf',
    'data.csv',
  ];
  for (const name of [...names, 'x.pdf?download=1', 'noextension', '']) {
    expect({ name, type: stub.detectMimeType(name) }).toEqual({ name, type: real.detectMimeType(name) });
  }
  // The table knows about 1,000 more extensions; the stub does not, because no message of ours asks (below).
  expect(stub.detectMimeType('archive.gz')).toBe('application/octet-stream');
});

describe('what mimeMessage() asks of the table', () => {
  const content = Buffer.from('%PDF-1.4');
  let detectMimeType: ReturnType<typeof jest.spyOn>;
  let detectExtension: ReturnType<typeof jest.spyOn>;
  beforeEach(() => {
    detectMimeType = jest.spyOn(real, 'detectMimeType');
    detectExtension = jest.spyOn(real, 'detectExtension');
  });
  afterEach(() => jest.restoreAllMocks());

  test('never a content type, whatever the file names; an extension only for an attachment without a name', async () => {
    await mimeMessage(
      {
        to: 'hr@example.com',
        subject: 'Application',
        text: 'Grüße',
        attachments: [
          { filename: 'archive.gz', contentType: 'application/zip', content },
          { filename: 'cv', contentType: 'application/pdf', content },
          { filename: 'notes.txt', contentType: 'not a type', content },
        ],
      },
      'applications@example.com',
    );
    expect(detectMimeType).not.toHaveBeenCalled();
    expect(detectExtension).not.toHaveBeenCalled();

    const raw = await mimeMessage(
      { to: 'hr@example.com', subject: 'Application', text: 'Hello', attachments: [{ filename: '', contentType: 'image/tiff', content }] },
      'applications@example.com',
    );
    expect(detectMimeType).not.toHaveBeenCalled();
    expect(detectExtension.mock.calls).toEqual([['image/tiff']]);
    expect(raw).toContain('filename=attachment-1.tif');
  });
});
