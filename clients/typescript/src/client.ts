/**
 * The client: the typed openapi-fetch client over the transport (API key, Idempotency-Key, retries), and
 * helpers for what every partner writes by hand: paging with `for await`, creates that are exactly once
 * across retries, typed errors.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { apiError, errorFromResponse, HiringClientError } from './errors.js';
import { PageIterator } from './pagination.js';
import { createTransport, DEFAULT_RETRY, type Fetch, type RetryOptions } from './retry.js';
import type {
  Application,
  ApplicationIn,
  ApplicationListItem,
  ApplicationQuery,
  Company,
  CompanyPatch,
  CompanyQuery,
  Delivery,
  DeliveryQuery,
  Job,
  JobListItem,
  JobQuery,
  Page,
  paths,
} from './types.js';

export interface HiringClientOptions {
  /** The API's base URL: scheme, host and (on API Gateway) the stage path, e.g. `https://api.example.com` or `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The API key (`Authorization: Bearer …`); partner-scoped or company-scoped. */
  apiKey: string;
  /** Retry settings, or `false` for none. Default: 4 retries, backoff from 500 ms, at most 20 s per wait. */
  retry?: Partial<RetryOptions> | false;
  /** The fetch to send requests with; default `globalThis.fetch`. */
  fetch?: Fetch;
  /** Makes the `Idempotency-Key` of a create that was given none; default `crypto.randomUUID`. */
  newIdempotencyKey?: () => string;
}

export interface CreateOptions {
  /** The `Idempotency-Key`; default a new UUID per call. Pass your own (e.g. your application's id) to make a create safe across restarts of your process too. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface CompanyClient {
  /** The `Company-Id` every call of this object sends. */
  readonly id: number;
  /** `PATCH /companies/{id}/`: partial update of this company. */
  update(patch: CompanyPatch): Promise<Company>;
  readonly jobs: {
    /** `GET /jobs`, every page: `for await (const job of company.jobs.list({ status: 'active' }))`. */
    list(query?: JobQuery): PageIterator<JobListItem>;
    /** `GET /jobs/{id}`. */
    get(id: number): Promise<Job>;
  };
  readonly applications: {
    /** `GET /applications/`, every page. */
    list(query?: ApplicationQuery): PageIterator<ApplicationListItem>;
    /** `GET /applications/{id}`. */
    get(id: number): Promise<Application>;
    /** `GET /applications/{id}/deliveries` (D23), every page, newest first: `for await (const call of company.applications.deliveries(id))`. */
    deliveries(id: number, query?: DeliveryQuery): PageIterator<Delivery>;
    /** `POST /applications/` with an `Idempotency-Key`: retried on 429, 5xx, 409 and network errors, and stored exactly once. */
    create(application: ApplicationIn, options?: CreateOptions): Promise<Application>;
  };
}

export interface HiringClient {
  /** The typed openapi-fetch client (same key, retries and Idempotency-Key) for anything the helpers do not cover. */
  readonly api: Client<paths>;
  readonly companies: {
    /** `GET /companies/`, every page (no `Company-Id`): the companies the key may see. */
    list(query?: CompanyQuery): PageIterator<Company>;
  };
  /** The calls that act for one company (`Company-Id`). */
  company(companyId: number): CompanyClient;
}

export function createHiringClient(options: HiringClientOptions): HiringClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(baseUrl).origin;
  const retry: RetryOptions = options.retry === false ? { ...DEFAULT_RETRY, maxRetries: 0 } : { ...DEFAULT_RETRY, ...options.retry };
  const newIdempotencyKey = options.newIdempotencyKey ?? randomUUID;
  const transport = createTransport({
    apiKey: options.apiKey,
    retry,
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
    newIdempotencyKey,
  });
  const api = createClient<paths>({ baseUrl, fetch: transport });

  /** The data of a successful openapi-fetch result, or the typed error. */
  function unwrap<T>(method: string, result: { data?: T; error?: unknown; response: Response }): T {
    if (result.response.ok && result.data !== undefined) return result.data;
    if (result.response.ok) throw new HiringClientError(`${method} ${new URL(result.response.url).pathname}: a success without a body.`);
    throw apiError(result.response, result.error, method);
  }

  /** Follows one `next` link: only to the base URL's origin, so the key never goes to another host. */
  async function nextPage<T>(next: string, companyId: number | undefined): Promise<Page<T>> {
    const url = new URL(next);
    if (url.origin !== origin)
      throw new HiringClientError(
        `The API's next link points to ${url.origin}, not to ${origin}: not followed (set baseUrl to the API's public address).`,
      );
    const headers = new Headers({ Accept: 'application/json' });
    if (companyId !== undefined) headers.set('Company-Id', String(companyId));
    const response = await transport(new Request(url, { headers }));
    if (!response.ok) throw await errorFromResponse(response, 'GET');
    return (await response.json()) as Page<T>;
  }

  function pages<T>(companyId: number | undefined, first: () => Promise<Page<T>>): PageIterator<T> {
    return new PageIterator<T>((next) => (next === undefined ? first() : nextPage<T>(next, companyId)));
  }

  function company(companyId: number): CompanyClient {
    const header = { 'Company-Id': companyId };
    return {
      id: companyId,
      update: async (patch) =>
        unwrap('PATCH', await api.PATCH('/companies/{id}/', { params: { path: { id: companyId }, header }, body: patch })),
      jobs: {
        list: (query = {}) => pages(companyId, async () => unwrap('GET', await api.GET('/jobs', { params: { query, header } }))),
        get: async (id) => unwrap('GET', await api.GET('/jobs/{id}', { params: { path: { id }, header } })),
      },
      applications: {
        list: (query = {}) => pages(companyId, async () => unwrap('GET', await api.GET('/applications/', { params: { query, header } }))),
        get: async (id) => unwrap('GET', await api.GET('/applications/{id}', { params: { path: { id }, header } })),
        deliveries: (id, query = {}) =>
          pages(companyId, async () =>
            unwrap('GET', await api.GET('/applications/{id}/deliveries', { params: { path: { id }, query, header } })),
          ),
        create: async (application, { idempotencyKey, signal } = {}) =>
          unwrap(
            'POST',
            await api.POST('/applications/', {
              params: { header: { ...header, 'Idempotency-Key': idempotencyKey ?? newIdempotencyKey() } },
              body: application,
              signal,
            }),
          ),
      },
    };
  }

  return {
    api,
    companies: {
      list: (query = {}) => pages(undefined, async () => unwrap('GET', await api.GET('/companies/', { params: { query } }))),
    },
    company,
  };
}
