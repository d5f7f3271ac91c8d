/**
 * Greenhouse Job Board API (docs/connectors/greenhouse.md; https://developers.greenhouse.io/job-board.html).
 * Jobs: the board's list with `content=true`, then each job with `questions=true&pay_transparency=true` (a few
 * in parallel) for its questions, consent requirements and pay ranges (greenhouse-jobs.ts). Applications: the
 * job is read again with `questions=true` (its questions and `data_compliance` as they are now), then a JSON
 * POST to it with HTTP Basic auth (API key as user name, empty password), built in greenhouse-application.ts
 * (every file, answers, GDPR consent: P280). Greenhouse can answer 200 with an error body: only a body that
 * confirms success counts.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import { ConnectorError, type AtsConnector, type AtsCredentials, type Submission } from '#delivery/connectors/connector.js';
import { atsBaseUrl, atsFetch, atsUrl, errorForStatus, jsonBody, mapLimited, segment } from '#delivery/connectors/http.js';
import { greenhouseApplicationBody } from '#delivery/connectors/greenhouse-application.js';
import { API_URL, greenhouseDescriptor, PACING } from '#delivery/connectors/greenhouse-descriptor.js';
import { mapGreenhouseJob, type GreenhouseJob } from '#delivery/connectors/greenhouse-jobs.js';
import { greenhouseWebhooks } from '#delivery/connectors/greenhouse-webhooks.js';

export { GREENHOUSE_FILE_EXTENSIONS, greenhouseApplicationBody } from '#delivery/connectors/greenhouse-application.js';
export { mapGreenhouseJob } from '#delivery/connectors/greenhouse-jobs.js';

const ATS = 'Greenhouse';

function boardUrl(credentials: AtsCredentials, path = '', query: Record<string, string> = {}) {
  return atsUrl(atsBaseUrl(API_URL), `/v1/boards/${segment(credentials.board_token)}/jobs${path}`, query);
}

async function readJson(response: Response, what: string): Promise<Record<string, unknown>> {
  const body = await jsonBody(response);
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ConnectorError('invalid_data', `${ATS} ${what} is not a JSON object.`);
  return body as Record<string, unknown>;
}

async function listBoard(credentials: AtsCredentials, query: Record<string, string>): Promise<GreenhouseJob[]> {
  const response = await atsFetch(ATS, boardUrl(credentials, '', query), { headers: { Accept: 'application/json' } }, PACING);
  if (response.status === 404)
    throw new ConnectorError('credentials_rejected', `${ATS} knows no job board with that token (404).`, undefined, 'board_token');
  if (!response.ok) throw errorForStatus(ATS, response);
  const body = await readJson(response, 'job list');
  if (!Array.isArray(body.jobs)) throw new ConnectorError('invalid_data', `${ATS} job list has no jobs array.`);
  for (const job of body.jobs as unknown[]) {
    const id = (job as GreenhouseJob)?.id;
    if (typeof id !== 'number' && typeof id !== 'string')
      throw new ConnectorError('invalid_data', `${ATS} job list has a job without an id.`);
  }
  // No paging is documented; `meta.total` counts the board's posts: a list shorter than it lost jobs.
  const total = (body.meta as { total?: unknown } | undefined)?.total;
  if (typeof total === 'number' && total > body.jobs.length)
    throw new ConnectorError('invalid_data', `${ATS} job list holds ${body.jobs.length} of the ${total} jobs it counts.`);
  return body.jobs as GreenhouseJob[];
}

/** One job of the board (https://developers.greenhouse.io/job-board.html#retrieve-a-job); undefined on 404. */
async function readJob(credentials: AtsCredentials, jobId: string, query: Record<string, string>): Promise<GreenhouseJob | undefined> {
  const url = boardUrl(credentials, `/${segment(jobId)}`, query);
  const response = await atsFetch(ATS, url, { headers: { Accept: 'application/json' } }, PACING);
  if (response.status === 404) return undefined;
  if (!response.ok) throw errorForStatus(ATS, response);
  return (await readJson(response, 'job')) as GreenhouseJob;
}

/**
 * A 200 with an error body (reported, not documented). Its text can echo what we sent (a name, an address), so
 * only a field it names, when it looks like one of Greenhouse's field names, goes into the message.
 */
