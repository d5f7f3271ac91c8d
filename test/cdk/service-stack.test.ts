/**
 * Template assertions on the dev stack, synthesized once (with cdk-nag; bundling is `cdk-synth-cli.test.ts`'s) from the
 * route table, the table definition and the resource settings.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { API_5XX_PERCENT_THRESHOLD } from '../../lib/service-alarms.js';
import { resources } from '#platform/resources.js';
import { allRoutes as routes, canonicalPath, pathVariants } from '#http/routes.js';
import { tableDefinition } from '#platform/table.js';
import {
  actionsOf,
  functionStatements,
  resourcePaths,
  resourcesOfType,
  SHARED_SYNTH_TIMEOUT_MS,
  sharedSynth,
  type Synthesized,
} from './template.js';

const DYNAMO_WRITES = ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];

let synthesized: Synthesized;
let template: Template;

beforeAll(async () => {
  // Without esbuild bundling: the template is the same; `cdk-synth-cli.test.ts` bundles every function and runs one.
  synthesized = await sharedSynth('dev');
  template = Template.fromJSON(synthesized.template);
}, SHARED_SYNTH_TIMEOUT_MS);

afterAll(() => synthesized?.cleanup());

const json = () => synthesized.template;
// CDK's own custom-resource handlers (bucket auto-delete in dev) are not ours; ours are described by route id.
const description = (fn: any): string => (typeof fn.Properties.Description === 'string' ? fn.Properties.Description : '');
const serviceFunctions = () =>
  resourcesOfType(json(), 'AWS::Lambda::Function').filter(
    ([id, fn]) => id === authorizerFunctionId() || routes.some((route) => description(fn).startsWith(`${route.id}: `)),
  );
const functionForRoute = (routeId: string) => {
  const matches = resourcesOfType(json(), 'AWS::Lambda::Function').filter(([, fn]) => description(fn).startsWith(`${routeId}: `));
  expect(matches).toHaveLength(1);
  return matches[0];
};
const authorizerFunctionId = () => {
  const [authorizer] = resourcesOfType(json(), 'AWS::ApiGateway::Authorizer');
  const uri = JSON.stringify(authorizer[1].Properties.AuthorizerUri);
  return /"Fn::GetAtt":\["(\w+)","Arn"\]/.exec(uri)![1];
};

describe('functions', () => {
  test('every function of the service runs nodejs24.x on arm64, bundled as ESM, traced, with Powertools settings', () => {
    const functions = serviceFunctions();
    expect(functions).toHaveLength(routes.length + 1);
    for (const [id, fn] of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
      });
      expect(fn.Properties.Environment.Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'hiring-integration-service',
        // Powertools Metrics writes EMF only with a namespace, one per stage.
        POWERTOOLS_METRICS_NAMESPACE: 'HiringIntegrationService/dev',
        LOG_LEVEL: 'DEBUG',
      });
      // Active tracing: the role may send segments (X-Ray takes no resource-level permissions).
      expect(actionsOf(functionStatements(json(), id), 'xray:')).toEqual(
        expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
      );
      // Source maps are not loaded at start (issue 13): unexpected errors are mapped on the error path.
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
      const logGroup = json().Resources[fn.Properties.LoggingConfig.LogGroup.Ref];
      expect(logGroup.Properties.RetentionInDays).toBe(14);
      // No AWSLambdaBasicExecutionRole: the role may write to the function's own log group only.
      const role = json().Resources[fn.Properties.Role['Fn::GetAtt'][0]];
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe('routes', () => {
  test.each(routes.map((route) => [route.id, route] as const))(
    '%s has one function, and one method that both path spellings reach',
    (_id, route) => {
      const [functionId] = functionForRoute(route.id);
      const paths = resourcePaths(json());
      const methods = resourcesOfType(json(), 'AWS::ApiGateway::Method').filter(
        ([, m]) => m.Properties.HttpMethod === route.method && paths.get(m.Properties.ResourceId.Ref) === canonicalPath(route.path),
      );
      expect(methods).toHaveLength(1);
      const [, method] = methods[0];
      // The public pages (D20) have no authorizer: the connect page's token is its only authority.
      expect(method.Properties.AuthorizationType).toBe(route.public ? 'NONE' : 'CUSTOM');
      expect(method.Properties.Integration.Type).toBe('AWS_PROXY');
      expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(`"Fn::GetAtt":["${functionId}","Arn"]`);
      // REST resources cannot end in an empty path part; the gateway matches `/x/` against the `/x` resource.
      for (const variant of pathVariants(route.path)) {
        const parts = variant.split('/').filter(Boolean);
        expect(`/${parts.join('/')}`).toBe(paths.get(method.Properties.ResourceId.Ref));
      }
    },
  );

  test('there are no methods besides the route table and one 405 answer per path', () => {
    const canonical = new Set(routes.map((r) => canonicalPath(r.path)));
    expect(resourcesOfType(json(), 'AWS::ApiGateway::Method')).toHaveLength(routes.length + canonical.size);
    for (const path of resourcePaths(json()).values()) expect(path).not.toMatch(/\/\/|\/$/);
  });

  test('any other method on a known path is a 405 with Allow in the D2 shape, answered by the gateway', () => {
    const paths = resourcePaths(json());
    for (const path of new Set(routes.map((r) => canonicalPath(r.path)))) {
      const allowed = routes.filter((r) => canonicalPath(r.path) === path).map((r) => r.method);
      const [, method] = resourcesOfType(json(), 'AWS::ApiGateway::Method').find(
        ([, m]) => m.Properties.HttpMethod === 'ANY' && paths.get(m.Properties.ResourceId.Ref) === path,
      )!;
      expect(method.Properties.AuthorizationType).toBe('NONE');
      expect(method.Properties.Integration.Type).toBe('MOCK');
      const [response] = method.Properties.Integration.IntegrationResponses;
      expect(response.StatusCode).toBe('405');
      expect(response.ResponseParameters).toEqual({
        'method.response.header.Allow': `'${allowed.join(', ')}'`,
        'method.response.header.Content-Type': "'application/json'",
        'method.response.header.X-Request-Id': 'context.requestId',
        'method.response.header.X-Content-Type-Options': "'nosniff'",
        'method.response.header.Cache-Control': "'no-store'",
      });
      const body = JSON.parse(response.ResponseTemplates['application/json'].replace('$context.httpMethod', 'DELETE'));
      expect(body).toEqual({ detail: 'Method "DELETE" is not allowed here.', code: 'method_not_allowed' });
    }
  });

  test('every list route seals its cursors with the stack secret', () => {
    // Without CURSOR_SECRET a deployed function refuses to mint a `next` link (derived-keys.ts).
    const lists = routes.filter((route) => route.method === 'GET' && route.id.startsWith('List'));
    expect(lists.map((route) => route.id)).toEqual(['ListCompanies', 'ListJobs', 'ListApplications', 'ListApplicationDeliveries']);
    for (const route of lists) {
      // The delivery log (issue 44) is read from the application's own partition: no index, so `read` access.
      const table = route.id === 'ListApplicationDeliveries' ? 'read' : 'list';
      expect([route.id, route.access.table, route.access.cursorSecret]).toEqual([route.id, table, true]);
      expect(functionForRoute(route.id)[1].Properties.Environment.Variables).toHaveProperty('CURSOR_SECRET');
    }
  });

  test.each(routes.map((route) => [route.id, route.access] as const))('%s holds exactly the access it declares', (routeId, access) => {
    const [functionId, fn] = functionForRoute(routeId);
    const statements = functionStatements(json(), functionId);
    const dynamo = actionsOf(statements, 'dynamodb:');
    if (!access.table) {
      // The API reference (D20) reads nothing: no table at all.
      expect(dynamo).toEqual([]);
    } else {
      expect(dynamo).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
      if (access.table === 'write') expect(dynamo).toEqual(expect.arrayContaining(DYNAMO_WRITES));
      else {
        // A list writes only the stored ids of its walks (P260), on their own partitions; a read route nothing.
        const writes = statements.filter((s) => [s.Action].flat().some((a: string) => DYNAMO_WRITES.includes(a)));
        expect(writes).toEqual(
          access.table === 'list'
            ? [
                expect.objectContaining({
                  Action: 'dynamodb:BatchWriteItem',
                  Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['WALK#*'] } },
                }),
              ]
            : [],
        );
      }
    }
    // Bucket, queue and topic only for the routes that declare them.
    const s3 = actionsOf(statements, 's3:');
    if (access.attachments === 'write')
      expect(s3.sort()).toEqual(['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:PutObject']);
    else expect(s3).toEqual([]);
    if (access.syncQueue) expect(actionsOf(statements, 'sqs:')).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    else expect(actionsOf(statements, 'sqs:')).toEqual([]);
    if (access.events) expect(actionsOf(statements, 'sns:')).toEqual(['sns:Publish']);
    else expect(actionsOf(statements, 'sns:')).toEqual([]);
    const variables = fn.Properties.Environment.Variables;
    if (access.table) expect(variables).toMatchObject({ TABLE_NAME: { Ref: expect.stringMatching(/^DataTable/) } });
    else expect(variables).not.toHaveProperty('TABLE_NAME');
    expect('BUCKET_NAME' in variables).toBe(Boolean(access.attachments));
    expect('SYNC_QUEUE_URL' in variables).toBe(Boolean(access.syncQueue));
    expect('EVENTS_TOPIC_ARN' in variables).toBe(Boolean(access.events));
    if (access.cursorSecret) {
      expect(variables.CURSOR_SECRET).toEqual({
        'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: expect.stringMatching(/^DataCursorSecret/) }, ':SecretString:::}}']],
      });
    } else {
      expect(variables).not.toHaveProperty('CURSOR_SECRET');
    }
  });
});

test('the access log records the resource path template, never the path (magic-link tokens, D20)', () => {
  const [, stage] = resourcesOfType(json(), 'AWS::ApiGateway::Stage')[0];
  const format = String(stage.Properties.AccessLogSetting.Format);
  expect(format).toContain('$context.resourcePath');
  expect(format).not.toMatch(/\$context\.path\b|\$context\.requestOverride|\$input/);
});

describe('authorizer', () => {
  test('is a REQUEST authorizer on the Authorization header with a cached result', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 300,
    });
  });

  test('may read a key and stamp last_used_at on the table, nothing else', () => {
    const functionId = authorizerFunctionId();
    const statements = functionStatements(json(), functionId);
    const dynamoStatements = statements.filter((s) => [s.Action].flat().some((a: string) => a.startsWith('dynamodb:')));
    expect(actionsOf(statements, 'dynamodb:')).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    for (const statement of dynamoStatements)
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^DataTable/), 'Arn'] });
    const env = json().Resources[functionId].Properties.Environment.Variables;
    expect(env.TABLE_NAME).toBeDefined();
    expect(env.CURSOR_SECRET).toBeUndefined();
  });
});

describe('API', () => {
  const sample = (body: string) =>
    JSON.parse(body.replaceAll('$context.error.messageString', '"Gateway sentence"').replaceAll('$context.requestId', 'req-1'));

  test.each([
    ['UNAUTHORIZED', '401', 'not_authenticated'],
    ['ACCESS_DENIED', '403', 'permission_denied'],
    ['REQUEST_TOO_LARGE', '413', 'payload_too_large'],
    ['THROTTLED', '429', 'throttled'],
    ['DEFAULT_4XX', 'its own 4xx', 'bad_request'],
    ['DEFAULT_5XX', 'its own 5xx', 'internal_error'],
  ])('gateway response %s answers %s in the D2 shape', (type, status, code) => {
    const matches = resourcesOfType(json(), 'AWS::ApiGateway::GatewayResponse').filter(([, r]) => r.Properties.ResponseType === type);
    expect(matches).toHaveLength(1);
    const { Properties } = matches[0][1];
    expect(Properties.StatusCode).toBe(/^\d+$/.test(status) ? status : undefined);
    const body = sample(Properties.ResponseTemplates['application/json']);
    expect(body).toMatchObject({ detail: expect.any(String), code });
    expect(Object.keys(body).sort()).toEqual(type === 'DEFAULT_5XX' ? ['code', 'detail', 'request_id'] : ['code', 'detail']);
    expect(Properties.ResponseParameters['gatewayresponse.header.X-Request-Id']).toBe('context.requestId');
    expect(Properties.ResponseParameters['gatewayresponse.header.X-Content-Type-Options']).toBe("'nosniff'");
    expect(Properties.ResponseParameters['gatewayresponse.header.Cache-Control']).toBe("'no-store'");
  });

  test('401 asks for a bearer token and 429 says when to retry', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      ResponseParameters: { 'gatewayresponse.header.WWW-Authenticate': "'Bearer'" },
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'THROTTLED',
      ResponseParameters: { 'gatewayresponse.header.Retry-After': Match.stringLikeRegexp("^'\\d+'$") },
    });
  });

  test('passes multipart bodies to the functions as binary', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: Match.arrayWith(['multipart/form-data']) });
  });

  test('the stage is traced, throttled, access-logged, and covered by a usage plan', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
          LoggingLevel: 'ERROR',
        }),
      ]),
    });
    template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 50, BurstLimit: 100 },
      ApiStages: [Match.objectLike({ Stage: Match.anyValue() })],
    });
  });

  test('without -c waf=true the web ACL holds only the body-size rules (issue 15), no managed rule groups', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const [[, acl]] = resourcesOfType(json(), 'AWS::WAFv2::WebACL');
    expect(acl.Properties.Rules.filter((rule: any) => rule.Statement.ManagedRuleGroupStatement)).toEqual([]);
    expect(acl.Properties.Rules.map((rule: any) => rule.Name)).toEqual([
      'LambdaPathBinaryBodyTooLarge',
      'LambdaPathBodyTooLarge',
      'LambdaPathChunkedBody',
    ]);
  });
});

describe('data', () => {
  test('the table is built from tableDefinition: keys, GSIs with their projection, TTL; on-demand, PITR, encrypted', () => {
    const [[, table]] = resourcesOfType(json(), 'AWS::DynamoDB::Table');
    expect(table.Properties.KeySchema).toEqual([
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ]);
    expect(table.Properties.GlobalSecondaryIndexes).toEqual(
      tableDefinition.globalSecondaryIndexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: {
          ProjectionType: index.projection,
          ...('include' in index && index.include ? { NonKeyAttributes: [...index.include] } : {}),
        },
      })),
    );
    // Issue 22: at most 10 indexes, each named for what it serves (P241).
    expect(table.Properties.GlobalSecondaryIndexes.map((i: { IndexName: string }) => i.IndexName)).toEqual([
      'COLLECTION',
      'LOOKUP',
      'DUE',
      'SLOT1',
      'SLOT2',
      'SLOT3',
      'SLOT4',
      'APPLIED',
      'UPDATED',
      'SLIM',
    ]);
    for (const attribute of table.Properties.AttributeDefinitions) expect(attribute.AttributeType).toBe('S');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
    });
    // Dev is disposable; prod's retention is asserted in stage-variants.test.ts.
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.Properties.DeletionProtectionEnabled).toBeFalsy();
  });

  test('the attachments bucket blocks public access, is encrypted, TLS-only, and aborts incomplete multipart uploads', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' })]),
      },
      LoggingConfiguration: Match.objectLike({ DestinationBucketName: Match.anyValue() }),
    });
    for (const [, policy] of resourcesOfType(json(), 'AWS::S3::BucketPolicy')) {
      expect(policy.Properties.PolicyDocument.Statement).toEqual(
        expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      );
    }
  });

  test('the sync queue redrives to its DLQ with the shared settings', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: `his-dev-${resources.syncQueue.name}`,
      VisibilityTimeout: resources.syncQueue.visibilityTimeoutSeconds,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: resources.syncQueue.maxReceiveCount },
      SqsManagedSseEnabled: true,
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: `his-dev-${resources.syncDeadLetterQueue.name}`,
      MessageRetentionPeriod: resources.syncDeadLetterQueue.retentionSeconds,
    });
  });

  test('the events topic is encrypted', () => {
    template.hasResourceProperties('AWS::SNS::Topic', {
      TopicName: `his-dev-${resources.eventsTopic.name}`,
      KmsMasterKeyId: Match.anyValue(),
    });
  });
});

describe('alarms', () => {
  const alarms = () => resourcesOfType(json(), 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);

  test('DLQ depth: any visible message', () => {
    const [alarm] = alarms().filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible');
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SQS',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [expect.anything()],
    });
    expect(JSON.stringify(alarm.Dimensions)).toContain('SyncDeadLetterQueue');
  });

  test('API 5xx rate and authorizer failures', () => {
    const api = alarms().find((a) => JSON.stringify(a.Metrics ?? []).includes('5XXError'));
    expect(api).toMatchObject({ Threshold: API_5XX_PERCENT_THRESHOLD, ComparisonOperator: 'GreaterThanThreshold' });
    expect(JSON.stringify(api.Metrics)).toContain('"MetricName":"Count"');
    const authorizer = alarms().find((a) => JSON.stringify(a.Metrics ?? []).includes('AuthorizerDenials'));
    expect(authorizer).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    expect(JSON.stringify(authorizer.Metrics)).toContain(`"Ref":"${authorizerFunctionId()}"`);
  });
});

test('cdk-nag AwsSolutions reports no unacknowledged finding, not even a warning', () => {
  // An error would already have failed the synthesis in beforeAll; warnings only show in the report.
  const file = join(synthesized.assembly.directory, 'validation-report.json');
  const reports: any[] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).pluginReports : [];
  const violations = reports.filter((r) => r.pluginName === 'AwsSolutions').flatMap((r) => r.violations);
  expect(violations.map((v) => `${v.ruleName}: ${v.violatingConstructs.map((c: any) => c.constructPath).join(', ')}`)).toEqual([]);
});
