/**
 * Issue 15 in the template. Without `largeBodies`: the web ACL on the API stage answers bodies the Lambda path
 * cannot take with a 413 (and chunked bodies with a 411), and there is no container, load balancer or CloudFront.
 * With `-c largeBodies=true`: the container ingest on Fargate behind an internal ALB reached only through CloudFront,
 * which sends `/applications*` there and everything else to API Gateway. Synthesis runs cdk-nag, so a template
 * here is also one without unacknowledged findings. Bundling is skipped: the Docker image asset is only staged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { allRoutes, LARGE_BODY_PATH_PATTERN, largeBodyRoutes, routes } from '#http/routes.js';
import { atLeastPattern, BODY_LIMIT_RESPONSES, LAMBDA_PATH_BODY_LIMITS } from '../../lib/lambda-body-limits.js';
import { CONTAINER_PORT, INGEST_TASKS, ORIGIN_SECRET_HEADER, VIEWER_HOST_FUNCTION } from '../../lib/large-body-ingest.js';
import {
  actionsOf,
  functionStatements,
  resourcesOfType,
  SHARED_SYNTH_TIMEOUT_MS,
  sharedSynth,
  type Synthesized,
  type TemplateJson,
} from './template.js';

const INGEST_TYPES = [
  'AWS::ECS::Cluster',
  'AWS::ECS::Service',
  'AWS::ECS::TaskDefinition',
  'AWS::ElasticLoadBalancingV2::LoadBalancer',
  'AWS::ElasticLoadBalancingV2::Listener',
  'AWS::ElasticLoadBalancingV2::TargetGroup',
  'AWS::CloudFront::Distribution',
  'AWS::CloudFront::VpcOrigin',
  'AWS::EC2::VPC',
  'AWS::EC2::NatGateway',
  'AWS::ApplicationAutoScaling::ScalableTarget',
];

/** Whether each route's function (its description is `Id: METHOD /path`) and each other function builds links on CloudFront's viewer host. */
function viewerHostFlags(template: TemplateJson) {
  const flags = { routes: [] as unknown[], others: [] as unknown[] };
  for (const [, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
    const flag = fn.Properties.Environment?.Variables?.VIEWER_HOST_FROM_CLOUDFRONT;
    (/^\w+: (GET|POST|PATCH|PUT|DELETE) \//.test(String(fn.Properties.Description)) ? flags.routes : flags.others).push(flag);
  }
  return flags;
}

function webAclRules(template: TemplateJson) {
  const [[, acl]] = resourcesOfType(template, 'AWS::WAFv2::WebACL');
  return acl.Properties as { Rules: any[]; CustomResponseBodies: Record<string, { ContentType: string; Content: string }> };
}

describe('the default stack (no largeBodies)', () => {
  let synthesized: Synthesized;
  let template: Template;
  beforeAll(async () => {
    synthesized = await sharedSynth('dev');
    template = Template.fromJSON(synthesized.template);
  }, SHARED_SYNTH_TIMEOUT_MS);
  afterAll(() => synthesized?.cleanup());

  test('route functions take the gateway’s own host for their links (no CloudFront in front)', () => {
    const flags = viewerHostFlags(synthesized.template);
    expect(flags.routes).toHaveLength(allRoutes.length);
    expect(new Set([...flags.routes, ...flags.others])).toEqual(new Set([undefined]));
  });

  test('has no container, load balancer, CloudFront or VPC', () => {
    for (const type of INGEST_TYPES) expect([type, resourcesOfType(synthesized.template, type).length]).toEqual([type, 0]);
    expect(Object.keys(synthesized.template.Outputs ?? {})).not.toContain('PublicApiUrl');
  });

  test('the API stage carries a web ACL whose first rules answer oversized bodies with 413 and chunked ones with 411', () => {
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      ResourceArn: Match.anyValue(),
      WebACLArn: Match.anyValue(),
    });
    const { Rules, CustomResponseBodies } = webAclRules(synthesized.template);
    // Only the body rules without -c waf=true; the managed rule groups come with it (stage-variants.test.ts).
    expect(Rules.map((r) => [r.Priority, r.Name])).toEqual([
      [0, 'LambdaPathBinaryBodyTooLarge'],
      [1, 'LambdaPathBodyTooLarge'],
      [2, 'LambdaPathChunkedBody'],
    ]);
    const [binary, text, chunked] = Rules;
    const [typeMatch, binaryLength] = binary.Statement.AndStatement.Statements;
    expect(typeMatch.RegexMatchStatement).toMatchObject({ FieldToMatch: { SingleHeader: { Name: 'content-type' } } });
    const typePattern = new RegExp(typeMatch.RegexMatchStatement.RegexString);
    expect(
      ['multipart/form-data; boundary=x', 'application/octet-stream', 'application/json', 'multipart/form-datax'].map((t) =>
        typePattern.test(t),
      ),
    ).toEqual([true, true, false, false]);
    expect(binaryLength.RegexMatchStatement).toEqual({
      FieldToMatch: { SingleHeader: { Name: 'content-length' } },
      RegexString: atLeastPattern(LAMBDA_PATH_BODY_LIMITS.binary),
      TextTransformations: [{ Priority: 0, Type: 'NONE' }],
    });
    expect(text.Statement.RegexMatchStatement.RegexString).toBe(atLeastPattern(LAMBDA_PATH_BODY_LIMITS.text));
    expect(chunked.Statement.RegexMatchStatement).toMatchObject({ FieldToMatch: { SingleHeader: { Name: 'transfer-encoding' } } });

    const answer = (rule: any) => {
      const response = rule.Action.Block.CustomResponse;
      const body = CustomResponseBodies[response.CustomResponseBodyKey];
      expect(body.ContentType).toBe('APPLICATION_JSON');
      return { status: response.ResponseCode, body: JSON.parse(body.Content) };
    };
    expect(answer(binary)).toEqual(BODY_LIMIT_RESPONSES['payload-too-large-binary']);
    expect(answer(text)).toEqual(BODY_LIMIT_RESPONSES['payload-too-large']);
    expect(answer(chunked)).toEqual(BODY_LIMIT_RESPONSES['length-required']);
    expect(answer(text).body).toEqual({ detail: expect.stringMatching(/5\.5 MB/), code: 'payload_too_large' });
    expect(binary.Action.Block.CustomResponse.ResponseHeaders).toEqual(
      expect.arrayContaining([{ Name: 'X-Content-Type-Options', Value: 'nosniff' }]),
    );
  });

  test('the gateway’s own 413 (over 10 MB) stays in the D2 shape', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'REQUEST_TOO_LARGE',
      StatusCode: '413',
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"code": "payload_too_large"') },
    });
  });
});

