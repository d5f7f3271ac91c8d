/**
 * The REST API: resources and methods generated from the route table, one function per route, the
 * REQUEST authorizer in front of all of them, gateway responses in the D2 shape, stage throttling, a usage
 * plan, access logs, X-Ray, and optionally a WAF web ACL.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  RequestAuthorizer,
  RestApi,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { SECURITY_HEADERS } from '#http/response-headers.js';
import { allRoutes, canonicalPath, type RouteDefinition } from '#http/routes.js';
import { gatewayResponses, responseTemplate } from './gateway-responses.js';
import { BINARY_MEDIA_TYPES, bodyLimitRules } from './lambda-body-limits.js';
import type { ServiceData } from './service-data.js';
import { ServiceFunction } from './service-function.js';
import type { StageConfig } from './stage-config.js';

export { BINARY_MEDIA_TYPES };

export interface ServiceApiProps {
  stage: StageConfig;
  data: ServiceData;
  routes?: readonly RouteDefinition[];
}

export class ServiceApi extends Construct {
  /** The gateway's own address with the stage and no trailing slash, e.g. `https://<id>.execute-api.<region>.amazonaws.com/dev`. */
  stageUrl(): string {
    const stack = Stack.of(this);
    return `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${this.stageName}`;
  }

  readonly api: RestApi;
  readonly authorizerFunction: ServiceFunction;
  readonly routeFunctions = new Map<string, ServiceFunction>();
  private readonly stageName: string;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const { stage, data } = props;
    this.stageName = stage.name;

    this.authorizerFunction = new ServiceFunction(this, 'AuthorizerFunction', {
      handlerModule: 'authorizer',
      stage,
      description: 'REQUEST authorizer: API key to principal (D3, D16)',
      timeout: Duration.seconds(5),
    });
    data.grant(this.authorizerFunction, { table: 'authorize' });

    const authorizer = new RequestAuthorizer(this, 'Authorizer', {
      handler: this.authorizerFunction,
      // A request without the header is refused by the gateway (401) without invoking the function.
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: stage.authorizerCacheTtl,
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: stage.logRetention, removalPolicy: stage.removalPolicy });
    this.api = new RestApi(this, 'Api', {
      restApiName: `${stage.prefix}-api`,
      description: 'Hiring Integration Service',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      binaryMediaTypes: BINARY_MEDIA_TYPES,
      // Execution logging (below) needs the account's API Gateway CloudWatch role.
      cloudWatchRole: true,
      // The role is account-wide (one per account and region): tearing down a dev stack must not take it from prod.
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: stage.name,
        tracingEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        throttlingRateLimit: stage.throttle.rateLimit,
        throttlingBurstLimit: stage.throttle.burstLimit,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            extendedRequestId: AccessLogField.contextExtendedRequestId(),
            ip: AccessLogField.contextIdentitySourceIp(),
            requestTime: AccessLogField.contextRequestTime(),
            method: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            status: AccessLogField.contextStatus(),
            responseLength: AccessLogField.contextResponseLength(),
            responseLatency: AccessLogField.contextResponseLatency(),
            principalId: AccessLogField.contextAuthorizerPrincipalId(),
            authorizerError: AccessLogField.contextAuthorizerError(),
            integrationLatency: AccessLogField.contextIntegrationLatency(),
            errorType: AccessLogField.contextErrorResponseType(),
            errorMessage: AccessLogField.contextErrorMessage(),
            xrayTraceId: AccessLogField.contextXrayTraceId(),
          }),
        ),
      },
      defaultMethodOptions: { authorizer, authorizationType: AuthorizationType.CUSTOM },
    });

    for (const definition of gatewayResponses) {
      this.api.addGatewayResponse(definition.id, {
        type: definition.type,
        ...(definition.statusCode ? { statusCode: definition.statusCode } : {}),
        responseHeaders: {
          ...Object.fromEntries(
            Object.entries({ ...SECURITY_HEADERS, ...definition.headers }).map(([name, value]) => [name, `'${value}'`]),
          ),
          // D2: every response names its request, also those the gateway gives itself.
          'X-Request-Id': 'context.requestId',
        },
        templates: { 'application/json': responseTemplate(definition) },
      });
    }

    for (const route of props.routes ?? allRoutes) this.addRoute(route, stage, data);
    for (const [path, methods] of this.methodsByPath) this.addMethodNotAllowed(path, methods);

    this.api.addUsagePlan('UsagePlan', {
      name: `${stage.prefix}-default`,
      description: 'Stage-wide limits; per-partner plans need the authorizer to return a usageIdentifierKey',
      throttle: stage.throttle,
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });

    this.addWebAcl(stage);
  }

  /**
   * One resource per canonical path: API Gateway REST resources cannot have an empty path part, so
   * `/jobs/` cannot be a resource of its own, and the gateway routes `/jobs/` to the `/jobs` resource.
   * Both spellings of `pathVariants()` therefore reach the same method and function.
   */
  private readonly methodsByPath = new Map<string, string[]>();

  private addRoute(route: RouteDefinition, stage: StageConfig, data: ServiceData): void {
    const fn = new ServiceFunction(this, `${route.id}Function`, {
      handlerModule: route.handler,
      stage,
      description: `${route.id}: ${route.method} ${route.path}`,
      // Behind the large-body ingest's CloudFront, links are built on the host partners called (P274).
      ...(stage.largeBodies ? { environment: { VIEWER_HOST_FROM_CLOUDFRONT: 'true' } } : {}),
    });
    data.grant(fn, route.access);
    this.routeFunctions.set(route.id, fn);
    const resource: IResource = this.api.root.resourceForPath(canonicalPath(route.path));
    // The invoke permission is scoped to this method; the console's test-invoke permission is not wanted.
    const method = resource.addMethod(route.method, new LambdaIntegration(fn, { allowTestInvoke: false }), {
      operationName: route.id,
      // D20: the public pages have no authorizer; the connect page's token is its only authority.
      ...(route.public ? { authorizationType: AuthorizationType.NONE } : {}),
    });
    if (route.public) {
      for (const id of ['AwsSolutions-APIG4', 'AwsSolutions-COG4'])
        Validations.of(method).acknowledge({
          id,
          reason:
            route.id === 'ApplyWebhook'
              ? `${route.id} is where job boards post applications (issue 23): the apply token of the URL (an HMAC, revocable per channel) and the channel's signature over the body are checked by the function.`
              : route.id === 'AtsWebhook'
                ? `${route.id} is where Greenhouse and Lever send their webhooks (issue 43, P310): the random token of the URL and the vendor's signature are checked by the function.`
                : `${route.id} is a public page (D20): the connect page checks its magic-link token itself (one use, expiring, rate-limited); the API reference is public documentation.`,
        });
    }
    const path = canonicalPath(route.path);
    this.methodsByPath.set(path, [...(this.methodsByPath.get(path) ?? []), route.method]);
  }

  /**
   * Any other method on a known path: a 405 with `Allow` in the D2 shape, answered by the gateway itself
   * (a mock integration, no function, no authorizer: it reveals only what the route table publishes).
   */
  private addMethodNotAllowed(path: string, methods: string[]): void {
    const allow = methods.join(', ');
    const method = this.api.root.resourceForPath(path).addMethod(
      'ANY',
      new MockIntegration({
        requestTemplates: { 'application/json': '{"statusCode": 405}' },
        passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
        integrationResponses: [
          {
            statusCode: '405',
            responseTemplates: {
              'application/json': '{"detail": "Method \\"$context.httpMethod\\" is not allowed here.", "code": "method_not_allowed"}',
            },
            responseParameters: {
              'method.response.header.Allow': `'${allow}'`,
              'method.response.header.Content-Type': "'application/json'",
              'method.response.header.X-Request-Id': 'context.requestId',
              ...Object.fromEntries(
                Object.entries(SECURITY_HEADERS).map(([name, value]) => [`method.response.header.${name}`, `'${value}'`]),
              ),
            },
          },
        ],
      }),
      {
        authorizationType: AuthorizationType.NONE,
        operationName: `MethodNotAllowed${path.replace(/[^A-Za-z0-9]/g, '')}`,
        methodResponses: [
          {
            statusCode: '405',
            responseParameters: {
              'method.response.header.Allow': true,
              'method.response.header.Content-Type': true,
              'method.response.header.X-Request-Id': true,
              ...Object.fromEntries(Object.keys(SECURITY_HEADERS).map((name) => [`method.response.header.${name}`, true])),
            },
          },
        ],
      },
    );
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'The 405 answer for methods a path does not offer: a mock integration that reaches no function and returns only the Allow list, which the route table publishes anyway.',
    });
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-COG4',
      reason: 'Same 405 mock method: no authorization because nothing behind it is protected.',
    });
  }

  /**
   * Always: the body-size rules that answer bodies the Lambda path cannot take with a 413 (lambda-body-limits.ts).
   * With `-c waf=true`: the AWS managed rule groups after them.
   */
  private addWebAcl(stage: StageConfig): void {
    const managedRule = (name: string, priority: number, excluded: string[] = []) => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          // Counted, not blocked: rules whose limits contradict the API contract (8 KB bodies vs attachments).
          ...(excluded.length ? { ruleActionOverrides: excluded.map((rule) => ({ name: rule, actionToUse: { count: {} } })) } : {}),
        },
      },
      visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: name },
    });
    const bodyLimits = bodyLimitRules(0);
    const next = bodyLimits.rules.length;
    const acl = new CfnWebACL(this, 'WebAcl', {
      name: `${stage.prefix}-api`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: `${stage.prefix}-api` },
      customResponseBodies: bodyLimits.bodies,
      rules: [
        ...bodyLimits.rules,
        ...(stage.waf
          ? [
              managedRule('AWSManagedRulesAmazonIpReputationList', next),
              managedRule('AWSManagedRulesCommonRuleSet', next + 1, ['SizeRestrictions_BODY']),
              managedRule('AWSManagedRulesKnownBadInputsRuleSet', next + 2),
            ]
          : []),
      ],
    });
    new CfnWebACLAssociation(this, 'WebAclAssociation', {
      resourceArn: this.api.deploymentStage.stageArn,
      webAclArn: acl.attrArn,
    });
  }
}
