/**
 * Every string `format` the service's schemas may use. The ajv configuration (`validation.ts`) registers
 * them, and the generated validators take the ones they use from here, inlined at generation time: a format
 * implemented as a function must live in this module, or the generated code could not reach it.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Format } from 'ajv';

export const formats: Record<string, Format> = { ...fullFormats };
