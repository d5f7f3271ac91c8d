/**
 * The Recruitee simulator's ATS API side (P351–P353), under `/recruitee-api` (standing in for
 * `https://api.recruitee.com`): the two calls the connector makes with a company's personal API token, and a
 * test-side way to move a candidate as a recruiter (or the candidate) would. Each rule names its source:
 * - G = https://docs.recruitee.com/reference/getting-started and https://support.recruitee.com/en/articles/8213076-faq-api:
 *   the ATS API "requires authentication", a personal API token from Settings > Apps and plugins > Personal API tokens,
 *   sent as `Authorization: Bearer <token>`; "the same scope of permissions as the user"; it does not expire unless
 *   revoked. Without a valid token: 401 (status assumed: the pages say the calls need the token, not the answer).
 * - L = https://docs.recruitee.com/reference/candidates-get: `GET /c/{company_id}/candidates` ("Company ID. A company
 *   subdomain can also be used"), `limit` and `offset`; each candidate's `placements`, "assignments to jobs or talent
 *   pools with stage information".
 * - O = observed answers (third-party fixtures of real answers, not a vendor page: assumed): the single read
 *   `GET /c/{company_id}/candidates/{id}` answers `{candidate: {…, placements: [{id, candidate_id, offer_id, stage_id,
 *   hired_at, disqualified_at, disqualify_reason, disqualify_kind, …}]}, references: [{type: "Stage", id, name,
 *   category}, {type: "Offer", id, title, …}]}`; stage categories `apply`, `hire`; `disqualify_kind` `admin`.
 * Assumed too: a token of another company's user, or an unknown company, is 404; an unknown candidate 404; a user
 * without the right to see candidates 403; `disqualify_kind: "candidate"` for a candidate who withdrew.
 */
import type { RecordedRequest, Reply } from './server.js';

/** The pipeline stages of every simulated offer (O: `category` `apply` for the first, `hire` for the hired stage). */
export const RECRUITEE_STAGES = [
  { id: 71, name: 'Applied', category: 'apply' },
  { id: 72, name: 'Phone screen', category: 'evaluation' },
  { id: 73, name: 'Interview', category: 'interview' },
  { id: 74, name: 'Hired', category: 'hire' },
] as const;

/** A personal API token (G): the company its user belongs to, and whether that user may see candidates. */
export interface RecruiteeApiToken {
  company: string;
  canSeeCandidates: boolean;
  revoked?: boolean;
}

/** Where one candidate's placement stands. */
export interface RecruiteePlacementState {
  stageId: number;
  hiredAt: string | null;
  disqualifiedAt: string | null;
  disqualifyReason: string | null;
  disqualifyKind: 'admin' | 'candidate' | null;
}

export interface RecruiteeAtsApi {
  tokens: Map<string, RecruiteeApiToken>;
  placements: Map<number, RecruiteePlacementState>;
  /** Moves a candidate to a stage by name (one of RECRUITEE_STAGES), as a recruiter does; it is qualified again. */
  move(candidateId: number, stage: string): void;
  /** Disqualifies a candidate: by the company (a reason from its list), or as withdrawn by the candidate. */
  disqualify(candidateId: number, options?: { byCandidate?: boolean }): void;
}

/** A candidate the Careers Site API created, as the ATS API knows it (recruitee.ts's candidates extend it). */
export interface ApiCandidate {
  id: number;
  company: string;
  offerId: number;
  name: string;
  email: string;
  phone?: string;
}

/** A new candidate's placement: in the first stage, neither hired nor disqualified. */
const applied = (): RecruiteePlacementState => ({
  stageId: RECRUITEE_STAGES[0].id,
  hiredAt: null,
  disqualifiedAt: null,
  disqualifyReason: null,
  disqualifyKind: null,
});

