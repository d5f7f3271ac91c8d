import { apiReference } from '#http/api-reference.js';

export const handler = apiReference;
