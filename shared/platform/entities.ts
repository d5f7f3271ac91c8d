/**
 * Entities declared once (issue 42 item 1, P290), in ElectroDB's spirit: an entity's declaration names each
 * index it is in, and for each key of it the record fields it is built from and how. Every write derives the
 * index attributes from it: a create (`item`), and a later write of some fields (`updateParts`), which rewrites
 * (or removes, when the record no longer has it) every attribute built from a field it writes, so a new indexed
 * field is followed by status moves and retention without their code changing. The declaration is checked when
 * it is made (module load): an index used twice by one entity (two filters on one slot), or one attribute
 * built two ways by two indexes, throws an error naming the entity and the index.
 */
import { partitionKeyOf, sortKeyOf, tableDefinition, type IndexName } from '#platform/table.js';

/** A derived attribute's value; undefined: the item does not have it (sparse indexes). */
export type DerivedValue = string | number | boolean | undefined;

/** One attribute's derivation: the record fields it is built from (`build` sees only those), and how. */
export interface Part<R> {
  fields: readonly (keyof R & string)[];
  build: (record: R) => DerivedValue;
}

/** One index an entity is in: the access pattern it serves (named in errors) and how each of its keys is built. */
export interface IndexUse<R> {
  pattern: string;
  index: IndexName;
  pk: Part<R>;
  sk: Part<R>;
  /**
   * A write that clears one of the fields leaves the entry where it is, only a new value moves it (P242: the
   * sync-due entry stays behind for the sweeper's mark to pass, which costs no index write).
   */
  keepWhenCleared?: boolean;
}

export interface EntityDeclaration<R> {
  entity: string;
  indexes: readonly IndexUse<R>[];
  /** Other attributes built from the record (search copies, derived flags), written and cleared alike. */
  attributes?: Readonly<Record<string, Part<R>>>;
}

/** The SET and REMOVE clauses of an update, with their placeholders (joined by `updateExpression`). */
export interface UpdateParts {
  set: string[];
  remove: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

interface Rule<R> {
  attribute: string;
  part: Part<R>;
  /** The index uses that build it (several share a sort key, e.g. the collection sort). */
  uses: string[];
  keep: boolean;
  index: boolean;
}

export interface Entity<R> {
  readonly entity: string;
  /** Every derived attribute: the index keys, then the other attributes. */
  readonly attributes: readonly string[];
  /** The index key attributes the entity writes (never `PK`/`SK`). */
  readonly indexAttributes: readonly string[];
  /** The indexes the entity is in. */
  readonly indexes: readonly IndexName[];
  /** The record fields an attribute is built from. */
  fieldsOf(attribute: string): readonly string[];
  /** Every derived attribute of a record (undefined where it has none): a create's, or a check's. */
  derive(record: R): Map<string, DerivedValue>;
  /** The derived attributes of a new item (only those it has). */
  item(record: R): Record<string, string | number | boolean>;
  /**
   * A write of `fields` (undefined: removed) to a record of which `known` holds at least the fields every
   * affected attribute is built from (or is the whole record, `complete`: an absent field is then one it does
   * not have): the field writes and every derived attribute built from one of them. Placeholders are
   * `#<prefix><n>` and `:<prefix><n>`.
   */
  updateParts(known: Partial<R>, fields: Readonly<Record<string, unknown>>, options?: { complete?: boolean; prefix?: string }): UpdateParts;
}

const TABLE_KEYS = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);

function samePart<R>(a: Part<R>, b: Part<R>): boolean {
  return a.build === b.build && a.fields.length === b.fields.length && a.fields.every((f, i) => f === b.fields[i]);
}

/** The record with only `fields` (so a derivation that reads an undeclared field sees nothing there). */
function only<R>(record: Partial<R>, fields: readonly string[]): R {
  const picked = Object.create(null) as Record<string, unknown>;
  for (const field of fields) if (Object.hasOwn(record, field)) picked[field] = (record as Record<string, unknown>)[field];
  return picked as R;
}

