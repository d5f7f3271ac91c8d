/**
 * The architecture rules (design §3): layers never import upward, domain folders only import the siblings
 * below them, functions never import the local runtime, the container ingest takes only the HTTP adapter from
 * local/ and nothing but tests imports it, nothing imports tests, no import is circular, and only the outbox
 * relay imports the SNS client (P115). Generated modules (shared/generated/) are named for the layer that owns
 * them (`jobs-validators.ts`): no layer below that one imports them, and they import only shared/platform.
 * The TypeScript client (clients/typescript) is shipped alone and imports nothing of the service.
 * A connector loads only itself (P283): connector modules (shared/delivery/connectors/<ats>.ts and their
 * <ats>-*.ts helpers) are imported by nothing but the registry, by dynamic import, and import no other
 * connector; the descriptors the registry lists import only connector.ts.
 * A filter is one declaration in a `*-filters.ts` module (P292): only those modules (and a `*-filter-layout.ts`
 * beside one) build filter sets from `shared/platform/filters.ts` (other shared modules import its types; the OpenAPI parameters read its value
 * rules), and the list modules parse no query by hand (from `query-params.ts` they import types only).
 * Type-only imports count too, but where a rule says otherwise. test/unit/architecture.test.ts runs these rules in `npm test`.
 */
const LAYERS = ['platform', 'companies', 'jobs', 'applications', 'delivery', 'http'];

/** A connector's own code: every module of shared/delivery/connectors/ but the shared ones and the descriptors. */
const CONNECTORS = '^shared/delivery/connectors/';
const NOT_A_CONNECTOR = '^shared/delivery/connectors/(connector|http|mapping|registry|[a-z]+-descriptor)\\.ts$';

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer}`,
  comment: `shared/${layer} may import only ${LAYERS.slice(0, i + 1).join(', ')} and their generated modules (design §3)`,
  severity: 'error',
  from: { path: `^shared/${layer}/` },
  to: {
    path: `^(shared/(${LAYERS.slice(i + 1).join('|')})/|shared/generated/(${LAYERS.slice(i + 1).join('|')})-|functions/|local/|container/|lib/|bin/|scripts/|bench/)`,
  },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'generated-imports-only-platform',
      comment: 'generated code (shared/generated/) rests on shared/platform alone, so any layer that owns it may import it',
      severity: 'error',
      from: { path: '^shared/generated/' },
      to: { path: `^(shared/(${LAYERS.slice(1).join('|')}|generated)/|functions/|local/|container/|lib/|bin/|scripts/|bench/)` },
    },
    {
      name: 'http-below-the-entry-points',
      comment: 'shared/http is the top of shared/; functions, local and lib sit above it',
      severity: 'error',
      from: { path: '^shared/http/' },
      to: { path: '^(functions|local|container|lib|bin|scripts|bench)/' },
    },
    {
      name: 'no-function-imports-local',
      comment: 'a Lambda function must not depend on the local runtime',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(local|container)/' },
    },
    {
      name: 'container-takes-only-the-adapter',
      comment: 'the container ingest runs against AWS: from local/ it may use the HTTP adapter, never the emulators',
      severity: 'error',
      from: { path: '^container/' },
      to: { path: '^local/', pathNot: '^local/http-adapter\\.ts$' },
    },
    {
      name: 'nothing-imports-the-container',
      comment: 'the container is an entry point (the stack builds it from the Dockerfile); only tests import it',
      severity: 'error',
      from: { pathNot: '^(container|test)/' },
      to: { path: '^container/' },
    },
    {
      name: 'no-imports-of-tests',
      comment: 'only tests import tests',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      comment: 'circular imports hide the order of the layers',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'only-the-relay-publishes-events',
      comment:
        'events reach the topic only through the outbox relay (P115): everything else writes outbox items in its transactions; clients.ts only builds the client',
      severity: 'error',
      from: { pathNot: '^shared/(delivery/event-relay|platform/clients)\\.ts$' },
      to: { path: '(^|/)@aws-sdk/client-sns(/|$)' },
    },
    {
      name: 'client-stands-alone',
      comment:
        'the TypeScript client (clients/typescript) is published on its own: it imports only its own files and its declared packages, never the service',
      severity: 'error',
      from: { path: '^clients/' },
      to: { path: '^(shared|functions|local|container|lib|bin|scripts|bench|test)/' },
    },
    {
      name: 'only-the-registry-loads-connectors',
      comment:
        'a connector loads only itself (P283): outside the connectors folder, its modules are loaded through the registry (loadConnector); tests, benchmarks and the local runtime may reach the sandbox directly',
      severity: 'error',
      from: { pathNot: `^(test|bench|local)/|${CONNECTORS}` },
      to: { path: CONNECTORS, pathNot: NOT_A_CONNECTOR },
    },
    {
      name: 'the-registry-loads-connectors-lazily',
      comment: 'the registry imports a connector module only by dynamic import, so that the bundler makes it a chunk of its own (P283)',
      severity: 'error',
      from: { path: '^shared/delivery/connectors/registry\\.ts$' },
      to: { path: CONNECTORS, pathNot: NOT_A_CONNECTOR, dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'a-connector-imports-no-other',
      comment: "a connector's modules import their own helpers and the shared connector modules, never another connector (P283)",
      severity: 'error',
      from: { path: '^shared/delivery/connectors/([a-z]+)[-.]', pathNot: '^shared/delivery/connectors/registry\\.ts$' },
      to: { path: CONNECTORS, pathNot: '^shared/delivery/connectors/($1[-.]|connector\\.ts$|http\\.ts$|mapping\\.ts$)' },
    },
    {
      name: 'descriptors-import-only-the-interface',
      comment: "a connector's descriptor is in every function that lists ATSs: it imports connector.ts (types) and nothing else (P283)",
      severity: 'error',
      from: { path: '^shared/delivery/connectors/[a-z]+-descriptor\\.ts$' },
      to: { pathNot: '^shared/delivery/connectors/connector\\.ts$' },
    },
    {
      name: 'filters-are-declared-in-filters-modules',
      comment:
        'a filter is one declaration in a *-filters.ts module (P292): only those modules (and the OpenAPI parameters, which read the value rules) import more than types from shared/platform/filters.ts',
      severity: 'error',
      from: {
        path: '^shared/',
        pathNot: '^shared/([a-z]+/[a-z-]+-(filters|filter-layout)|platform/filters|http/openapi-parameters)\\.ts$',
      },
      to: { path: '^shared/platform/filters\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'list-modules-parse-no-query',
      comment:
        'the list modules read their filters through the declarations and the generated schemas (P292): from query-params.ts they import types only, no hand parser',
      severity: 'error',
      from: { path: '^shared/[a-z]+/[a-z-]+-list\\.ts$' },
      to: { path: '^shared/platform/query-params\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'every import resolves (a layer import that does not resolve would escape the rules)',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules stay in the graph as leaves (not followed), so that a rule can name a package.
    // clients/typescript/dist is build output (`npm pack`), rewritten while tests run.
    exclude: { path: '^(cdk\\.out|\\.data|coverage|clients/typescript/dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
