/**
 * The AwsSolutions findings we accept, each with its reason (cdk-nag 3 acknowledges through CDK's
 * `Validations.of(construct).acknowledge`, the successor of `NagSuppressions`). Findings are acknowledged
 * one by one, on the narrowest construct, so a new finding of the same rule elsewhere still fails synth.
 * Findings that follow from a grant or a function default are acknowledged where that grant is made
 * (ServiceData.grant, ServiceFunction); the rest are here.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { ServiceApi } from './service-api.js';
import type { ServiceData } from './service-data.js';

function acknowledge(construct: IConstruct, id: string, reason: string): void {
  Validations.of(construct).acknowledge({ id, reason });
}

/** `stack` is the service stack; only the parts it acknowledges findings on are named, so no import runs back to it. */
export function applyNagSuppressions(stack: { api: ServiceApi; data: ServiceData }): void {
  const restApi = stack.api.api;
  acknowledge(
    restApi,
    'AwsSolutions-APIG2',
    'Requests are validated in each function against the ajv schemas, so that errors name the field in the D2 shape; a gateway request validator would answer in its own shape.',
  );
  acknowledge(
    restApi,
    'AwsSolutions-COG4',
    'Partners authenticate with API keys (D16) checked by the Lambda REQUEST authorizer; there are no Cognito users.',
  );
  acknowledge(
    restApi.node.findChild('CloudWatchRole'),
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    "The account's API Gateway logging role; AmazonAPIGatewayPushToCloudWatchLogs is the policy API Gateway documents for it.",
  );
  acknowledge(
    stack.data.cursorSecret,
    'AwsSolutions-SMG4',
    'The cursor secret is resolved into the functions at deploy time; rotating it would silently invalidate every outstanding next link, so it changes only by redeploying with a new secret.',
  );
}
