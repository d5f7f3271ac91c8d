/**
 * The substitutions of lib/bundle-substitutions.ts (P231) change nothing our code gets from the libraries:
 * test/support/substitution-probe.ts is bundled twice, with the functions' options (`esbuildOptions()`) and
 * with the same options but no substitutions, each bundle is run in a fresh process, and what they answer
 * (e-mails, parsed XML with entities, SDK user agents, the X-Ray SDK's data, SDK requests and answers) must be equal. The substituted
 * bundle is checked to hold every substitute and none of the files they replace, so the comparison is of the
 * substituted code. Besides, what the replaced files offered and their importers use is read from the
 * installed packages, so an upgrade that starts using more of them fails here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { bundleEntryFile, esbuildOptions } from '../../lib/function-bundle.js';
import { projectRoot } from '../../lib/project-paths.js';
import type { probe } from '../support/substitution-probe.js';

type Answers = Awaited<ReturnType<typeof probe>>;

let outdir: string;
let inputs: string[];
let bundled: Answers;
let whole: Answers;

/** A file of an installed package. */
const source = (path: string) => readFileSync(join(projectRoot, 'node_modules', path), 'utf8');

const packagePath = (input: string) => input.slice(input.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** Bundles the probe with `options`, runs it in a fresh process and returns its answers (multipart boundaries, random per message, made equal). */
async function runProbe(options: BuildOptions): Promise<{ answers: Answers; metafile: Metafile }> {
  const result = await build({ ...options, write: true, metafile: true });
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { probe } = await import(${JSON.stringify(pathToFileURL(bundleEntryFile(options.outdir!)).href)}); process.stdout.write(JSON.stringify(await probe()));`,
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH } },
  );
  if (run.status !== 0) throw new Error(`the bundled probe failed: ${run.stderr}`);
  const answers = JSON.parse(run.stdout) as Answers;
  answers.mails = answers.mails.map((mail) => mail.replace(/_NmP-[0-9a-f]{16}-Part_/g, '_NmP-boundary-Part_'));
  return { answers, metafile: result.metafile as Metafile };
}

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'his-substitutions-'));
  const entry = join(projectRoot, 'test', 'support', 'substitution-probe.ts');
  const substituted = await runProbe(esbuildOptions(entry, { outdir: join(outdir, 'substituted'), sourcemap: false }));
  bundled = substituted.answers;
  inputs = Object.keys(substituted.metafile.inputs);
  whole = (await runProbe({ ...esbuildOptions(entry, { outdir: join(outdir, 'whole'), sourcemap: false }), plugins: [] })).answers;
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

test('the probe bundle holds every substitute and none of the replaced files', () => {
  expect(inputs).toEqual(expect.arrayContaining(['shared/platform/mime-types-stub.ts', 'shared/platform/event-streams-stub.ts']));
  expect(
    inputs
      .filter((input) => input.startsWith('substitute:'))
      .map(packagePath)
      .sort(),
  ).toEqual(
    [
      '@aws-sdk/client-dynamodb/package.json',
      '@aws-sdk/client-kms/package.json',
      '@aws-sdk/client-s3/package.json',
      '@aws-sdk/client-sesv2/package.json',
      '@aws-sdk/client-sns/package.json',
      '@aws-sdk/client-sqs/package.json',
      'aws-xray-sdk-core/package.json',
      'is-unsafe/src/contexts/log.js',
      'is-unsafe/src/contexts/nosql.js',
      'is-unsafe/src/contexts/redos.js',
      'is-unsafe/src/contexts/shell.js',
      'is-unsafe/src/contexts/sql-strict.js',
      'is-unsafe/src/contexts/sql.js',
      'is-unsafe/src/contexts/svg.js',
      'nodemailer/lib/fetch',
    ].sort(),
  );
  const kept = inputs.filter((input) => !input.startsWith('substitute:')).map(packagePath);
  const replaced =
    /^(nodemailer\/lib\/(mime-funcs\/mime-types|fetch\/)|is-unsafe\/src\/contexts\/(?!html|xml)|@aws-sdk\/client-[^/]+\/package\.json$|aws-xray-sdk-core\/package\.json$|@smithy\/core\/dist-es\/submodules\/event-streams\/)/;
  expect(kept.filter((path) => replaced.test(path))).toEqual([]);
  expect(kept).toEqual(expect.arrayContaining(['is-unsafe/src/contexts/html.js', 'is-unsafe/src/contexts/xml.js']));
});

test('e-mails are the same to the byte: headers, Message-ID, file names, content types, Base64 bodies', () => {
  expect(bundled.mails).toHaveLength(4);
  expect(bundled.mails).toEqual(whole.mails);
  // The comparison covers the cases the stub answers: attachments without a file name.
  expect(bundled.mails[3]).toContain('filename=attachment-1.pdf');
  expect(bundled.mails[3]).toContain('filename=attachment-18.*');
});

test('XML entities are blocked and let through as by the whole is-unsafe', () => {
  expect(bundled.xml).toEqual(whole.xml);
  // Both kinds occur: the HTML and XML patterns block, and values only other contexts would flag pass.
  const values = (bundled.xml as { a: { b: string } }[]).map((document) => document.a.b);
  expect(values.filter((value) => value === '&x;').length).toBeGreaterThan(2);
  expect(values).toEqual(expect.arrayContaining(['hello', "' OR 1=1 --", '$(rm -rf /)']));
});

test('the SDK clients and the X-Ray SDK report the versions of their packages', () => {
  expect(bundled.userAgents).toEqual(whole.userAgents);
  const s3 = JSON.parse(source('@aws-sdk/client-s3/package.json')) as { version: string };
  expect(bundled.userAgents.S3).toContainEqual(['api/S3', s3.version]);
  expect(bundled.xray).toEqual(whole.xray);
  expect(bundled.xray).toMatchObject({
    sdk: 'X-Ray for Node.js',
    package: 'aws-xray-sdk-core',
    sdk_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
  });
});

test('SDK calls send and read the same through S3 (REST-XML), DynamoDB (JSON) and SES (REST-JSON), errors included', () => {
  expect(bundled.sdk.sent).toEqual(whole.sdk.sent);
  expect(bundled.sdk.answers).toEqual(whole.sdk.answers);
  expect(bundled.sdk.sent.map((request) => `${request.method} ${request.hostname}${request.path}`)).toEqual([
    'GET s3.eu-central-1.amazonaws.com/b/cv/1.pdf',
    'PUT s3.eu-central-1.amazonaws.com/b/a%20b/%C3%BC.pdf',
    'GET s3.eu-central-1.amazonaws.com/b/gone',
    'POST dynamodb.eu-central-1.amazonaws.com/',
    'POST email.eu-central-1.amazonaws.com/v2/email/outbound-emails',
    'POST s3.eu-central-1.amazonaws.com/b/k',
  ]);
  expect(bundled.sdk.answers).toEqual([
    { body: 'the file', contentType: 'text/plain' },
    { etag: null },
    { failed: 'NoSuchKey', message: 'The key is gone' },
    { pk: { S: 'COMPANY#1' }, n: { N: '2' } },
    'm-1',
  ]);
  // The one difference: an event stream, which no call of the service has, fails with the stub's message.
  expect(whole.sdk.select).toEqual({ failed: null, message: '' });
  expect(bundled.sdk.select).toEqual({ failed: 'Error', message: expect.stringContaining('event streams are not bundled') });
});

describe('what is replaced is all its importers use (read from the installed packages)', () => {
  test('nodemailer calls its HTTP client only in a branch that disableUrlAccess refuses first', () => {
    for (const file of ['nodemailer/lib/mime-node/index.js', 'nodemailer/lib/shared/index.js']) {
      const text = source(file);
      const calls = [...text.matchAll(/\bnmfetch\(/g)].map((m) => m.index);
      expect({ file, calls: calls.length }).toEqual({ file, calls: 1 });
      // The refusal is the branch's first statement, a few lines above the call.
      expect({ file, guarded: calls.map((at) => /if \((this|options)\.disableUrlAccess\) \{/.test(text.slice(at - 500, at))) }).toEqual({
        file,
        guarded: [true],
      });
      expect(text).not.toMatch(/\bnmfetch\./);
    }
  });

  test('fast-xml-parser takes isUnsafe, HTML and XML from is-unsafe and passes only HTML and XML', () => {
    const parser = source('fast-xml-parser/src/xmlparser/OrderedObjParser.js');
    expect(parser.match(/import [^;\n]* from ["']is-unsafe["']/g)).toEqual([
      'import { isUnsafe, HTML as HTML_CONTEXT, XML as XML_CONTEXT } from "is-unsafe"',
    ]);
    // Calls outside comments (the file keeps a commented-out one).
    const code = parser.replace(/^\s*\/\/.*$/gm, '');
    expect([...code.matchAll(/isUnsafe\(([^)]*)\)/g)].map((m) => m[1])).toEqual(['value, [HTML_CONTEXT, XML_CONTEXT]']);
  });

  test('the SDK imports from @smithy/core/event-streams only what the stub exports', () => {
    const stubbed = new Set(['eventStreamSerdeProvider', 'resolveEventStreamSerdeConfig', 'EventStreamSerde']);
    const importers: Record<string, string> = {
      '@aws-sdk/client-s3/dist-es/S3Client.js': 'static',
      '@aws-sdk/client-s3/dist-es/runtimeConfig.js': 'static',
      '@smithy/core/dist-es/submodules/protocols/HttpProtocol.js': 'dynamic',
    };
    for (const [file, kind] of Object.entries(importers)) {
      const text = source(file);
      const names = [
        ...text.matchAll(/import \{([^}]*)\} from "@smithy\/core\/event-streams"/g),
        ...text.matchAll(/const \{([^}]*)\} = await import\("@smithy\/core\/event-streams"\)/g),
      ].flatMap((m) =>
        m[1]
          .split(',')
          .map((name) =>
            name
              .trim()
              .split(/\s+as\s+|:/)[0]
              .trim(),
          )
          .filter(Boolean),
      );
      expect({ file, kind, imports: names.length > 0, unknown: names.filter((name) => !stubbed.has(name)) }).toEqual({
        file,
        kind,
        imports: true,
        unknown: [],
      });
    }
  });

  test('the SDK clients read only the version of their package.json; the X-Ray SDK its name and version', () => {
    for (const client of ['dynamodb', 'kms', 's3', 'sesv2', 'sns', 'sqs']) {
      const config = source(`@aws-sdk/client-${client}/dist-es/runtimeConfig.js`);
      expect({ client, reads: [...new Set([...config.matchAll(/\bpackageInfo\.(\w+)/g)].map((m) => m[1]))] }).toEqual({
        client,
        reads: ['version'],
      });
    }
    const xray = source('aws-xray-sdk-core/dist/lib/aws-xray.js');
    expect([...new Set([...xray.matchAll(/\bpkginfo\.(\w+)/g)].map((m) => m[1]))].sort()).toEqual(['name', 'version']);
  });
});
