/**
 * The Ashby simulator's outcome side (D21, P301): the RPC method `application.info` and a test-side way to move
 * an application as a recruiter would.
 * - `application.info` (https://developers.ashbyhq.com/reference/applicationinfo): "Fetch application details by
 *   application id or by submitted form instance id (which is return by the `applicationForm.submit` endpoint).
 *   If both applicationId and submittedFormInstanceId are provided, we will lookup by applicationId." Requires
 *   the `candidatesRead` permission (403 `missing_endpoint_permission` otherwise, as every method). Neither id:
 *   `invalid_input`; an unknown id, or one of another organization: `application_not_found` (HTTP 200,
 *   `success: false`, as Ashby's other errors; the code is ASSUMED).
 * - The application: `id`, `createdAt`, `updatedAt`, `status` (Active | Hired | Archived | Lead), `candidate {id,
 *   name}`, `job {id, title}`, `currentInterviewStage {id, title, type, orderInInterviewPlan}` and, once archived,
 *   `archiveReason {id, text, reasonType}`. The stage types and reason types are those of a third-party copy of
 *   Ashby's OpenAPI (api-evangelist/ashby-hq, json-schema/ashby-application-schema.json): ASSUMED where Ashby's own
 *   page is not readable.
 */
import { randomUUID } from 'node:crypto';
import type { Reply } from './server.js';

/** The default interview plan of the simulator's jobs: title → stage type. */
export const INTERVIEW_STAGES: readonly { title: string; type: string }[] = [
  { title: 'Application Review', type: 'Active' },
  { title: 'Phone Screen', type: 'Active' },
  { title: 'Onsite', type: 'Active' },
  { title: 'Offer', type: 'Offer' },
  { title: 'Hired', type: 'Hired' },
  { title: 'Archived', type: 'Archived' },
];

export const ARCHIVE_REASONS = {
  organization: { id: 'ar-org', text: 'Not a fit for the role', reasonType: 'RejectedByOrganization' },
  candidate: { id: 'ar-cand', text: 'Accepted another offer', reasonType: 'RejectedByCandidate' },
} as const;

export interface AshbyProgress {
  applicationId: string;
  stage: string;
  status: 'Active' | 'Hired' | 'Archived' | 'Lead';
  archiveReason?: (typeof ARCHIVE_REASONS)[keyof typeof ARCHIVE_REASONS];
  createdAt: string;
  updatedAt: string;
}

export interface AshbyOutcomes {
  /** By submitted form instance id. */
  progress: Map<string, AshbyProgress>;
  /** Moves the application (by its submitted form instance id) to a stage of INTERVIEW_STAGES, as a recruiter does. */
  moveApplication(submittedFormInstanceId: string, stage: string): void;
  /** Archives it with a reason of the organization, or of the candidate. */
  archive(submittedFormInstanceId: string, by: 'organization' | 'candidate'): void;
}

const fail = (code: string, message: string): Reply => ({
  status: 200,
  body: { success: false, errors: [code], errorInfo: { code, message } },
});

export function ashbyOutcomes(): AshbyOutcomes {
  const progress = new Map<string, AshbyProgress>();
  const at = (id: string) => {
    const found = progress.get(id);
    if (!found) throw new Error(`no Ashby application of form instance ${id}`);
    return found;
  };
  return {
    progress,
    moveApplication(id, stage) {
      const found = INTERVIEW_STAGES.find((s) => s.title === stage);
      if (!found) throw new Error(`no Ashby stage ${stage}`);
      const p = at(id);
      const status = found.type === 'Hired' ? 'Hired' : found.type === 'Archived' ? 'Archived' : 'Active';
      Object.assign(p, { stage, status, archiveReason: undefined, updatedAt: new Date().toISOString() });
    },
    archive(id, by) {
      Object.assign(at(id), {
        stage: 'Archived',
        status: 'Archived',
        archiveReason: ARCHIVE_REASONS[by],
        updatedAt: new Date().toISOString(),
      });
    },
  };
}

/** A new application (after a successful `applicationForm.submit`) starts Active in the first stage. */
export function recordApplication(outcomes: AshbyOutcomes, submittedFormInstanceId: string): void {
  const now = new Date().toISOString();
  outcomes.progress.set(submittedFormInstanceId, {
    applicationId: randomUUID(),
    stage: INTERVIEW_STAGES[0].title,
    status: 'Active',
    createdAt: now,
    updatedAt: now,
  });
}

/** `application.info`; `owned` says whether a form instance belongs to the key's organization. */
export function applicationInfo(
  outcomes: AshbyOutcomes,
  body: unknown,
  owned: (submittedFormInstanceId: string) => { postingId: string; title: string; name: string } | undefined,
): Reply {
  const { applicationId, submittedFormInstanceId } = (body ?? {}) as { applicationId?: unknown; submittedFormInstanceId?: unknown };
  if (typeof applicationId !== 'string' && typeof submittedFormInstanceId !== 'string')
    return fail('invalid_input', 'Either applicationId or submittedFormInstanceId is required');
  // "If both … are provided, we will lookup by applicationId."
  const entry =
    typeof applicationId === 'string'
      ? [...outcomes.progress.entries()].find(([, p]) => p.applicationId === applicationId)
      : [submittedFormInstanceId as string, outcomes.progress.get(submittedFormInstanceId as string)];
  const [formId, p] = (entry ?? []) as [string | undefined, AshbyProgress | undefined];
  const job = formId ? owned(formId) : undefined;
  if (!p || !job) return fail('application_not_found', 'Application not found');
  const stageIndex = INTERVIEW_STAGES.findIndex((s) => s.title === p.stage);
  return {
    status: 200,
    body: {
      success: true,
      results: {
        id: p.applicationId,
        createdAt: p.createdAt,
        updatedAt: p.updatedAt,
        status: p.status,
        customFields: [],
        candidate: { id: `cand-${formId}`, name: job.name },
        job: { id: `job-${job.postingId}`, title: job.title },
        currentInterviewStage: {
          id: `stage-${stageIndex}`,
          title: p.stage,
          type: INTERVIEW_STAGES[stageIndex].type,
          orderInInterviewPlan: stageIndex,
          interviewStageGroupId: `group-${INTERVIEW_STAGES[stageIndex].type}`,
        },
        source: null,
        ...(p.archiveReason ? { archiveReason: p.archiveReason } : {}),
      },
    },
  };
}
