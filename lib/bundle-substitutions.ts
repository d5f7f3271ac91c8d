/**
 * Modules of dependencies that the functions bundle but never run, or run only in part, replaced in every
 * bundle by something smaller that does what our code paths need of them (P231). They are files a package
 * requires by a relative path, which esbuild's `alias` cannot substitute (it takes package names only), so an
 * esbuild plugin resolves them instead; `esbuildOptions()` (lib/function-bundle.ts) adds it to every build.
 * Code run from source (tests, the local runtime, the admin tool) keeps the libraries as they are.
 * test/cdk/bundle-substitutions.test.ts compares a bundle with these substitutions and one without.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';
import { projectRoot } from './project-paths.js';

export interface Substitution {
  /** The requiring file, as its path under `node_modules/` ends. */
  importer: string | RegExp;
  /** The import paths, as the importer writes them. */
  requests: readonly string[];
  /** A project file to bundle instead, the source of a module, or the package.json with only these fields. */
  replacement: { file: string } | { source: string } | { packageFields: readonly string[] };
  /** Why nothing we run needs what is replaced. */
  why: string;
}

/** is-unsafe's pattern lists that fast-xml-parser, its only importer here, never passes to `isUnsafe`. */
const UNUSED_UNSAFE_CONTEXTS = ['svg', 'sql', 'sql-strict', 'shell', 'redos', 'nosql', 'log'];

export const SUBSTITUTIONS: readonly Substitution[] = [
  {
    importer: 'nodemailer/lib/mime-funcs/index.js',
    requests: ['./mime-types'],
    replacement: { file: 'shared/platform/mime-types-stub.ts' },
    why:
      "nodemailer's table of file extensions (76 kB) is consulted for a part without a content type (none in " +
      '`mimeMessage()`) and for the extension of an attachment without a file name, where the stub answers as the ' +
      'table does for every permitted attachment type',
  },
  {
    importer: /^nodemailer\/lib\/(mime-node|shared)\/index\.js$/,
    requests: ['../fetch'],
    replacement: {
      source:
        "module.exports = function nmfetch() { throw new Error('nodemailer URL access is not bundled: mimeMessage() sets disableUrlAccess'); };",
    },
    why:
      "nodemailer's HTTP client (with its cookie jar, 7 kB) fetches a part given as a URL; `mimeMessage()` gives every " +
      'part as a Buffer or string and sets `disableUrlAccess`, which answers such a part with an error before any fetch',
  },
  {
    importer: 'is-unsafe/src/index.js',
    requests: UNUSED_UNSAFE_CONTEXTS.map((context) => `./contexts/${context}.js`),
    replacement: { source: 'export default [];' },
    why:
      'fast-xml-parser (the Personio connector parses its XML job feed with it) imports `isUnsafe`, `HTML` and `XML` ' +
      'from is-unsafe and calls `isUnsafe(value, [HTML, XML])` only, on DOCTYPE entities; the other seven pattern ' +
      'lists (12 kB) are never consulted',
  },
  {
    importer: /^(@aws-sdk\/client-s3\/dist-es\/(S3Client|runtimeConfig)|@smithy\/core\/dist-es\/submodules\/protocols\/HttpProtocol)\.js$/,
    requests: ['@smithy/core/event-streams'],
    replacement: { file: 'shared/platform/event-streams-stub.ts' },
    why:
      "the SDK's event-stream codec (15 kB) serves operations with an event stream, which the service never calls; " +
      'the S3 client resolves a marshaller when it is built, which the stub does as the library does',
  },
  {
    importer: /^@aws-sdk\/client-[a-z0-9-]+\/dist-es\/runtimeConfig\.js$/,
    requests: ['../package.json'],
    replacement: { packageFields: ['version'] },
    why: 'an SDK client reads only the version of its package.json (for the user agent); the whole file is 2-3 kB per client',
  },
  {
    importer: 'aws-xray-sdk-core/dist/lib/aws-xray.js',
    requests: ['../../package.json'],
    replacement: { packageFields: ['name', 'version'] },
    why: "the X-Ray SDK reads only the name and version of its package.json (the segment's `sdk` fields)",
  },
];

const NAMESPACE = 'substitute';

/** The path under the last `node_modules/` of a resolved file ('' for a project file). */
const packagePath = (file: string) => {
  const at = file.lastIndexOf('/node_modules/');
  return at < 0 ? '' : file.slice(at + '/node_modules/'.length);
};

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The esbuild plugin that applies `SUBSTITUTIONS`. */
export function bundleSubstitutions(substitutions: readonly Substitution[] = SUBSTITUTIONS): Plugin {
  // One filter over every request, so that esbuild calls back only for these import paths.
  const filter = new RegExp(`^(${[...new Set(substitutions.flatMap((s) => s.requests))].map(escape).join('|')})$`);
  const applies = (s: Substitution, importer: string, request: string) =>
    s.requests.includes(request) && (typeof s.importer === 'string' ? importer === s.importer : s.importer.test(importer));
  return {
    name: 'bundle-substitutions',
    setup(build) {
      build.onResolve({ filter }, (args) => {
        const importer = packagePath(args.importer);
        const index = substitutions.findIndex((s) => applies(s, importer, args.path));
        if (index < 0) return undefined;
        const { replacement } = substitutions[index];
        if ('file' in replacement) return { path: join(projectRoot, replacement.file) };
        // The replaced file's own path, in the plugin's namespace: the metafile shows what was substituted.
        return { path: join(dirname(args.importer), args.path), namespace: NAMESPACE, pluginData: index };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const { replacement } = substitutions[args.pluginData as number];
        if ('source' in replacement) return { contents: replacement.source, loader: 'js' };
        if ('packageFields' in replacement) {
          const pkg = JSON.parse(readFileSync(args.path, 'utf8')) as Record<string, unknown>;
          return { contents: JSON.stringify(Object.fromEntries(replacement.packageFields.map((f) => [f, pkg[f]]))), loader: 'json' };
        }
        return undefined;
      });
    },
  };
}
