/**
 * The streamed JSON reader of the lean body path (issue 15) against `JSON.parse` and `isBase64`: for any
 * body cut into any chunks it accepts and refuses exactly what `JSON.parse` does, finds the same document
 * (each attachment's `data` standing in by a placeholder), and hands the stager exactly the bytes
 * `Buffer.from(data, 'base64')` gives, flagging the Base64 that `isBase64` refuses. The stager here only
 * collects what it is given: what is tested is the reader, not storage.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { scanJson } from '#http/json-attachments.js';
import { isBase64, type AttachmentStager, type StagedFile } from '#applications/attachments.js';

function collectingStager(): AttachmentStager & { bytes: Map<string, Buffer> } {
  const bytes = new Map<string, Buffer>();
  return {
    bytes,
    async stage(source) {
      const parts: Buffer[] = [];
      for await (const chunk of source) parts.push(chunk);
      const data = Buffer.concat(parts);
      const key = `k${bytes.size}`;
      bytes.set(key, data);
      return {
        staged: true,
        key,
        size: data.length,
        submittedLength: data.length,
        wellFormed: true,
        head: data.subarray(0, 16),
        checksum: createHash('sha256').update(data).digest('base64'),
      };
    },
  };
}

function chunked(text: string, cuts: number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) chunks.push(bytes.subarray(from, point));
    from = Math.max(from, point);
  }
  return chunks;
}

async function outcome(text: string, cuts: number[]) {
  const stager = collectingStager();
  try {
    const { fields, staged } = await scanJson(chunked(text, cuts), stager);
    return { fields, staged, stager };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}

function expected(text: string): { fields: unknown } | { error: string } {
  try {
    const fields: unknown = JSON.parse(text);
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return { error: 'invalid' };
    return { fields };
  } catch {
    return { error: 'malformed_json' };
  }
}

/** Puts the original strings back where placeholders stand, checking each staged attachment on the way. */
function restore(
  fields: Record<string, unknown>,
  original: Record<string, unknown>,
  staged: Map<string, StagedFile>,
  bytes: Map<string, Buffer>,
) {
  const copy = structuredClone(fields);
  const attachments = copy.attachments;
  if (!Array.isArray(attachments)) return copy;
  attachments.forEach((a: unknown, i) => {
    if (typeof a !== 'object' || a === null || Array.isArray(a) || typeof (a as { data?: unknown }).data !== 'string') return;
    const data = (a as { data: string }).data;
    const source = ((original.attachments as unknown[])[i] as { data: string }).data;
    if (data === '') return expect(source).toBe('');
    const entry = staged.get(data)!;
    expect(entry).toBeDefined();
    expect(entry.wellFormed).toBe(isBase64(source));
    if (entry.wellFormed) {
      expect(entry.submittedLength).toBe(source.length);
      expect(bytes.get(entry.key)!.equals(Buffer.from(source, 'base64'))).toBe(true);
    }
    (a as { data: string }).data = source;
  });
  return copy;
}

const base64Like = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64')),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64').replace(/=+$/, '')),
  fc.string({ unit: fc.constantFrom(...'AB+/=a9 -_\n"\\é€'.split('')), maxLength: 40 }),
  fc.constant(''),
);
const attachment = fc.record(
  {
    type: fc.constantFrom('cv', 'other'),
    name: fc.string({ maxLength: 8 }),
    content_type: fc.constant('application/pdf'),
    data: base64Like,
  },
  { requiredKeys: ['data'] },
);
const body = fc.record(
  {
    job: fc.integer(),
    candidate: fc.record({ email: fc.string({ maxLength: 10 }), note: fc.string({ maxLength: 10 }) }),
    attachments: fc.array(attachment, { maxLength: 4 }),
    custom_fields: fc.dictionary(fc.constantFrom('data', 'attachments', 'x'), fc.jsonValue({ maxDepth: 2 })),
  },
  { requiredKeys: [] },
);
/** How clients write it: plain, with `\/` (PHP's default) or with every character of `data` as \u escapes. */
const spellings = fc.constantFrom('plain', 'slashes', 'unicode');

function spell(value: Record<string, unknown>, how: string): string {
  const text = JSON.stringify(value, null, how === 'plain' ? 0 : 1);
  if (how === 'slashes') return text.replaceAll('/', '\\/');
  if (how === 'unicode')
    return text.replace(/"data": ?"((?:[^"\\]|\\.)*)"/g, (_m, inner: string) => {
      const decoded = JSON.parse(`"${inner}"`) as string;
      return `"data":"${[...decoded].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;
    });
  return text;
}

describe('the streamed JSON reader', () => {
  test('finds the same document as JSON.parse, in any chunks, and stages exactly the decoded bytes', async () => {
    await fc.assert(
      fc.asyncProperty(body, spellings, fc.array(fc.nat(), { maxLength: 6 }), async (value, how, cuts) => {
        const text = spell(value, how);
        const result = await outcome(text, cuts);
        const reference = expected(text);
        expect('error' in result).toBe('error' in reference);
        if ('error' in result || 'error' in reference) return;
        const parsed = reference.fields as Record<string, unknown>;
        expect(restore(result.fields, parsed, result.staged, result.stager.bytes)).toEqual(parsed);
      }),
      { numRuns: 300 },
    );
  });

  test('refuses what JSON.parse refuses: truncated, altered and non-object bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.nat(),
        fc.constantFrom('', '"', '\\', '}', ']', ',', '\u0001', 'x'),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (value, at, insert, cuts) => {
          const whole = JSON.stringify(value);
          const position = at % (whole.length + 1);
          const text = whole.slice(0, position) + insert + (insert === '' ? '' : whole.slice(position));
          const result = await outcome(text, cuts);
          const reference = expected(text);
          if ('error' in reference) expect(result).toEqual({ error: reference.error });
          else expect('error' in result).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
    for (const text of ['[]', '"x"', '3', 'null', '\ufeff{}', '{"attachments":[{"data":"QUJD"}]}x', '{"attachments":[{"data":"QU\\xJD"}]}'])
      expect(await outcome(text, [3])).toEqual(expected(text));
  });

  test('a later duplicate key wins as in JSON.parse; placeholders only stand at attachments[i].data', async () => {
    const text =
      '{"attachments":[{"data":"QUJD"}],"attachments":[{"data":"REVG","data":"R0hJ"}],"notes":{"attachments":[{"data":"SktM"}]}}';
    const result = await outcome(text, [20, 40]);
    if ('error' in result) throw new Error(result.error);
    const data = (result.fields.attachments as { data: string }[])[0].data;
    expect(result.stager.bytes.get(result.staged.get(data)!.key)!.toString()).toBe('GHI');
    expect(result.fields.notes).toEqual({ attachments: [{ data: 'SktM' }] });
  });
});
