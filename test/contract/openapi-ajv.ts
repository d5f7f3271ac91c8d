/**
 * Validates against the schemas of the OpenAPI document itself (not the TypeScript objects it was made
 * from), so a wrong `$ref` or a wrongly wired response fails. The document is JSON Schema 2020-12 (the
 * OpenAPI 3.1 dialect), hence a separate Ajv2020 instance, strict like the service's draft-07 one.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { addInputRules } from '#platform/validation.js';

export const DOCUMENT_ID = 'https://hiring-integration-service.local/openapi.json';

/**
 * An Ajv holding the document's schemas. `checkSchemas: false` skips checking them against the 2020-12
 * meta-schema as they are added (60–80 ms): for the response check every HTTP test file loads
 * (test/support/openapi-conformance.ts), since test/unit/openapi.test.ts checks the document's schemas once, with it on.
 */
export function documentAjv(doc: { components: { schemas: Record<string, unknown> } }, options: { checkSchemas?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateSchema: options.checkSchemas ?? true });
  (addFormatsModule as unknown as (a: Ajv2020) => Ajv2020)(ajv);
  // The service's own formats (http-url, media-type) and keyword (x-max-json-bytes), as the schemas use them.
  addInputRules(ajv as never);
  // The schemas stay where the document has them, so `#/components/schemas/…` references resolve as written.
  ajv.addKeyword('components');
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: doc.components.schemas } });
  return ajv;
}

/** A validator for a schema of the document given as a local reference, such as `#/components/schemas/Job`. */
export function compileRef(ajv: Ajv2020, ref: string) {
  return ajv.compile({ $ref: `${DOCUMENT_ID}${ref}` });
}
