/** Names for the generated schema types (./generated/openapi.ts), so that callers need not spell `components['schemas'][…]`. */
import type { components, operations, paths } from './generated/openapi.js';

export type { components, operations, paths };

type Schemas = components['schemas'];

export type Company = Schemas['Company'];
export type CompanyPatch = Schemas['CompanyPatch'];
export type Job = Schemas['Job'];
export type JobListItem = Schemas['JobListItem'];
export type Application = Schemas['Application'];
export type ApplicationListItem = Schemas['ApplicationListItem'];
export type ApplicationIn = Schemas['ApplicationIn'];
/** One ATS call made for an application (its delivery log, D23). */
export type Delivery = Schemas['Delivery'];
export type CandidateIn = Schemas['CandidateIn'];
export type AttachmentIn = Schemas['AttachmentIn'];
export type AttachmentType = NonNullable<AttachmentIn['type']>;
/** The error body of every failed request (D2): `{detail, code, errors?}`. */
export type ApiErrorBody = Schemas['Error'];

/** The query of each list operation, without the headers (the client sends those). */
export type CompanyQuery = NonNullable<operations['ListCompanies']['parameters']['query']>;
export type JobQuery = NonNullable<operations['ListJobs']['parameters']['query']>;
export type ApplicationQuery = NonNullable<operations['ListApplications']['parameters']['query']>;
export type DeliveryQuery = NonNullable<operations['ListApplicationDeliveries']['parameters']['query']>;

/** The envelope of every list response. */
export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}
