/** Per-company entitlements (D15). Stored as a list on the company; the `*_active` flags derive from them. */
export const ENTITLEMENTS = ['job_sync', 'candidate_sync', 'email_fallback'] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

export function isEntitlement(value: string): value is Entitlement {
  return (ENTITLEMENTS as readonly string[]).includes(value);
}
