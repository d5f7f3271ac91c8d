/**
 * Issue 15, behind `-c largeBodies=true`: the container ingest (Dockerfile, container/) on ECS Fargate behind an
 * internal Application Load Balancer, and a CloudFront distribution in front of the whole API that sends
 * `/applications*` to the ALB (through a CloudFront VPC origin) and everything else to API Gateway, so partners
 * keep one base URL and bodies up to the spec's 27.5 MB reach a handler.
 *
 * The ALB takes traffic only from CloudFront: it is internal (no public address), its security group admits only
 * CloudFront's origin-facing prefix list, and its listener forwards only requests carrying the origin secret
 * header CloudFront adds; anything else gets a 403.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  Function as EdgeFunction,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ViewerProtocolPolicy,
  type BehaviorOptions,
} from 'aws-cdk-lib/aws-cloudfront';
import { RestApiOrigin, VpcOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import {
  CfnSecurityGroupIngress,
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  SecurityGroup,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import {
  Cluster,
  ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  FargateService,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
  Secret as EcsSecret,
} from 'aws-cdk-lib/aws-ecs';
import {
  ApplicationLoadBalancer,
  ApplicationProtocol,
  ApplicationTargetGroup,
  ListenerAction,
  ListenerCondition,
  TargetType,
  HttpCodeElb,
  HttpCodeTarget,
} from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { Role, ServicePrincipal, type PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { LARGE_BODY_PATH_PATTERN, largeBodyRoutes } from '#http/routes.js';
import { projectRoot } from './project-paths.js';
import type { ServiceAlarms } from './service-alarms.js';
import { API_5XX_PERCENT_THRESHOLD } from './service-alarms.js';
import type { ServiceData } from './service-data.js';
import { SERVICE_NAME } from './service-function.js';
import type { StageConfig } from './stage-config.js';

/** The construct id CDK gives the AwsCustomResource provider function (a singleton per stack). */
const AWS_CUSTOM_RESOURCE_PROVIDER = 'AWS679f53fac002430cb0da5b7982bd2287';
/** The port the container listens on (Dockerfile `EXPOSE`, container/server.ts `PORT`). */
export const CONTAINER_PORT = 8080;
/** The header CloudFront adds to every request to the ALB; the listener forwards only requests carrying it. */
export const ORIGIN_SECRET_HEADER = 'X-Origin-Verify';
/**
 * CloudFront's viewer-request function on the API's behaviour (P274): the host the partner called, in
 * `X-Forwarded-Host` over whatever the client sent. API Gateway sees its own host, so the route functions
 * (`VIEWER_HOST_FROM_CLOUDFRONT`, shared/http/http.ts) build `next` links and `magic_link` on this one.
 */
export const VIEWER_HOST_FUNCTION = `function handler(event) {
  var request = event.request;
  request.headers['x-forwarded-host'] = { value: request.headers.host.value };
  return request;
}`;
/** The health route of the container (container/ingest.ts). */
export const HEALTH_PATH = '/health';
/** The tasks: 2 × 0.5 vCPU / 1 GB (ARM), scaling out to 10 on CPU, memory and requests per task. */
export const INGEST_TASKS = {
  cpu: 512,
  memoryMiB: 1024,
  min: 2,
  max: 10,
  cpuPercent: 60,
  memoryPercent: 70,
  requestsPerTask: 100,
} as const;
/** p99 response time of the ingest above which someone is paged (a 27.5 MB create takes a few seconds). */
export const INGEST_LATENCY_P99_SECONDS = 10;

export interface LargeBodyIngestProps {
  stage: StageConfig;
  data: ServiceData;
  api: RestApi;
  alarms: ServiceAlarms;
  /** The authorizer's cache TTL, so the container caches its answers as long as the gateway does. */
  authorizerCacheTtl: Duration;
}

export class LargeBodyIngest extends Construct {
  readonly vpc: Vpc;
  readonly service: FargateService;
  readonly loadBalancer: ApplicationLoadBalancer;
  readonly targetGroup: ApplicationTargetGroup;
  readonly distribution: Distribution;
  readonly taskRole: Role;
  readonly originSecret: Secret;

