/**
 * The architecture rules (design §3): layers never import upward, domain folders only import the siblings
 * below them, functions never import the local runtime, the container ingest takes only the HTTP adapter from
 * local/ and nothing but tests imports it, nothing imports tests, no import is circular, and only the outbox
 * relay imports the SNS client (P115). Generated modules (shared/generated/) are named for the layer that owns
 * them (`jobs-validators.ts`): no layer below that one imports them, and they import only shared/platform.
 * The TypeScript client (clients/typescript) is shipped alone and imports nothing of the service.
 * Type-only imports count too. test/unit/architecture.test.ts runs these rules in `npm test`.
 */
const LAYERS = ['platform', 'companies', 'jobs', 'applications', 'delivery', 'http'];

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
