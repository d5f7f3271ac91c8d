/**
 * The ATS integrations a company can be linked to (its `ats` slug). `sandbox` needs no credentials and is
 * always connected; `personio`, `greenhouse` and `lever` have connectors and count as connected once
 * credentials for that same ATS have been checked and stored (`hiring-admin company connect`, D15/D18);
 * the others have no connector yet and are never connected.
 */
export interface AtsIntegration {
  slug: string;
  name: string;
  /** A connector exists for it (shared/delivery/connectors). */
  connector: boolean;
  /** A company needs stored credentials before its syncs are active. */
  credentials: boolean;
}

export const atsIntegrations: readonly AtsIntegration[] = [
  { slug: 'sandbox', name: 'Sandbox ATS', connector: true, credentials: false },
  { slug: 'greenhouse', name: 'Greenhouse', connector: true, credentials: true },
  { slug: 'lever', name: 'Lever', connector: true, credentials: true },
  { slug: 'personio', name: 'Personio', connector: true, credentials: true },
  { slug: 'smartrecruiters', name: 'SmartRecruiters', connector: false, credentials: true },
  { slug: 'workday', name: 'Workday', connector: false, credentials: true },
  { slug: 'recruitee', name: 'Recruitee', connector: false, credentials: true },
  { slug: 'teamtailor', name: 'Teamtailor', connector: false, credentials: true },
];

export const atsSlugs = atsIntegrations.map((a) => a.slug);

export function atsBySlug(slug: string | null | undefined): AtsIntegration | undefined {
  return atsIntegrations.find((a) => a.slug === slug);
}
