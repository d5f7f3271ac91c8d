/**
 * The Teamtailor simulator's outcome side (D21, P301): `GET /v1/job-applications/{id}` and a test-side way to move
 * or reject an application as a recruiter (or the candidate) would. As documented (https://github.com/Teamtailor/docs,
 * published at https://docs.teamtailor.com):
 * - job applications: "Required scope: Admin" (403 otherwise); attributes `created-at`, `updated-at`, `rejected-at`
 *   ("If set, the candidate has been rejected for this job"), `changed-stage-at`, `sourced`, …; relations
 *   `candidate`, `job`, `stage` ("Current stage (i.e Inbox, Reviewing, Hired)"), `reject-reason`
 *   (https://docs.teamtailor.com/#job-applications, #show-a-job-application). An application of another key's
 *   account, or an unknown id: 404 (ASSUMED).
 * - `include=stage,reject-reason` puts those resources in `included`, with `data` linkages on the relations
 *   (JSON:API "Including related resources", https://docs.teamtailor.com/#including-related-resources); another
 *   include name is 400 (ASSUMED, as JSON:API servers answer).
 * - stages: every job has "Inbox" (`stage-type` `Inbox`) and "Hired" (`Hired`), which cannot be deleted; every
 *   other stage is `In process` (https://docs.teamtailor.com/#stages). The simulator's jobs have STAGES.
 * - reject reasons: `reason` and `rejected-by-company` ("If `true`, the reason is coming from the company.
 *   Otherwise from the candidate", https://docs.teamtailor.com/#reject-reasons). The simulator has REJECT_REASONS.
 */
import type { RecordedRequest, Reply } from './server.js';
import { jsonApiError as error } from './teamtailor-rules.js';

export const STAGES = [
  { id: '501', name: 'Inbox', 'stage-type': 'Inbox' },
  { id: '502', name: 'Screening', 'stage-type': 'In process' },
  { id: '503', name: 'Interview', 'stage-type': 'In process' },
  { id: '504', name: 'Hired', 'stage-type': 'Hired' },
] as const;

export const REJECT_REASONS = [
  { id: '601', reason: 'Not a fit', 'rejected-by-company': true },
  { id: '602', reason: 'Candidate accepted another offer', 'rejected-by-company': false },
] as const;

/** Where one application stands: its stage, and the rejection when there is one. */
export interface TeamtailorProgress {
  stageId: string;
  changedStageAt: string;
  rejectedAt: string | null;
  rejectReasonId: string | null;
}

export interface TeamtailorOutcomes {
  progress: Map<string, TeamtailorProgress>;
  /** Moves an application to a stage by its name (one of STAGES), as a recruiter does; it is no longer rejected. */
  moveApplication(id: string, stage: string): void;
  /** Rejects an application; `byCandidate` picks a reason that is not the company's (the candidate withdrew). */
  reject(id: string, options?: { byCandidate?: boolean }): void;
}

interface Owned {
  id: string;
  candidateId: string;
  jobId: string;
  attributes: Record<string, unknown>;
  createdAt?: string;
}

export function teamtailorOutcomes(): TeamtailorOutcomes {
  const progress = new Map<string, TeamtailorProgress>();
  const at = (id: string) => {
    let p = progress.get(id);
    if (!p)
      progress.set(id, (p = { stageId: STAGES[0].id, changedStageAt: new Date().toISOString(), rejectedAt: null, rejectReasonId: null }));
    return p;
  };
  return {
    progress,
    moveApplication(id, stage) {
      const found = STAGES.find((s) => s.name === stage);
      if (!found) throw new Error(`no Teamtailor stage ${stage}`);
      Object.assign(at(id), { stageId: found.id, changedStageAt: new Date().toISOString(), rejectedAt: null, rejectReasonId: null });
    },
    reject(id, options = {}) {
      Object.assign(at(id), {
        rejectedAt: new Date().toISOString(),
        rejectReasonId: REJECT_REASONS.find((r) => r['rejected-by-company'] === !options.byCandidate)!.id,
      });
    },
  };
}

/** `GET /v1/job-applications/{id}[?include=stage,reject-reason]`, or undefined for another request. */
export function readJobApplication(
  outcomes: TeamtailorOutcomes,
  req: RecordedRequest,
  path: string,
  account: { apiKey: string; scope: string },
  applications: readonly Owned[],
  candidates: readonly { id: string; apiKey: string }[],
  base: string,
): Reply | undefined {
  const match = /^\/v1\/job-applications\/([^/]+)$/.exec(path);
  if (req.method !== 'GET' || !match) return undefined;
  if (account.scope !== 'admin') return error(403, 'Forbidden', { detail: 'This API key does not have access to job applications' });
  const id = decodeURIComponent(match[1]);
  const application = applications.find(
    (a) => a.id === id && candidates.some((c) => c.id === a.candidateId && c.apiKey === account.apiKey),
  );
  if (!application) return error(404, 'Record not found');
  const include = (req.query.get('include') ?? '').split(',').filter(Boolean);
  const unknown = include.find((name) => name !== 'stage' && name !== 'reject-reason' && name !== 'candidate' && name !== 'job');
  if (unknown) return error(400, 'Invalid field', { detail: `${unknown} is not a valid relationship of job-applications` });
  const p = outcomes.progress.get(id) ?? { stageId: STAGES[0].id, changedStageAt: null, rejectedAt: null, rejectReasonId: null };
  const self = `${base}/job-applications/${id}`;
  const relation = (name: string, linkage: { type: string; id: string } | null) => ({
    links: { self: `${self}/relationships/${name}`, related: `${self}/${name}` },
    ...(include.includes(name) ? { data: linkage } : {}),
  });
  const stage = STAGES.find((s) => s.id === p.stageId)!;
  const reason = REJECT_REASONS.find((r) => r.id === p.rejectReasonId);
  const included = [
    ...(include.includes('stage')
      ? [{ id: stage.id, type: 'stages', attributes: { name: stage.name, 'stage-type': stage['stage-type'] } }]
      : []),
    ...(include.includes('reject-reason') && reason
      ? [
          {
            id: reason.id,
            type: 'reject-reasons',
            attributes: { reason: reason.reason, 'rejected-by-company': reason['rejected-by-company'] },
          },
        ]
      : []),
  ];
  const { sourced, 'cover-letter': coverLetter } = application.attributes;
  return {
    status: 200,
    body: {
      data: {
        id,
        type: 'job-applications',
        links: { self },
        attributes: {
          'created-at': application.createdAt ?? null,
          'cover-letter': coverLetter ?? null,
          'updated-at': p.changedStageAt ?? application.createdAt ?? null,
          'rejected-at': p.rejectedAt,
          'referring-url': null,
          'referring-site': null,
          sourced: sourced ?? false,
          'changed-stage-at': p.changedStageAt ?? application.createdAt ?? null,
        },
        relationships: {
          candidate: relation('candidate', { type: 'candidates', id: application.candidateId }),
          job: relation('job', { type: 'jobs', id: application.jobId }),
          stage: relation('stage', { type: 'stages', id: stage.id }),
          'reject-reason': relation('reject-reason', reason ? { type: 'reject-reasons', id: reason.id } : null),
        },
      },
      ...(included.length ? { included } : {}),
    },
  };
}
