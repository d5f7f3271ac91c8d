/**
 * The project's Lambda function: every function of the service is one of these, so runtime, architecture,
 * bundling, logging and tracing are decided once.
 */
import { join } from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { NodejsFunction, OutputFormat, SourceMapMode, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { functionEntry, projectRoot } from './project-paths.js';
import type { StageConfig } from './stage-config.js';

export const SERVICE_NAME = 'hiring-integration-service';

// Bundled ESM has no `require`; CommonJS dependencies that esbuild inlines (parts of the AWS SDK) still call
// it for Node built-ins, so the bundle gets one made from its own URL.
const ESM_REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

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
        LOG_LEVEL: stage.logLevel,
        // Stack traces point into our TypeScript, not the minified bundle.
        NODE_OPTIONS: '--enable-source-maps',
        ...environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        // Prefer packages' ESM builds: smaller bundles, and middy 7 ships nothing else.
        mainFields: ['module', 'main'],
        // The SDK is bundled rather than taken from the runtime, so the version we test is the one that runs.
        externalModules: [],
        minify: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        banner: ESM_REQUIRE_SHIM,
        // Local esbuild only: `cdk synth` must work offline and without Docker.
        forceDockerBundling: false,
      },
    });
    this.handlerModule = handlerModule;
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
    });
  }
}
