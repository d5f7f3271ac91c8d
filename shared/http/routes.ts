/**
 * The route table: the only list of routes. The CDK stack builds API Gateway resources and one function
 * per route from it; the local HTTP adapter dispatches from it; the OpenAPI document is generated from it.
 * Each path is served with and without its trailing slash.
 */
import type { FunctionAccess } from '#platform/function-access.js';

export interface RouteDefinition {
  /** Stable name, also the function's logical name. */
  id: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Path with `{param}` placeholders, written as the spec writes it. */
  path: string;
  /** Handler module under `functions/`, without extension. */
  handler: string;
  /** D3: whether the route needs the `Company-Id` header. */
  companyHeader: boolean;
  /** What the function may do (least privilege); the stack grants exactly this. */
  access: FunctionAccess;
  summary: string;
  /**
   * A public route: a HTML page (D20) or the apply endpoint (issue 23); no authorizer, no `Company-Id`; the
   * route itself decides what the request may do (the connect page's token, the apply token and signature).
   * Public routes are not part of the partner interface or its OpenAPI document.
   */
  public?: boolean;
}

export const routes: readonly RouteDefinition[] = [
  {
    id: 'ListCompanies',
    method: 'GET',
    path: '/companies/',
    handler: 'companies/list',
    companyHeader: false,
    // D20: `magic_link` shows the active link, which is kept sealed.
    access: { table: 'list', credentials: 'decrypt', cursorSecret: true },
    summary: 'List companies',
  },
  {
    id: 'UpdateCompany',
    method: 'PATCH',
    path: '/companies/{id}/',
    handler: 'companies/update',
    companyHeader: true,
    access: { table: 'write', credentials: 'decrypt' },
    summary: 'Partial update of a company',
  },
  {
    id: 'ListJobs',
    method: 'GET',
    path: '/jobs',
    handler: 'jobs/list',
    companyHeader: true,
    access: { table: 'list', cursorSecret: true },
    summary: 'List jobs',
  },
  {
    id: 'GetJob',
    method: 'GET',
    path: '/jobs/{id}',
    handler: 'jobs/get',
    companyHeader: true,
    // The apply tokens of `apply_webhooks` are keyed from the cursor secret (P197).
    access: { table: 'read', cursorSecret: true },
    summary: 'Read one job',
  },
  {
    id: 'CreateApplication',
    method: 'POST',
    path: '/applications/',
    handler: 'applications/create',
    companyHeader: true,
    access: { table: 'write', attachments: 'write', syncQueue: 'send' },
    summary: 'Create an application',
  },
  {
    id: 'ListApplications',
    method: 'GET',
    path: '/applications/',
    handler: 'applications/list',
    companyHeader: true,
    access: { table: 'list', cursorSecret: true },
    summary: 'List applications',
  },
  {
    id: 'GetApplication',
    method: 'GET',
    path: '/applications/{id}',
    handler: 'applications/get',
    companyHeader: true,
    access: { table: 'read' },
    summary: 'Read one application',
  },
  {
    // Issue 44 (D23), beyond the spec: the ATS calls made for one application (the delivery log), newest first.
    id: 'ListApplicationDeliveries',
    method: 'GET',
    path: '/applications/{id}/deliveries',
    handler: 'applications/deliveries',
    companyHeader: true,
    access: { table: 'read', cursorSecret: true },
    summary: 'List the ATS calls made for one application (its delivery log), newest first',
  },
];

/** The public pages (D20): the connect page of the magic link and the API reference. */
export const pageRoutes: readonly RouteDefinition[] = [
  {
    id: 'ConnectPage',
    method: 'GET',
    path: '/connect/{token}',
    handler: 'pages/connect-show',
    companyHeader: false,
    access: { table: 'write', cursorSecret: true },
    summary: 'The connect page of a magic link',
    public: true,
  },
  {
    id: 'ConnectSubmit',
    method: 'POST',
    path: '/connect/{token}',
    handler: 'pages/connect-submit',
    companyHeader: false,
    access: { table: 'write', credentials: 'encrypt', ats: true, cursorSecret: true },
    summary: "The connect page's form: checks and stores the ATS credentials",
    public: true,
  },
  {
    id: 'ApiDocs',
    method: 'GET',
    path: '/docs',
    handler: 'pages/docs',
    companyHeader: false,
    access: {},
    summary: 'The API reference, rendered from the OpenAPI document',
    public: true,
  },
  {
    // Issue 23 item 3 (P207): the tracked link of the external apply follow-up e-mail; its token is the authority.
    id: 'ExternalApplyRedirect',
    method: 'GET',
    path: '/r/{token}',
    handler: 'pages/external-apply-redirect',
    companyHeader: false,
    access: { table: 'write', cursorSecret: true },
    summary: "The follow-up e-mail's tracked link: records the click and redirects to the job's application_url",
    public: true,
  },
  {
    // A GET changes nothing (mail link scanners follow every link); the page's form button posts (P207).
    id: 'ExternalApplyUnsubscribePage',
    method: 'GET',
    path: '/r/{token}/unsubscribe',
    handler: 'pages/external-apply-unsubscribe-show',
    companyHeader: false,
    access: { table: 'read', cursorSecret: true },
    summary: 'The unsubscribe page of the follow-up e-mail: a button, no change',
    public: true,
  },
  {
    id: 'ExternalApplyUnsubscribe',
    method: 'POST',
    path: '/r/{token}/unsubscribe',
    handler: 'pages/external-apply-unsubscribe',
    companyHeader: false,
    access: { table: 'write', cursorSecret: true },
    summary: "The unsubscribe page's button: stops the follow-up's reminder",
    public: true,
  },
];

