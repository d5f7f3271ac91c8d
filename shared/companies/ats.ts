/**
 * The ATS integrations a company can be linked to (its `ats` slug). Only `sandbox` has a connector so
 * far, and it needs no credentials, so it is the only one that counts as connected (D15).
 */
export interface AtsIntegration {
  slug: string;
  name: string;
  /** Whether a company on this ATS has a working connection (credentials or none needed). */
  connected: boolean;
}

export const atsIntegrations: readonly AtsIntegration[] = [
  { slug: 'sandbox', name: 'Sandbox ATS', connected: true },
  { slug: 'greenhouse', name: 'Greenhouse', connected: false },
  { slug: 'lever', name: 'Lever', connected: false },
  { slug: 'personio', name: 'Personio', connected: false },
  { slug: 'smartrecruiters', name: 'SmartRecruiters', connected: false },
  { slug: 'workday', name: 'Workday', connected: false },
  { slug: 'recruitee', name: 'Recruitee', connected: false },
  { slug: 'teamtailor', name: 'Teamtailor', connected: false },
];

export const atsSlugs = atsIntegrations.map((a) => a.slug);

export function atsBySlug(slug: string | null | undefined): AtsIntegration | undefined {
  return atsIntegrations.find((a) => a.slug === slug);
}