export function recruiteeAtsApi(): RecruiteeAtsApi {
  const placements = new Map<number, RecruiteePlacementState>();
  const at = (id: number) => placements.get(id) ?? placements.set(id, applied()).get(id)!;
  return {
    tokens: new Map(),
    placements,
    move(candidateId, stage) {
      const found = RECRUITEE_STAGES.find((s) => s.name === stage);
      if (!found) throw new Error(`no Recruitee stage ${stage}`);
      placements.set(candidateId, {
        ...applied(),
        stageId: found.id,
        hiredAt: found.category === 'hire' ? new Date().toISOString() : null,
      });
    },
    disqualify(candidateId, options = {}) {
      Object.assign(at(candidateId), {
        disqualifiedAt: new Date().toISOString(),
        disqualifyReason: options.byCandidate ? 'Withdrew' : 'Wrong skill set',
        disqualifyKind: options.byCandidate ? 'candidate' : 'admin',
      });
    },
  };
}

/** One placement as O shows it. */
function placementJson(c: ApiCandidate, p: RecruiteePlacementState) {
  return {
    id: c.id * 10 + 1,
    candidate_id: c.id,
    offer_id: c.offerId,
    stage_id: p.stageId,
    position: 1,
    created_at: '2026-01-05T09:42:54.000000Z',
    updated_at: new Date().toISOString(),
    hired_at: p.hiredAt,
    hired_by_id: p.hiredAt ? 316045 : null,
    disqualified_at: p.disqualifiedAt,
    disqualify_reason: p.disqualifyReason,
    disqualify_kind: p.disqualifyKind,
    job_starts_at: null,
  };
}

/**
 * The ATS API's answer to `req`, or undefined when the path is not the ATS API's. `candidates` are those the careers
 * sites created (every company's: the token and the path decide what is seen).
 */
export function atsApiReply(api: RecruiteeAtsApi, req: RecordedRequest, candidates: readonly ApiCandidate[]): Reply | undefined {
  const match = /^\/recruitee-api\/c\/([^/]+)\/candidates(?:\/([^/]+))?\/?$/.exec(req.path);
  if (!req.path.startsWith('/recruitee-api/')) return undefined;
  // G: every ATS API call needs the token as `Authorization: Bearer`; none, an unknown or a revoked one is 401 (assumed status).
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  const token = bearer ? api.tokens.get(bearer[1]) : undefined;
  if (!token || token.revoked) return { status: 401, body: { error: 'Unauthorized' } };
  if (!match || req.method !== 'GET') return { status: 404, body: { error: 'Not found' } };
  // L: the path's company id may be the company subdomain. Assumed: a company the token's user is not in is 404.
  const company = decodeURIComponent(match[1]);
  if (company !== token.company) return { status: 404, body: { error: 'Not found' } };
  // G: the token has its user's permissions; assumed: a user who may not see candidates is 403.
  if (!token.canSeeCandidates) return { status: 403, body: { error: 'Forbidden' } };
  const own = candidates.filter((c) => c.company === company);
  const stages = RECRUITEE_STAGES.map((s) => ({ type: 'Stage', id: s.id, name: s.name, category: s.category, position: s.id - 70 }));
  const json = (c: ApiCandidate) => ({
    id: c.id,
    name: c.name,
    emails: [c.email],
    phones: c.phone ? [c.phone] : [],
    source: 'career_site',
    created_at: '2026-01-05T09:42:54.000000Z',
    placements: [placementJson(c, api.placements.get(c.id) ?? applied())],
  });
  if (match[2] === undefined) {
    // L: `limit` and `offset`; without them, every candidate.
    const offset = Number(req.query.get('offset') ?? 0) || 0;
    const limit = req.query.has('limit') ? Number(req.query.get('limit')) || 0 : own.length;
    return { status: 200, body: { candidates: own.slice(offset, offset + limit).map(json), references: stages } };
  }
  // O: the single read; another company's candidate or an unknown id is 404 (assumed).
  const found = own.find((c) => String(c.id) === decodeURIComponent(match[2]!));
  if (!found) return { status: 404, body: { error: 'Not found' } };
  return {
    status: 200,
    body: { candidate: json(found), references: [...stages, { type: 'Offer', id: found.offerId, kind: 'job', title: 'Offer' }] },
  };
}
