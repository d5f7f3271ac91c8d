/**
 * The service's one ajv configuration: options, formats and keywords. It is used at build time only, to
 * generate the validators (ajv standalone code, `npm run validators`), and by tests; no function compiles
 * a schema at runtime, and no function bundle contains ajv. Whatever is added here (a format, a keyword)
 * flows into the generated validators the next time they are generated; a test fails while they are stale.
 * The runtime side (D2 field errors from a validator's errors) is `field-errors.ts`; the shared input rules
 * as schema fragments are `schema-rules.ts`.
 */
import { Ajv, _, str, stringify, type KeywordCxt, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { formats } from '#platform/formats.js';
import { freeFormProblem } from '#platform/storable.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export const AJV_OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: false } as const satisfies Options;

/** How generated code reaches a format implemented as a function (a RegExp format is inlined by ajv itself). */
const FORMATS_CODE = _`require("#platform/formats.js").formats`;
/** How generated code reaches the one-walk check of `x-free-form` (storable.ts). */
const FREE_FORM_CODE = _`require("#platform/storable.js").freeFormProblem`;

/**
 * Adds the service's own formats and the `x-max-json-bytes` keyword to an ajv instance (the service's, and
 * the Ajv2020 one that checks the OpenAPI document). The keyword is generated code (no closure), so it
 * compiles standalone; a value too deep to serialise counts as too large.
 */
export function addInputRules<T extends Pick<Ajv, 'addFormat' | 'addKeyword' | 'formats'>>(instance: T): T {
  for (const [name, format] of Object.entries(formats)) if (!(name in instance.formats)) instance.addFormat(name, format);
  instance.addKeyword({
    keyword: 'x-max-json-bytes',
    schemaType: 'number',
    code(cxt: KeywordCxt) {
      cxt.fail(
        _`(() => { try { return Buffer.byteLength(JSON.stringify(${cxt.data}) ?? ''); } catch { return Infinity; } })() > ${cxt.schema as number}`,
      );
    },
    error: { message: ({ schema }) => str`must be at most ${schema as number} bytes as JSON` },
  });
  // At most that many UTF-16 code units (`String.length`), where `maxLength` counts code points: a filter's text
  // bound (P292), which keeps an exact filter's value a DynamoDB key of at most 1,500 bytes.
  instance.addKeyword({
    keyword: 'x-max-utf16-length',
    type: 'string',
    schemaType: 'number',
    code(cxt: KeywordCxt) {
      cxt.fail(_`${cxt.data}.length > ${cxt.schema as number}`);
    },
    error: { message: ({ schema }) => str`must be at most ${schema as number} characters` },
  });
  // A free-form value (limits as the schema): one walk, reporting the first problem's path below the value
  // (`params.path`, appended by field-errors.ts) and its reason as the message.
  instance.addKeyword({
    keyword: 'x-free-form',
    schemaType: 'object',
    code(cxt: KeywordCxt) {
      // The function itself when compiled in process, its module when generated as standalone code.
      const check = cxt.gen.scopeValue('func', { ref: freeFormProblem, code: FREE_FORM_CODE });
      const problem = cxt.gen.const('problem', _`${check}(${cxt.data}, ${stringify(cxt.schema)})`);
      cxt.setParams({ path: _`${problem} ? ${problem}.path : []`, reason: _`${problem} ? ${problem}.reason : ""` });
      cxt.fail(problem);
    },
    error: { message: ({ params }) => _`${params.reason}`, params: ({ params }) => _`{path: ${params.path}}` },
  });
  return instance;
}

/** A new ajv instance with the service's options, formats and keywords; `options` adds to them (code generation). */
export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ ...AJV_OPTIONS, ...options, code: { ...options.code, formats: FORMATS_CODE } });
  addFormats(ajv);
  return addInputRules(ajv);
}

/** An instance for tests that compile schemas at test time. */
export const ajv = createAjv();
