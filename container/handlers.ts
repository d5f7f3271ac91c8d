/**
 * Every route handler as a static import, so that esbuild bundles them into the container image (the local
 * runtime's computed `import()` is not something a bundler can follow). `test/http/container.test.ts`
 * checks that this list and the route table name the same modules.
 */
import type { RouteHandler } from '../local/http-adapter.js';

export const ROUTE_HANDLERS: Readonly<Record<string, () => Promise<{ handler: RouteHandler }>>> = {
  'companies/list': () => import('../functions/companies/list.js'),
  'companies/update': () => import('../functions/companies/update.js'),
  'jobs/list': () => import('../functions/jobs/list.js'),
  'jobs/get': () => import('../functions/jobs/get.js'),
  'applications/create': () => import('../functions/applications/create.js'),
  'applications/list': () => import('../functions/applications/list.js'),
  'applications/get': () => import('../functions/applications/get.js'),
  'applications/deliveries': () => import('../functions/applications/deliveries.js'),
  // The public pages and the apply endpoint: `serve` runs every route, and a magic link may point here.
  'pages/connect-show': () => import('../functions/pages/connect-show.js'),
  'pages/connect-submit': () => import('../functions/pages/connect-submit.js'),
  'pages/docs': () => import('../functions/pages/docs.js'),
  'pages/external-apply-redirect': () => import('../functions/pages/external-apply-redirect.js'),
  'pages/external-apply-unsubscribe-show': () => import('../functions/pages/external-apply-unsubscribe-show.js'),
  'pages/external-apply-unsubscribe': () => import('../functions/pages/external-apply-unsubscribe.js'),
  'apply/receive': () => import('../functions/apply/receive.js'),
  'outcomes/ats-webhook': () => import('../functions/outcomes/ats-webhook.js'),
};

export async function loadRouteHandler(module: string): Promise<RouteHandler> {
  const load = Object.hasOwn(ROUTE_HANDLERS, module) ? ROUTE_HANDLERS[module] : undefined;
  if (!load) throw new Error(`no handler module ${module} in the container bundle`);
  return (await load()).handler;
}