/**
 * Where job boards post applications (issue 23, P202): public like the pages (no authorizer, no `Company-Id`),
 * JSON, not part of the partner interface; the apply token of the URL and the channel's signature are the authority.
 * The ATS webhooks (P310) are inbound the same way: the URL's token and the vendor's signature.
 */
export const inboundRoutes: readonly RouteDefinition[] = [
  {
    id: 'ApplyWebhook',
    method: 'POST',
    path: '/apply/{channel}/{token}',
    handler: 'apply/receive',
    companyHeader: false,
    // The token's MAC key derives from the cursor secret (P197); the channel's signing secret is sealed (D18).
    access: { table: 'write', attachments: 'write', syncQueue: 'send', credentials: 'decrypt', cursorSecret: true },
    summary: "A job board's application, posted to a job's apply_webhooks URL",
    public: true,
  },
  {
    // Issue 43 (P310): Greenhouse's and Lever's signed webhooks; the URL's random token names the company.
    id: 'AtsWebhook',
    method: 'POST',
    path: '/ats-webhooks/{token}',
    handler: 'outcomes/ats-webhook',
    companyHeader: false,
    // Lever's signature tokens are a sealed credential, our Greenhouse secret is sealed (D18); the references' keyed hashes.
    access: { table: 'write', credentials: 'decrypt', cursorSecret: true },
    summary: "An ATS's signed webhook about an application it received from us (its outcome)",
    public: true,
  },
];

const PAGE_ROUTES: ReadonlySet<RouteDefinition> = new Set(pageRoutes);

/** Every route the API serves: the partner interface, the public pages and the apply endpoint. */
export const allRoutes: readonly RouteDefinition[] = [...routes, ...pageRoutes, ...inboundRoutes];

export function routeById(id: string): RouteDefinition {
  const route = allRoutes.find((r) => r.id === id);
  if (!route) throw new Error(`no route ${id} in the route table`);
  return route;
}

/** The path without a trailing slash, the form both variants are matched against. */
export function canonicalPath(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** The two spellings of a route's path: with and without the trailing slash. */
export function pathVariants(path: string): string[] {
  const bare = canonicalPath(path);
  return [bare, `${bare}/`];
}

export interface RouteMatch {
  route: RouteDefinition;
  pathParameters: Record<string, string>;
}

/** Matches a request path; `methods` lists what the path allows when the method does not match. */
export function matchRoute(method: string, path: string): { match?: RouteMatch; methods: string[] } {
  const requested = canonicalPath(path).split('/');
  const methods: string[] = [];
  for (const route of allRoutes) {
    const pattern = canonicalPath(route.path).split('/');
    if (pattern.length !== requested.length) continue;
    const params: Record<string, string> = {};
    const ok = pattern.every((part, i) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name) {
        if (!requested[i]) return false;
        // A page's segment that is not valid percent-encoding is still its token: the page answers it (its
        // "not valid" page) instead of the API's JSON 404 (issue 25, P220). API routes do not match it.
        const value = safeDecode(requested[i]) ?? (PAGE_ROUTES.has(route) ? requested[i] : undefined);
        if (value === undefined) return false;
        params[name] = value;
        return true;
      }
      return part === requested[i];
    });
    if (!ok) continue;
    if (route.method === method) return { match: { route, pathParameters: params }, methods: [route.method] };
    methods.push(route.method);
  }
  return { methods };
}

function safeDecode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/**
 * Issue 15: the paths of the large-body ingest. With `largeBodies` on, CloudFront sends `LARGE_BODY_PATH_PATTERN`
 * to the container (which in its `ingest` mode serves only these paths) and everything else to API Gateway.
 */
export const LARGE_BODY_PATH_PATTERN = '/applications*';

export function isLargeBodyPath(path: string): boolean {
  return /^\/applications(\/|$)/.test(path);
}

/** The routes the ingest serves: every method of the applications paths. */
export function largeBodyRoutes(): RouteDefinition[] {
  return routes.filter((route) => isLargeBodyPath(route.path));
}