function refusal(reason: string): ConnectorError {
  if (/not live/i.test(reason)) return new ConnectorError('job_not_published', `${ATS}: the job application is not live.`);
  const field = /\b(first_name|last_name|email|phone|(?:resume|cover_letter|question_\d{1,15})(?:_content|_url)?|data_compliance)\b/.exec(
    reason,
  )?.[1];
  const named = field ? ` (${field})` : '';
  if (/attachment|file type|empty file|\b(resume|cover_letter)/i.test(reason) || /_content|_url/.test(field ?? ''))
    return new ConnectorError('attachment_rejected', `${ATS} refused a file${named}.`);
  return new ConnectorError('invalid_data', `${ATS} answered 200 with an error${named}.`);
}

/** An application POST to a job of the board (JSON, HTTP Basic auth with the key as user name). */
function postApplication(credentials: AtsCredentials, jobId: string, body: unknown): Promise<Response> {
  const init = {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${credentials.api_key}:`).toString('base64')}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body: JSON.stringify(body),
  };
  return atsFetch(ATS, boardUrl(credentials, `/${segment(jobId)}`), init, PACING);
}

/**
 * The status with which Greenhouse refuses the key, else undefined (P211, a heuristic): an empty application to
 * job 0, which no board has. Greenhouse checks HTTP Basic auth before it looks up the job, so 401 means a wrong
 * key; 404 or a validation answer means the key was accepted. An empty body names no candidate: nothing is created.
 */
async function keyRefused(credentials: AtsCredentials): Promise<number | undefined> {
  const response = await postApplication(credentials, '0', {});
  await response.arrayBuffer().catch(() => undefined);
  if (response.status === 401 || response.status === 403) return response.status;
  if (response.status === 429 || response.status >= 500) throw errorForStatus(ATS, response);
  return undefined;
}

export const greenhouseConnector: AtsConnector = {
  ...greenhouseDescriptor,
  outcomeWebhooks: greenhouseWebhooks,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const listed = await listBoard(credentials, { content: 'true' });
    const detailed = await mapLimited(listed, PACING.importConcurrency, async (job) => {
      const read = await readJob(credentials, String(job.id), { questions: 'true', pay_transparency: 'true' });
      // Closed between the list and this read: it is not published any more.
      return read ? ({ ...job, ...read } as GreenhouseJob) : undefined;
    });
    return detailed.filter((job): job is GreenhouseJob => job !== undefined).map(mapGreenhouseJob);
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    // The job as it is now: its questions type the answers, its file questions take further files, its
    // `data_compliance` asks for consent (P280). A job the board no longer shows is not published.
    const job = await readJob(credentials, submission.jobExternalId, { questions: 'true' });
    if (!job) throw new ConnectorError('job_not_published', `${ATS} does not know the job (404).`);
    const response = await postApplication(credentials, submission.jobExternalId, await greenhouseApplicationBody(submission, job));
    // A 401 has also been reported for a job post that is not live (../shared/ats-apis-more.md): the key is
    // probed, and only a key Greenhouse refuses there too is a rejected credential (P263).
    if (response.status === 401 || response.status === 403) {
      await response.arrayBuffer().catch(() => undefined);
      if (!(await keyRefused(credentials)))
        throw new ConnectorError('job_not_published', `${ATS} answered ${response.status} to a good key: the job is not live.`);
    }
    if (response.status === 404) throw new ConnectorError('job_not_published', `${ATS} does not know the job (404).`);
    if (!response.ok) throw errorForStatus(ATS, response);
    const answer = (await jsonBody(response)) as Record<string, unknown> | undefined;
    if (typeof answer?.success === 'string') return { externalId: null };
    const reason = [answer?.error, answer?.reason].filter((v) => typeof v === 'string').join(': ');
    if (reason) throw refusal(reason);
    // Neither success nor a known error: unconfirmed, so it is retried (Greenhouse has no duplicate error).
    throw new ConnectorError('transient', `${ATS} answered 200 without confirming the application.`);
  },

  async validateCredentials(credentials: AtsCredentials) {
    // The board's job list (without content) proves the board token.
    await listBoard(credentials, {});
    const refused = await keyRefused(credentials);
    if (refused)
      throw new ConnectorError('credentials_rejected', `${ATS} rejected the Job Board API key (${refused}).`, undefined, 'api_key');
  },
};
