/**
 * One walk over a free-form value (custom fields, form options, an ATS's raw record) that checks what storing
 * and handing it out needs: nesting within a depth (DynamoDB allows 32), bounded keys, items and strings, key
 * names that are not a prototype's own, and numbers lib-dynamodb can marshal (finite, |x| ≤ 2^53 − 1, and 0
 * or |x| ≥ 1e-130). Generated validators call it through the `x-free-form` keyword (validation.ts): a schema
 * per level would be inlined once per level and per branch (objects and arrays), 2^depth copies in all.
 */
export interface FreeFormLimits {
  /** Levels, the value itself being level 1. */
  depth: number;
  keys: number;
  items: number;
  string: number;
  keyName: number;
}

/** The first problem found: where (keys and indexes below the value) and why; undefined when all is well. */
export interface FreeFormProblem {
  path: (string | number)[];
  reason: string;
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function freeFormProblem(
  value: unknown,
  limits: FreeFormLimits,
  level = 1,
  path: (string | number)[] = [],
): FreeFormProblem | undefined {
  if (value === null || typeof value === 'boolean') return undefined;
  if (typeof value === 'string')
    return value.length > limits.string ? { path, reason: `must be at most ${limits.string} characters` } : undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
      return { path, reason: `must be a number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}` };
    if (value !== 0 && Math.abs(value) < 1e-130) return { path, reason: 'must be 0 or at least 1e-130 in magnitude' };
    return undefined;
  }
  if (typeof value !== 'object') return { path, reason: 'must be a string, number, boolean, null, object or array' };
  if (level > limits.depth) return { path, reason: `must be a string, number, boolean or null: at most ${limits.depth} levels deep` };
  if (Array.isArray(value)) {
    if (value.length > limits.items) return { path, reason: `must have at most ${limits.items} items` };
    for (let i = 0; i < value.length; i++) {
      const problem = freeFormProblem(value[i], limits, level + 1, [...path, i]);
      if (problem) return problem;
    }
    return undefined;
  }
  const entries = Object.entries(value);
  if (entries.length > limits.keys) return { path, reason: `must have at most ${limits.keys} keys` };
  for (const [key, item] of entries) {
    if (UNSAFE_KEYS.has(key) || key.length < 1 || key.length > limits.keyName)
      return {
        path: [...path, key],
        reason: `this name is not accepted here: names are 1 to ${limits.keyName} characters, and not __proto__, constructor or prototype`,
      };
    const problem = freeFormProblem(item, limits, level + 1, [...path, key]);
    if (problem) return problem;
  }
  return undefined;
}