describe('-c largeBodies=true', () => {
  let synthesized: Synthesized;
  let template: Template;
  let json: TemplateJson;
  beforeAll(async () => {
    synthesized = await sharedSynth('devLargeBodies');
    template = Template.fromJSON(synthesized.template);
    json = synthesized.template;
  }, SHARED_SYNTH_TIMEOUT_MS);
  afterAll(() => synthesized?.cleanup());

  const only = (type: string) => {
    const found = resourcesOfType(json, type);
    expect([type, found.length]).toEqual([type, 1]);
    return found[0];
  };

  test('adds the ingest: cluster, Fargate service, internal ALB, CloudFront, VPC; the Lambda API stays as it was', () => {
    for (const type of INGEST_TYPES) only(type);
    expect(resourcesOfType(json, 'AWS::ApiGateway::Method').length).toBeGreaterThanOrEqual(routes.length);
    expect(Object.keys(json.Outputs ?? {})).toEqual(expect.arrayContaining(['PublicApiUrl', 'ApiUrl']));
  });

  test('the image is built at deploy time from the Dockerfile (only staged at synth), for ARM', () => {
    const assets = JSON.parse(readFileSync(join(synthesized.assembly.directory, 'HiringIntegration-dev.assets.json'), 'utf8'));
    const images = Object.values<any>(assets.dockerImages ?? {});
    expect(images).toHaveLength(1);
    expect(images[0].source).toMatchObject({ dockerFile: 'Dockerfile', platform: 'linux/arm64' });
    const staged = join(synthesized.assembly.directory, images[0].source.directory);
    for (const file of [
      'Dockerfile',
      'package-lock.json',
      'clients/typescript/package.json',
      'container/server.ts',
      'local/http-adapter.ts',
      'functions/applications/create.ts',
    ])
      expect([file, existsSync(join(staged, file))]).toEqual([file, true]);
    // .dockerignore keeps the build context small: no dependencies, tests or emulators.
    for (const file of ['node_modules', 'test', 'local/emulators.ts', 'cdk.out', '.data', 'clients/typescript/src'])
      expect([file, existsSync(join(staged, file))]).toEqual([file, false]);
  });

  test('the task runs the ingest mode, 0.5 vCPU / 1 GB ARM, read-only root, logs to its log group, health check on /health', () => {
    const [, task] = only('AWS::ECS::TaskDefinition');
    expect(task.Properties).toMatchObject({
      Cpu: String(INGEST_TASKS.cpu),
      Memory: String(INGEST_TASKS.memoryMiB),
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      RequiresCompatibilities: ['FARGATE'],
    });
    const [container] = task.Properties.ContainerDefinitions;
    expect(container).toMatchObject({
      Command: ['ingest'],
      ReadonlyRootFilesystem: true,
      PortMappings: [{ ContainerPort: CONTAINER_PORT, Protocol: 'tcp' }],
      LogConfiguration: { LogDriver: 'awslogs' },
      HealthCheck: { Command: ['CMD', 'node', '-e', expect.stringContaining('/health')] },
    });
    const env = Object.fromEntries(container.Environment.map((e: any) => [e.Name, e.Value]));
    expect(Object.keys(env).sort()).toEqual(
      [
        'AUTHORIZER_CACHE_TTL_SECONDS',
        'BUCKET_NAME',
        'LOG_LEVEL',
        'POWERTOOLS_SERVICE_NAME',
        'PUBLIC_BASE_URL',
        'SYNC_QUEUE_URL',
        'TABLE_NAME',
      ].sort(),
    );
    // The cursor secret is injected by ECS from Secrets Manager, never written into the template.
    expect(container.Secrets).toEqual([{ Name: 'CURSOR_SECRET', ValueFrom: { Ref: expect.stringMatching(/^DataCursorSecret/) } }]);
    template.hasResourceProperties('AWS::ECS::Cluster', { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] });
  });

  test('least privilege: the task role may do what the applications routes’ functions and the authorizer may, nothing more', () => {
    const [, task] = only('AWS::ECS::TaskDefinition');
    const roleId = task.Properties.TaskRoleArn['Fn::GetAtt'][0];
    const taskStatements = resourcesOfType(json, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
    const functionIds = resourcesOfType(json, 'AWS::Lambda::Function')
      .filter(([, fn]) => largeBodyRoutes().some((route) => String(fn.Properties.Description ?? '').startsWith(`${route.id}: `)))
      .map(([id]) => id);
    expect(functionIds).toHaveLength(largeBodyRoutes().length);
    const [authorizerId] = resourcesOfType(json, 'AWS::Lambda::Function').find(([, fn]) =>
      String(fn.Properties.Description ?? '').startsWith('REQUEST authorizer'),
    )!;
    const functionsStatements = [...functionIds, authorizerId].flatMap((id) => functionStatements(json, id));
    for (const prefix of ['dynamodb:', 's3:', 'sqs:', 'sns:', 'kms:', 'secretsmanager:', 'ses:']) {
      expect([prefix, actionsOf(taskStatements, prefix)]).toEqual([prefix, actionsOf(functionsStatements, prefix)]);
    }
    expect(actionsOf(taskStatements, 's3:')).not.toContain('s3:ListBucket');
    expect(taskStatements.flatMap((s) => [s.Action].flat()).filter((a: string) => a === '*' || a.endsWith(':*'))).toEqual([]);
  });

  test('the ALB is internal, admits only CloudFront’s origin-facing prefix list, and forwards only requests with the origin secret', () => {
    const [, lb] = only('AWS::ElasticLoadBalancingV2::LoadBalancer');
    expect(lb.Properties.Scheme).toBe('internal');
    expect(lb.Properties.LoadBalancerAttributes).toEqual(
      expect.arrayContaining([{ Key: 'routing.http.drop_invalid_header_fields.enabled', Value: 'true' }]),
    );
    // No ingress from anywhere: the one rule on the ALB's group names the prefix list looked up at deploy time.
    for (const [, group] of resourcesOfType(json, 'AWS::EC2::SecurityGroup')) {
      for (const rule of group.Properties.SecurityGroupIngress ?? []) expect(rule.CidrIp).not.toBe('0.0.0.0/0');
    }
    const lbGroup = lb.Properties.SecurityGroups[0]['Fn::GetAtt'][0];
    const ingress = resourcesOfType(json, 'AWS::EC2::SecurityGroupIngress').filter(
      ([, r]) => r.Properties.GroupId['Fn::GetAtt']?.[0] === lbGroup,
    );
    expect(ingress).toHaveLength(1);
    expect(ingress[0][1].Properties).toMatchObject({
      FromPort: 80,
      ToPort: 80,
      SourcePrefixListId: { 'Fn::GetAtt': [expect.any(String), 'PrefixLists.0.PrefixListId'] },
    });
    const [lookupId] = only('Custom::AWS');
    expect(JSON.stringify(json.Resources[lookupId].Properties)).toContain('com.amazonaws.global.cloudfront.origin-facing');

    const [, listener] = only('AWS::ElasticLoadBalancingV2::Listener');
    expect(listener.Properties.DefaultActions).toEqual([
      expect.objectContaining({ Type: 'fixed-response', FixedResponseConfig: expect.objectContaining({ StatusCode: '403' }) }),
    ]);
    const [, rule] = only('AWS::ElasticLoadBalancingV2::ListenerRule');
    expect(rule.Properties.Conditions).toEqual([
      {
        Field: 'http-header',
        HttpHeaderConfig: { HttpHeaderName: ORIGIN_SECRET_HEADER, Values: [expect.objectContaining({ 'Fn::Join': expect.anything() })] },
      },
    ]);
    const secretRef = JSON.stringify(rule.Properties.Conditions[0].HttpHeaderConfig.Values[0]);
    expect(secretRef).toContain('{{resolve:secretsmanager:');
    // CloudFront sends the same secret.
    const [, distribution] = only('AWS::CloudFront::Distribution');
    const albOrigin = distribution.Properties.DistributionConfig.Origins.find((o: any) => o.VpcOriginConfig);
    expect(JSON.stringify(albOrigin.OriginCustomHeaders)).toBe(
      JSON.stringify([{ HeaderName: ORIGIN_SECRET_HEADER, HeaderValue: JSON.parse(secretRef) }]),
    );
  });

  test('target group health check on /health; autoscaling on CPU, memory and requests per task from 2 to 10', () => {
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: CONTAINER_PORT,
      TargetType: 'ip',
      HealthCheckPath: '/health',
      Matcher: { HttpCode: '200' },
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: INGEST_TASKS.min,
      MaxCapacity: INGEST_TASKS.max,
    });
    const metrics = resourcesOfType(json, 'AWS::ApplicationAutoScaling::ScalingPolicy').map(
      ([, p]) => p.Properties.TargetTrackingScalingPolicyConfiguration.PredefinedMetricSpecification.PredefinedMetricType,
    );
    expect(metrics.sort()).toEqual(['ALBRequestCountPerTarget', 'ECSServiceAverageCPUUtilization', 'ECSServiceAverageMemoryUtilization']);
    template.hasResourceProperties('AWS::ECS::Service', {
      DesiredCount: INGEST_TASKS.min,
      LaunchType: 'FARGATE',
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'DISABLED' }) },
      DeploymentConfiguration: Match.objectLike({ DeploymentCircuitBreaker: { Enable: true, Rollback: true } }),
    });
  });

  test('CloudFront: one base URL; /applications* to the ALB, the rest to API Gateway; all methods, HTTPS, no caching', () => {
    const [, distribution] = only('AWS::CloudFront::Distribution');
    const config = distribution.Properties.DistributionConfig;
    const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
    const ALL_VIEWER = '216adef6-5c7f-47e4-b989-5492eafa07d3';
    const ALL_VIEWER_EXCEPT_HOST = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';
    const methods = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'];
    expect(config.CacheBehaviors).toHaveLength(1);
    const [ingest] = config.CacheBehaviors;
    expect(ingest).toMatchObject({
      PathPattern: LARGE_BODY_PATH_PATTERN,
      AllowedMethods: methods,
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER,
      ViewerProtocolPolicy: 'https-only',
    });
    expect(config.DefaultCacheBehavior).toMatchObject({
      AllowedMethods: methods,
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST,
      ViewerProtocolPolicy: 'https-only',
    });
    const origin = (id: string) => config.Origins.find((o: any) => o.Id === id);
    expect(origin(ingest.TargetOriginId).VpcOriginConfig).toBeDefined();
    expect(JSON.stringify(origin(config.DefaultCacheBehavior.TargetOriginId).DomainName)).toContain('.execute-api.');
    template.hasResourceProperties('AWS::CloudFront::VpcOrigin', {
      VpcOriginEndpointConfig: Match.objectLike({ OriginProtocolPolicy: 'http-only', HTTPPort: 80 }),
    });
  });

  test('links name the host partners called: CloudFront hands it to every route function (P274)', () => {
    const [, distribution] = only('AWS::CloudFront::Distribution');
    expect(distribution.Properties.DistributionConfig.DefaultCacheBehavior.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [expect.stringMatching(/ViewerHost/), 'FunctionARN'] } },
    ]);
    const [, edge] = only('AWS::CloudFront::Function');
    expect(edge.Properties).toMatchObject({ FunctionCode: VIEWER_HOST_FUNCTION, FunctionConfig: { Runtime: 'cloudfront-js-2.0' } });
    // The function as CloudFront runs it: the host the viewer called replaces a header the client forged.
    const handler = runInNewContext(`${VIEWER_HOST_FUNCTION}; handler`) as (event: unknown) => { headers: Record<string, unknown> };
    const request = handler({
      request: { headers: { host: { value: 'd111.cloudfront.net' }, 'x-forwarded-host': { value: 'evil.example' } } },
    });
    expect(request.headers['x-forwarded-host']).toEqual({ value: 'd111.cloudfront.net' });
    const flags = viewerHostFlags(json);
    expect(flags.routes).toHaveLength(allRoutes.length);
    expect(new Set(flags.routes)).toEqual(new Set(['true']));
    expect(new Set(flags.others)).toEqual(new Set([undefined]));
  });

  test('the same alarms as the functions: 5xx rate and latency (and unhealthy tasks), to the alarm topic', () => {
    const alarms = resourcesOfType(json, 'AWS::CloudWatch::Alarm').filter(([, a]) =>
      String(a.Properties.AlarmName).startsWith('his-dev-ingest-'),
    );
    expect(alarms.map(([, a]) => a.Properties.AlarmName).sort()).toEqual([
      'his-dev-ingest-5xx-rate',
      'his-dev-ingest-latency-p99',
      'his-dev-ingest-unhealthy-tasks',
    ]);
    for (const [, alarm] of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^AlarmsTopic/) }]);
    }
  });

  test('the web ACL body rules stay on the API stage (a partner calling the gateway directly still gets the 413)', () => {
    expect(webAclRules(json).Rules.map((r) => r.Name)).toEqual([
      'LambdaPathBinaryBodyTooLarge',
      'LambdaPathBodyTooLarge',
      'LambdaPathChunkedBody',
    ]);
  });
});
