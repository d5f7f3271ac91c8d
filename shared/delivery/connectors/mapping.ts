/**
 * Helpers for mapping an ATS's records into our Job fields and our applications into an ATS's fields:
 * only http(s) URLs survive, categories are derived from department/team names where a keyword says so,
 * HTML entities are decoded, and a candidate's name is split the way every ATS needs it.
 */
import type { CATEGORIES, JobInput } from '#jobs/job-schema.js';

type Category = (typeof CATEGORIES)[number];

/** The value when it is an http(s) URL, else null (the service stores and hands out no other scheme). */
export function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol) ? value : null;
  } catch {
    return null;
  }
}

/** A comma-separated answer's values (a multi-select, a location), trimmed, empty ones left out. */
export const listAnswer = (value: string): string[] =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** A yes/no answer: true or false for the usual words (English and German), undefined for anything else. */
export function yesNo(value: string): boolean | undefined {
  const word = value.trim();
  if (/^(yes|true|1|y|ja|on|checked|accepted?)$/i.test(word)) return true;
  return /^(no|false|0|n|nein|off|unchecked)$/i.test(word) ? false : undefined;
}

export const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : typeof value === 'number' ? String(value) : null;

const CATEGORY_KEYWORDS: [RegExp, Category][] = [
  [/software|developer|frontend|backend|full[- ]?stack|devops/i, 'software_development'],
  [/data|analytics|business intelligence/i, 'data_analytics'],
  [/engineer/i, 'engineering'],
  [/product/i, 'product_management'],
  [/project/i, 'project_management'],
  [/design|ux|ui\b/i, 'design'],
  [/marketing/i, 'marketing'],
  [/sales|account exec/i, 'sales'],
  [/business development/i, 'business_development'],
  [/customer|support|success/i, 'customer_service_support'],
  [/\bhr\b|people|recruit|talent/i, 'hr_recruitment'],
  [/finance|accounting|controlling/i, 'accounting_finance'],
  [/legal|compliance/i, 'legal'],
  [/operations|\bops\b/i, 'operations'],
  [/\bit\b|helpdesk|it support/i, 'it_support'],
  [/logistic|supply chain/i, 'logistics_supply_chain'],
  [/warehouse/i, 'warehouse'],
  [/admin/i, 'administration'],
  [/consult/i, 'consulting'],
  [/health|medical|nurs/i, 'healthcare'],
  [/retail/i, 'retail'],
];

/** The first category a keyword of the given names points to, or null. */
export function categoryFrom(...names: unknown[]): Category | null {
  for (const name of names) {
    if (typeof name !== 'string') continue;
    for (const [pattern, category] of CATEGORY_KEYWORDS) if (pattern.test(name)) return category;
  }
  return null;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes HTML entities (Greenhouse sends `content` entity-escaped). */
export function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1].toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return Object.hasOwn(ENTITIES, name.toLowerCase()) ? ENTITIES[name.toLowerCase()] : whole;
  });
}

/** First and last name as the ATSs need them: given ones, else `full_name` split at its last space. */
export function candidateName(candidate: Record<string, unknown>): { first: string; last: string; full: string } {
  const first = text(candidate.first_name);
  const last = text(candidate.last_name);
  if (first && last) return { first, last, full: `${first} ${last}` };
  const full = text(candidate.full_name) ?? [first, last].filter(Boolean).join(' ');
  const cut = full.lastIndexOf(' ');
  // A one-word name goes as both parts: every ATS requires both, and nothing is invented.
  return cut > 0 ? { first: full.slice(0, cut), last: full.slice(cut + 1), full } : { first: full, last: full, full };
}

/** "Berlin, Germany" → city and country parts; one part → city only. */
export function locationParts(name: string | null): { city: string | null; country: string | null } {
  if (!name) return { city: null, country: null };
  const parts = listAnswer(name);
  if (/remote/i.test(name) && parts.length === 1) return { city: null, country: null };
  return { city: parts[0] ?? null, country: parts.length > 1 ? parts[parts.length - 1] : null };
}

/** Remote work mode from a location text that says so. */
export function remoteFrom(...names: (string | null)[]): 'remote' | 'hybrid' | null {
  for (const name of names) {
    if (name && /hybrid/i.test(name)) return 'hybrid';
    if (name && /remote/i.test(name)) return 'remote';
  }
  return null;
}

/** Employment type from a commitment text ("Full-time", "Intern", "Contract"). */
export function commitmentType(value: string): JobInput['employment_type'] {
  if (/intern/i.test(value)) return 'intern';
  if (/freelance/i.test(value)) return 'freelance';
  if (/contract/i.test(value)) return 'contract';
  if (/temp/i.test(value)) return 'temporary';
  if (/apprentice/i.test(value)) return 'apprenticeship';
  if (/working student|werkstudent/i.test(value)) return 'working_student';
  if (/full|part|permanent/i.test(value)) return 'permanent';
  return 'other';
}

/** Work schedule from a commitment text. */
export function commitmentSchedule(value: string): JobInput['work_schedule'] {
  if (/part/i.test(value)) return 'part_time';
  if (/full/i.test(value)) return 'full_time';
  if (/flex/i.test(value)) return 'flexible';
  return null;
}
