/**
 * The Recruitee careers site "edge" the connector tests share (recruitee.test.ts, recruitee-applications.test.ts):
 * the simulator with offer 501 ("Platform Engineer", slug `platform-engineer`, one question of each kind), a bare
 * loopback server for odd answers, and a submission factory whose job carries the stored slug (P276).
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import { submissionFactory } from './submissions.js';
import { startSimulatorServer, type Reply, type SimulatorServer } from '../simulators/server.js';
import { startRecruiteeSimulator, type RecruiteeSimulator, type RecruiteeSite } from '../simulators/recruitee.js';

export const PDF = Buffer.from('%PDF-1.5\nrecruitee edge\n%%EOF');
export const company = { id: 1, ats: 'recruitee' } as CompanyRecord;
export const credentials = { company: 'edge' };

const base = submissionFactory({
  company,
  pdf: PDF,
  jobExternalId: '501',
  candidate: { email: 'ada.edge@example.com', first_name: 'Ada', last_name: 'Lovelace', phone: '+31 20 555' },
  files: [{ name: 'cv.pdf' }],
  recordOpened: true,
});
/** An application to offer 501, whose slug the import stored as the job's ats_apply_key (P276). */
export const submission: typeof base = (overrides = {}, files) => base({ jobApplyKey: 'platform-engineer', ...overrides }, files);

/** The answers offer 501's required questions need. */
export const answers = (extra: Record<string, string>[] = []) => [
  { id: '12', question: 'Do you need a visa?', answer_type: 'boolean', answer: 'No' },
  { id: '15', question: 'I agree to the privacy policy', answer_type: 'consent', answer: 'yes' },
  ...extra,
];

export interface Edge {
  sim: RecruiteeSimulator;
  odd: SimulatorServer;
  site: RecruiteeSite;
  /** What the odd server answers next. */
  oddReply: Reply & { delayMs?: number };
  /** Points the connector at the odd server. */
  useOdd(): void;
  /** The POSTs the simulator received since request number `from`. */
  posts(from: number): RecruiteeSimulator['server']['requests'];
}

/** Registers the hooks (start, stop, a fresh site before each test) and returns the shared state. */
export function recruiteeEdge(): Edge {
  const edge = {
    oddReply: { status: 200, body: { offers: [] } },
    useOdd: () => {
      process.env.RECRUITEE_API_URL = `${edge.odd.url}/odd/{company}`;
    },
    posts: (from: number) => edge.sim.server.requests.slice(from).filter((r) => r.method === 'POST'),
  } as unknown as Edge;
  beforeAll(async () => {
    edge.sim = await startRecruiteeSimulator();
    edge.odd = await startSimulatorServer(async () => {
      if (edge.oddReply.delayMs) await new Promise((r) => setTimeout(r, edge.oddReply.delayMs));
      return edge.oddReply;
    });
  });
  afterAll(() => Promise.all([edge.sim.server.stop(), edge.odd.stop()]));
  beforeEach(() => {
    const sim = edge.sim;
    process.env.RECRUITEE_API_URL = sim.env.RECRUITEE_API_URL;
    sim.rateLimitNext = 0;
    sim.maxBytes = 10 * 1024 * 1024;
    sim.nextApplyReply = undefined;
    edge.site = {
      company: 'edge',
      offers: [
        {
          id: 501,
          title: 'Platform Engineer',
          optionsPhone: 'required',
          questions: [
            { id: 11, kind: 'string', body: 'Notice period?' },
            { id: 12, kind: 'boolean', body: 'Do you need a visa?', required: true },
            { id: 13, kind: 'multi_choice', body: 'Languages', options: ['Go', 'TypeScript', 'Rust'] },
            { id: 14, kind: 'single_choice', body: 'Contract', options: ['B2B', 'Employment'] },
            { id: 15, kind: 'legal', body: 'I agree to the privacy policy', required: true },
            { id: 16, kind: 'file', body: 'Portfolio' },
          ],
        },
      ],
    };
    sim.sites.set('edge', edge.site);
  });
  return edge;
}