/** An entity from its declaration; throws when the declaration uses an index twice or builds an attribute two ways. */
export function defineEntity<R>(declaration: EntityDeclaration<R>): Entity<R> {
  const { entity } = declaration;
  const rules = new Map<string, Rule<R>>();
  const used = new Map<IndexName, string>();
  const rule = (attribute: string, part: Part<R>, use: string, keep: boolean, index: boolean) => {
    if (TABLE_KEYS.has(attribute)) throw new Error(`entity ${entity}: ${use} may not build the table key ${attribute}`);
    const existing = rules.get(attribute);
    if (!existing) return void rules.set(attribute, { attribute, part, uses: [use], keep, index });
    if (!samePart(existing.part, part))
      throw new Error(`entity ${entity}: ${use} builds ${attribute} differently from ${existing.uses.join(', ')}`);
    existing.uses.push(use);
    existing.keep &&= keep;
  };
  for (const use of declaration.indexes) {
    const earlier = used.get(use.index);
    if (earlier !== undefined) throw new Error(`entity ${entity} uses index ${use.index} twice: for ${earlier} and for ${use.pattern}`);
    used.set(use.index, use.pattern);
    const label = `index ${use.index} (${use.pattern})`;
    rule(partitionKeyOf(use.index), use.pk, label, Boolean(use.keepWhenCleared), true);
    rule(sortKeyOf(use.index), use.sk, label, Boolean(use.keepWhenCleared), true);
  }
  const indexAttributes = [...rules.keys()];
  for (const [attribute, part] of Object.entries(declaration.attributes ?? {})) {
    if (rules.has(attribute))
      throw new Error(`entity ${entity}: attribute ${attribute} is an index key of ${rules.get(attribute)!.uses.join(', ')}`);
    rule(attribute, part, `attribute ${attribute}`, false, false);
  }
  const all = [...rules.values()];
  const value = (r: Rule<R>, record: Partial<R>) => r.part.build(only(record, r.part.fields));

  return {
    entity,
    attributes: all.map((r) => r.attribute),
    indexAttributes,
    indexes: [...used.keys()],
    fieldsOf: (attribute) => rules.get(attribute)?.part.fields ?? [],
    derive: (record) => new Map(all.map((r) => [r.attribute, value(r, record)])),
    item(record) {
      const item: Record<string, string | number | boolean> = {};
      for (const r of all) {
        const v = value(r, record);
        if (v !== undefined) item[r.attribute] = v;
      }
      return item;
    },
    updateParts(known, fields, { complete = false, prefix = 'e' } = {}) {
      const parts: UpdateParts = { set: [], remove: [], names: {}, values: {} };
      let n = 0;
      const write = (attribute: string, v: unknown) => {
        const name = `#${prefix}${n}`;
        parts.names[name] = attribute;
        if (v === undefined) parts.remove.push(name);
        else {
          parts.values[`:${prefix}${n}`] = v;
          parts.set.push(`${name} = :${prefix}${n}`);
        }
        n++;
      };
      const written = new Set(Object.keys(fields));
      const record = { ...known, ...fields } as Partial<R>;
      for (const [field, v] of Object.entries(fields)) {
        if (rules.has(field)) throw new Error(`entity ${entity}: ${field} is derived, not written`);
        write(field, v);
      }
      for (const r of all) {
        if (!r.part.fields.some((f) => written.has(f))) continue;
        const missing = complete ? [] : r.part.fields.filter((f) => !Object.hasOwn(record, f));
        if (missing.length)
          throw new Error(
            `entity ${entity}: rewriting ${r.attribute} needs ${missing.join(', ')} (built from ${r.part.fields.join(', ')})`,
          );
        const v = value(r, record);
        if (v === undefined && r.keep) continue;
        write(r.attribute, v);
      }
      return parts;
    },
  };
}

/** `SET …` and `REMOVE …` of some update parts (with `extra` SET clauses first). */
export function updateExpression(parts: UpdateParts, extraSet: readonly string[] = []): string {
  const set = [...extraSet, ...parts.set];
  return [set.length ? `SET ${set.join(', ')}` : '', parts.remove.length ? `REMOVE ${parts.remove.join(', ')}` : '']
    .filter(Boolean)
    .join(' ');
}
