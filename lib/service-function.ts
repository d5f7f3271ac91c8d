/**
 * The project's Lambda function: every function of the service is one of these, so runtime, architecture,
 * bundling, logging and tracing are decided once.
 */
import { basename, join } from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { NodejsFunction, OutputFormat, SourceMapMode, type BundlingOptions, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import type { Construct } from 'constructs';
import { functionEntry, projectRoot } from './project-paths.js';
import type { StageConfig } from './stage-config.js';

export const SERVICE_NAME = 'hiring-integration-service';

/** The metrics namespace of a stage (CloudWatch, EMF): every function gets it as `POWERTOOLS_METRICS_NAMESPACE`. */
export const metricsNamespace = (stage: Pick<StageConfig, 'name'>) => `HiringIntegrationService/${stage.name}`;

// Bundled ESM has no `require`; CommonJS dependencies that esbuild inlines (parts of the AWS SDK) still call
// it for Node built-ins, so the bundle gets one made from its own URL.
const ESM_REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** What the bundles get instead of `@aws-sdk/credential-provider-node` (relative to the project root, esbuild's working directory). */
const LAMBDA_CREDENTIALS = './shared/platform/lambda-credentials.ts';

/** What the bundles get instead of `semver`, which only the X-Ray SDK's unused SDK v2 patcher calls (29 kB). */
const SEMVER_STUB = './shared/platform/semver-stub.ts';

/**
 * How every function is bundled. `esbuildOptions()` turns these into the options CDK passes to esbuild, so
 * the bundle test (`test/cdk/bundles.test.ts`) and `npm run bench:cold` measure exactly what `cdk synth`
 * builds.
 */
export const FUNCTION_BUNDLING = {
  format: OutputFormat.ESM,
  target: 'node24',
  // Prefer packages' ESM builds: smaller bundles, and middy 7 ships nothing else.
  mainFields: ['module', 'main'],
  // The SDK is bundled rather than taken from the runtime, so the version we test is the one that runs.
  externalModules: [],
  minify: true,
  // The map ships beside the bundle but is not loaded at start (no `--enable-source-maps`, which costs every
  // cold start); an unexpected error's stack is mapped to the sources when it is logged (stack-trace.ts).
  sourceMap: true,
  sourceMapMode: SourceMapMode.DEFAULT,
  sourcesContent: false,
  banner: ESM_REQUIRE_SHIM,
  esbuildArgs: {
    // The SDK's default credential chain would bundle the SSO, STS and sign-in clients (~135 kB); on Lambda
    // the credentials are in the environment, so only that link is bundled (P137).
    // Powertools Tracer's X-Ray SDK requires `semver` only to patch AWS SDK v2, which is never done here.
    '--alias': [`@aws-sdk/credential-provider-node=${LAMBDA_CREDENTIALS}`, `semver=${SEMVER_STUB}`],
  },
  // Local esbuild only: `cdk synth` must work offline and without Docker.
  forceDockerBundling: false,
} as const satisfies BundlingOptions;

/**
 * Data files a function reads at run time, by handler module: copied (project-relative path → same base
 * name) beside its `index.mjs` after bundling, where the code finds them next to itself, as it does next to
 * its source module. The API reference page is 2.6 MB of HTML, which as a string in the bundle would make
 * ApiDocs the largest function by four times (P167).
 */
export const BUNDLE_FILES: Readonly<Record<string, readonly string[]>> = {
  'pages/docs': ['docs/generated/api-reference.html'],
};

/** The commands CDK runs after esbuild (locally: with bash, in the project root; no Docker): copy the data files. */
export function bundleFileCommands(handlerModule: string, inputDir: string, outputDir: string): string[] {
  return (BUNDLE_FILES[handlerModule] ?? []).map(
    (file) => `cp ${JSON.stringify(join(inputDir, file))} ${JSON.stringify(join(outputDir, basename(file)))}`,
  );
}

/** The bundling options `esbuildOptions()` knows how to translate; anything else must be added there first. */
const TRANSLATED = new Set([
  'format',
  'target',
  'mainFields',
  'externalModules',
  'minify',
  'sourceMap',
  'sourceMapMode',
  'sourcesContent',
  'banner',
  'esbuildArgs',
  'forceDockerBundling',
]);

/**
 * The esbuild build options CDK's NodejsFunction derives from `FUNCTION_BUNDLING` for an entry file
 * (aws-lambda-nodejs `Bundling.buildEsbuildArgs`: `--bundle --platform=node --target --format --minify
 * --sourcemap --sources-content --external --banner:js --main-fields`, then `esbuildArgs`, run in the project root;
 * only `--alias` is used among those).
 * `sourcemap: false` builds the bundle alone, for measuring its size.
 */
export function esbuildOptions(entry: string, options: { outdir: string; sourcemap?: boolean }): BuildOptions {
  const untranslated = Object.keys(FUNCTION_BUNDLING).filter((key) => !TRANSLATED.has(key));
  if (untranslated.length) throw new Error(`esbuildOptions() does not translate the bundling options ${untranslated.join(', ')}`);
  const b: BundlingOptions = FUNCTION_BUNDLING;
  return {
    entryPoints: [entry],
    absWorkingDir: projectRoot,
    bundle: true,
    platform: 'node',
    target: b.target,
    format: b.format === OutputFormat.ESM ? 'esm' : 'cjs',
    outfile: join(options.outdir, b.format === OutputFormat.ESM ? 'index.mjs' : 'index.js'),
    minify: b.minify,
    sourcemap: (options.sourcemap ?? b.sourceMap) ? (b.sourceMapMode === SourceMapMode.DEFAULT ? true : b.sourceMapMode) : false,
    sourcesContent: b.sourcesContent,
    external: [...(b.externalModules ?? [])],
    banner: b.banner ? { js: b.banner } : undefined,
    mainFields: b.mainFields ? [...b.mainFields] : undefined,
    alias: aliases(b.esbuildArgs),
    logLevel: 'warning',
  };
}

function aliases(args: BundlingOptions['esbuildArgs']): Record<string, string> {
  const other = Object.keys(args ?? {}).filter((key) => key !== '--alias');
  if (other.length) throw new Error(`esbuildOptions() does not translate the esbuild arguments ${other.join(', ')}`);
  const list = args?.['--alias'];
  return Object.fromEntries((Array.isArray(list) ? list : []).map((item) => item.split('=') as [string, string]));
}

export interface ServiceFunctionProps extends Omit<
  NodejsFunctionProps,
  'entry' | 'runtime' | 'architecture' | 'bundling' | 'logGroup' | 'handler' | 'role'
> {
  /** Module under `functions/`, without extension; it exports `handler`. */
  handlerModule: string;
  stage: StageConfig;
}

export class ServiceFunction extends NodejsFunction {
  readonly handlerModule: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { handlerModule, stage, environment, ...rest } = props;
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: stage.logRetention, removalPolicy: stage.removalPolicy });
    // Our own role instead of AWSLambdaBasicExecutionRole: the function may write to its own log group only.
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
    super(scope, id, {
      timeout: Duration.seconds(10),
      memorySize: 512,
      tracing: Tracing.ACTIVE,
      ...rest,
      entry: functionEntry(handlerModule),
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      projectRoot,
      depsLockFilePath: join(projectRoot, 'package-lock.json'),
      logGroup,
      role,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        // Powertools Metrics writes EMF only with a namespace (shared/platform/service-metrics.ts); locally there is none.
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(stage),
        LOG_LEVEL: stage.logLevel,
        ...environment,
      },
      bundling: BUNDLE_FILES[handlerModule]
        ? {
            ...FUNCTION_BUNDLING,
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (inputDir, outputDir) => bundleFileCommands(handlerModule, inputDir, outputDir),
            },
          }
        : FUNCTION_BUNDLING,
    });
    this.handlerModule = handlerModule;
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
    });
  }
}