  constructor(scope: Construct, id: string, props: LargeBodyIngestProps) {
    super(scope, id);
    const { stage, data } = props;

    const flowLogs = new LogGroup(this, 'FlowLogs', { retention: stage.logRetention, removalPolicy: stage.removalPolicy });
    // Two AZs; one NAT gateway for ECR, CloudWatch Logs, SQS and SNS; DynamoDB and S3 (the large bodies) through free
    // gateway endpoints, not the NAT.
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      restrictDefaultSecurityGroup: false,
      subnetConfiguration: [
        { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'private', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
      gatewayEndpoints: {
        S3: { service: GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: GatewayVpcEndpointAwsService.DYNAMODB },
      },
      flowLogs: { rejected: { destination: FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: FlowLogTrafficType.REJECT } },
    });
    const privateSubnets = { subnetType: SubnetType.PRIVATE_WITH_EGRESS };

    const cluster = new Cluster(this, 'Cluster', { vpc: this.vpc, containerInsightsV2: ContainerInsights.ENABLED });

    // Least privilege as for the functions: exactly what the applications routes and the authorizer declare.
    this.taskRole = new Role(this, 'TaskRole', { assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com') });
    const taskDefinition = new FargateTaskDefinition(this, 'TaskDefinition', {
      cpu: INGEST_TASKS.cpu,
      memoryLimitMiB: INGEST_TASKS.memoryMiB,
      runtimePlatform: { cpuArchitecture: CpuArchitecture.ARM64, operatingSystemFamily: OperatingSystemFamily.LINUX },
      taskRole: this.taskRole,
    });
    const logGroup = new LogGroup(this, 'Logs', { retention: stage.logRetention, removalPolicy: stage.removalPolicy });
    const environment: Record<string, string> = {
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      LOG_LEVEL: stage.logLevel,
      AUTHORIZER_CACHE_TTL_SECONDS: String(props.authorizerCacheTtl.toSeconds()),
    };
    const secrets: Record<string, EcsSecret> = {};
    const target = {
      grantPrincipal: this.taskRole,
      role: this.taskRole,
      addEnvironment: (name: string, value: string) => {
        environment[name] = value;
      },
      addToRolePolicy: (statement: PolicyStatement) => {
        this.taskRole.addToPrincipalPolicy(statement);
      },
      addSecretEnvironment: (name: string, secret: ISecret) => {
        secrets[name] = EcsSecret.fromSecretsManager(secret);
      },
    };
    data.grant(target, { table: 'authorize' });
    for (const route of largeBodyRoutes()) data.grant(target, route.access);

    this.originSecret = new Secret(this, 'OriginSecret', {
      description: `The ${ORIGIN_SECRET_HEADER} header CloudFront adds to requests to the large-body ingest ALB; the ALB forwards nothing without it.`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: stage.removalPolicy,
    });

    // Built at deploy time (`cdk deploy` runs docker build); `cdk synth` only stages and hashes the directory.
    const image = ContainerImage.fromAsset(projectRoot, { file: 'Dockerfile', platform: Platform.LINUX_ARM64 });
    taskDefinition.addContainer('ingest', {
      image,
      command: ['ingest'],
      environment,
      secrets,
      portMappings: [{ containerPort: CONTAINER_PORT }],
      logging: LogDrivers.awsLogs({ streamPrefix: 'ingest', logGroup }),
      readonlyRootFilesystem: true,
      stopTimeout: Duration.seconds(30),
      healthCheck: {
        command: [
          'CMD',
          'node',
          '-e',
          `fetch('http://127.0.0.1:${CONTAINER_PORT}${HEALTH_PATH}').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`,
        ],
        interval: Duration.seconds(15),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(10),
      },
    });

    this.service = new FargateService(this, 'Service', {
      cluster,
      taskDefinition,
      desiredCount: INGEST_TASKS.min,
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      vpcSubnets: privateSubnets,
      assignPublicIp: false,
      circuitBreaker: { rollback: true },
    });

    const albSecurityGroup = new SecurityGroup(this, 'LoadBalancerSecurityGroup', {
      vpc: this.vpc,
      description: 'Large-body ingest ALB: HTTP from CloudFront origin-facing addresses only',
      allowAllOutbound: false,
    });
    this.loadBalancer = new ApplicationLoadBalancer(this, 'LoadBalancer', {
      vpc: this.vpc,
      internetFacing: false,
      vpcSubnets: privateSubnets,
      securityGroup: albSecurityGroup,
      dropInvalidHeaderFields: true,
      // A 27.5 MB body from a slow client takes a while.
      idleTimeout: Duration.seconds(120),
      deletionProtection: stage.retainData,
    });

    // CloudFront's origin-facing prefix list differs per region: looked up at deploy time, so synth stays offline.
    const prefixList = new AwsCustomResource(this, 'CloudFrontPrefixList', {
      onUpdate: {
        service: 'EC2',
        action: 'describeManagedPrefixLists',
        parameters: { Filters: [{ Name: 'prefix-list-name', Values: ['com.amazonaws.global.cloudfront.origin-facing'] }] },
        physicalResourceId: PhysicalResourceId.of('cloudfront-origin-facing'),
        outputPaths: ['PrefixLists.0.PrefixListId'],
      },
      policy: AwsCustomResourcePolicy.fromSdkCalls({ resources: AwsCustomResourcePolicy.ANY_RESOURCE }),
      installLatestAwsSdk: false,
    });
    new CfnSecurityGroupIngress(this, 'FromCloudFront', {
      groupId: albSecurityGroup.securityGroupId,
      ipProtocol: 'tcp',
      fromPort: 80,
      toPort: 80,
      sourcePrefixListId: prefixList.getResponseField('PrefixLists.0.PrefixListId'),
      description: 'CloudFront origin-facing (VPC origin)',
    });

    this.targetGroup = new ApplicationTargetGroup(this, 'TargetGroup', {
      vpc: this.vpc,
      port: CONTAINER_PORT,
      protocol: ApplicationProtocol.HTTP,
      targetType: TargetType.IP,
      targets: [this.service],
      deregistrationDelay: Duration.seconds(30),
      healthCheck: {
        path: HEALTH_PATH,
        healthyHttpCodes: '200',
        interval: Duration.seconds(15),
        timeout: Duration.seconds(5),
        healthyThresholdCount: 2,
        unhealthyThresholdCount: 3,
      },
    });
    const listener = this.loadBalancer.addListener('Http', {
      port: 80,
      protocol: ApplicationProtocol.HTTP,
      open: false,
      defaultAction: ListenerAction.fixedResponse(403, {
        contentType: 'application/json',
        messageBody: JSON.stringify({ detail: 'Requests reach this service through its API address only.', code: 'permission_denied' }),
      }),
    });
    listener.addAction('FromCloudFrontOnly', {
      priority: 1,
      conditions: [ListenerCondition.httpHeader(ORIGIN_SECRET_HEADER, [this.originSecret.secretValue.unsafeUnwrap()])],
      action: ListenerAction.forward([this.targetGroup]),
    });

    const scaling = this.service.autoScaleTaskCount({ minCapacity: INGEST_TASKS.min, maxCapacity: INGEST_TASKS.max });
    scaling.scaleOnCpuUtilization('Cpu', { targetUtilizationPercent: INGEST_TASKS.cpuPercent });
    // Large bodies are memory-bound before they are CPU-bound.
    scaling.scaleOnMemoryUtilization('Memory', { targetUtilizationPercent: INGEST_TASKS.memoryPercent });
    scaling.scaleOnRequestCount('Requests', { requestsPerTarget: INGEST_TASKS.requestsPerTask, targetGroup: this.targetGroup });

    const noCache = {
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      compress: false,
    } satisfies Partial<BehaviorOptions>;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${stage.prefix}: the API, with ${LARGE_BODY_PATH_PATTERN} on the large-body ingest`,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      // API Gateway: every viewer header but Host (the gateway routes on its own host name), Authorization included
      // (forwarded because caching is disabled).
      defaultBehavior: {
        origin: new RestApiOrigin(props.api, { readTimeout: Duration.seconds(30) }),
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        functionAssociations: [
          {
            eventType: FunctionEventType.VIEWER_REQUEST,
            function: new EdgeFunction(this, 'ViewerHost', {
              runtime: FunctionRuntime.JS_2_0,
              comment: 'The host partners called, for the API links (X-Forwarded-Host)',
              code: FunctionCode.fromInline(VIEWER_HOST_FUNCTION),
            }),
          },
        ],
        ...noCache,
      },
      additionalBehaviors: {
        [LARGE_BODY_PATH_PATTERN]: {
          origin: VpcOrigin.withApplicationLoadBalancer(this.loadBalancer, {
            protocolPolicy: OriginProtocolPolicy.HTTP_ONLY,
            httpPort: 80,
            customHeaders: { [ORIGIN_SECRET_HEADER]: this.originSecret.secretValue.unsafeUnwrap() },
            readTimeout: Duration.seconds(60),
          }),
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER,
          ...noCache,
        },
      },
    });
    // Page links of the container's list route point at the distribution, not at the ALB's internal name.
    taskDefinition.defaultContainer!.addEnvironment('PUBLIC_BASE_URL', `https://${this.distribution.distributionDomainName}`);

    this.addAlarms(props.alarms, stage);
    this.acknowledgeFindings(prefixList, taskDefinition);
  }

  /** The function alarms' counterparts: 5xx rate (same threshold), p99 latency, and unhealthy tasks. */
  private addAlarms(alarms: ServiceAlarms, stage: StageConfig): void {
    const period = Duration.minutes(5);
    const lb = this.loadBalancer.metrics;
    alarms.watch(
      new Alarm(this, 'Ingest5xxRate', {
        alarmName: `${stage.prefix}-ingest-5xx-rate`,
        alarmDescription: `More than ${API_5XX_PERCENT_THRESHOLD}% of large-body ingest requests answered with a 5xx (by the tasks or the ALB)`,
        metric: new MathExpression({
          label: 'Ingest 5xx rate (%)',
          expression: 'IF(requests > 0, 100 * (FILL(target, 0) + FILL(elb, 0)) / requests, 0)',
          usingMetrics: {
            target: lb.httpCodeTarget(HttpCodeTarget.TARGET_5XX_COUNT, { period, statistic: Stats.SUM }),
            elb: lb.httpCodeElb(HttpCodeElb.ELB_5XX_COUNT, { period, statistic: Stats.SUM }),
            requests: lb.requestCount({ period, statistic: Stats.SUM }),
          },
          period,
        }),
        threshold: API_5XX_PERCENT_THRESHOLD,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    alarms.watch(
      new Alarm(this, 'IngestLatency', {
        alarmName: `${stage.prefix}-ingest-latency-p99`,
        alarmDescription: `The large-body ingest's p99 response time is above ${INGEST_LATENCY_P99_SECONDS} s`,
        metric: lb.targetResponseTime({ period, statistic: Stats.percentile(99) }),
        threshold: INGEST_LATENCY_P99_SECONDS,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    alarms.watch(
      new Alarm(this, 'IngestUnhealthyTasks', {
        alarmName: `${stage.prefix}-ingest-unhealthy-tasks`,
        alarmDescription: 'Tasks of the large-body ingest fail their health check',
        metric: this.targetGroup.metrics.unhealthyHostCount({ period: Duration.minutes(1), statistic: Stats.MAXIMUM }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private acknowledgeFindings(prefixList: AwsCustomResource, taskDefinition: FargateTaskDefinition): void {
    const acknowledge = (construct: Construct, id: string, reason: string) => Validations.of(construct).acknowledge({ id, reason });
    acknowledge(
      this.taskRole,
      'AwsSolutions-IAM5[Resource::*]',
      'Granted by ServiceData.grant as for the functions; no wildcard beyond theirs (which are acknowledged per resource).',
    );
    acknowledge(
      taskDefinition,
      'AwsSolutions-ECS2',
      'Names of the stack’s own resources (table, bucket, queue, topic) and log settings, no secrets: the cursor secret is injected from Secrets Manager.',
    );
    acknowledge(
      taskDefinition.obtainExecutionRole(),
      'AwsSolutions-IAM5[Resource::*]',
      'ecr:GetAuthorizationToken, which the ECS agent needs to pull the image, has no resource-level permissions.',
    );
    acknowledge(
      prefixList,
      'AwsSolutions-IAM5[Resource::*]',
      'ec2:DescribeManagedPrefixLists (the deploy-time lookup of CloudFront’s origin-facing prefix list) has no resource-level permissions.',
    );
    acknowledge(
      this.loadBalancer,
      'AwsSolutions-ELB2',
      'The container writes an access log line per request to CloudWatch Logs; ALB access logs would need the region’s ELB account in the bucket policy, which a region-agnostic template cannot name.',
    );
    acknowledge(
      this.originSecret,
      'AwsSolutions-SMG4',
      'The origin header secret is resolved into CloudFront and the ALB listener at deploy time; rotating it means redeploying both together.',
    );
    acknowledge(this.distribution, 'AwsSolutions-CFR1', 'Partners are businesses worldwide; no country is to be excluded from the API.');
    acknowledge(
      this.distribution,
      'AwsSolutions-CFR2',
      'The API Gateway stage carries the web ACL (body-size rules, and the managed rules with -c waf=true); the ingest path authenticates every request.',
    );
    acknowledge(
      this.distribution,
      'AwsSolutions-CFR3',
      'Every request is logged at its origin: API Gateway access logs, and the ingest container’s access log line per request; CloudFront standard logs would need an ACL-enabled bucket.',
    );
    acknowledge(
      this.distribution,
      'AwsSolutions-CFR4',
      'The default *.cloudfront.net certificate cannot pin a minimum TLS version; a custom domain with its own certificate would (TLSv1.2_2021).',
    );
    acknowledge(
      this.distribution,
      'AwsSolutions-CFR5',
      'The ALB is reached over a CloudFront VPC origin (private, inside AWS), not over the internet; no TLS to an internal name without a domain.',
    );
    // AwsCustomResource's provider function is a singleton of the stack, outside this construct.
    const provider = Stack.of(this).node.tryFindChild(AWS_CUSTOM_RESOURCE_PROVIDER);
    if (provider) {
      acknowledge(
        provider,
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        'CDK’s AwsCustomResource provider (the deploy-time prefix list lookup) runs with the basic execution role it creates; it only writes its own logs.',
      );
    }
  }
}
