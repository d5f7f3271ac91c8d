/**
 * The project's Lambda function: every function of the service is one of these, so runtime, architecture,
 * bundling, logging and tracing are decided once.
 */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssetHashType, AssetStaging, DockerImage, Duration, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { projectRoot } from './project-paths.js';
import type { StageConfig } from './stage-config.js';

export const SERVICE_NAME = 'hiring-integration-service';

/** The metrics namespace of a stage (CloudWatch, EMF): every function gets it as `POWERTOOLS_METRICS_NAMESPACE`. */
export const metricsNamespace = (stage: Pick<StageConfig, 'name'>) => `HiringIntegrationService/${stage.name}`;

// As in CDK's own bundling: the app's stdout stays clean, the bundler's output goes to stderr.
const BUNDLER_OUTPUT: ExecFileSyncOptions = { cwd: projectRoot, stdio: ['ignore', process.stderr, 'inherit'] };

let prebuilt: string | undefined;

/**
 * A function's bundle from those the synthesis' first bundling built for every handler module at once, in one
 * process (P334): a process per function (start, TypeScript loader, esbuild) took most of a synthesis. They come
 * from the content-keyed bundle cache when nothing they are made from has changed since the last synthesis
 * (P340, `bundleAllFunctions` in lib/function-bundle.ts): esbuild's 27 builds are most of a synthesis' CPU. The
 * directory goes when the app's process exits. Undefined for a module that is not under `functions/`.
 */
function prebuiltBundle(handlerModule: string): string | undefined {
  if (prebuilt === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'his-bundles-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bundle-function.ts', '--all', dir], BUNDLER_OUTPUT);
    prebuilt = dir;
  }
  const built = join(prebuilt, handlerModule);
  return existsSync(built) ? built : undefined;
}

/**
 * A function's code: its bundle, built locally by `scripts/bundle-function.ts` with the options of
 * `lib/function-bundle.ts` (esbuild's JavaScript API; `cdk synth` works offline and without Docker), the
 * asset hashed by its output, as NodejsFunction hashes its own.
 */
function functionCode(handlerModule: string): Code {
  const args = ['--import', 'tsx', 'scripts/bundle-function.ts', handlerModule];
  return Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the type; never pulled, because the local bundling below always succeeds or throws.
      image: DockerImage.fromRegistry('dummy'),
      // Never run either, but CDK caches bundled assets by the JSON of these options, where `local` (a
      // function) does not show: without a per-function command every function would get the first bundle.
      command: ['node', ...args, AssetStaging.BUNDLING_OUTPUT_DIR],
      local: {
        tryBundle(outputDir) {
          const built = prebuiltBundle(handlerModule);
          if (built) cpSync(built, outputDir, { recursive: true });
          else execFileSync(process.execPath, [...args, outputDir], BUNDLER_OUTPUT);
          return true;
        },
      },
    },
  });
}

export interface ServiceFunctionProps extends Omit<
  NodejsFunctionProps,
  'entry' | 'code' | 'runtime' | 'architecture' | 'bundling' | 'projectRoot' | 'depsLockFilePath' | 'logGroup' | 'handler' | 'role'
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
      code: functionCode(handlerModule),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      logGroup,
      role,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        // Powertools Metrics writes EMF only with a namespace (shared/platform/service-metrics.ts); locally there is none.
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(stage),
        LOG_LEVEL: stage.logLevel,
        ...environment,
      },
    });
    this.handlerModule = handlerModule;
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
    });
  }
}
