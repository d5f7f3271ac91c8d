/**
 * Builds the CDK app: the stage's stack with cdk-nag's AwsSolutions checks attached as a policy-validation
 * plugin (cdk-nag 3 reports through the validation report; its Aspects form fails at synth). The CLI entry
 * point and the tests build the app through this one function.
 */
import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack, type ServiceStackProps } from './service-stack.js';
import { ATS_URL_CONTEXT, contextFlag, stageConfig } from './stage-config.js';

export interface ServiceApp {
  app: App;
  stack: ServiceStack;
}

export function createServiceApp(props: AppProps = {}, stackProps: Partial<Omit<ServiceStackProps, 'stage'>> = {}): ServiceApp {
  const app = new App(props);
  const stage = stageConfig(String(app.node.tryGetContext('stage') ?? 'dev'), {
    waf: contextFlag(app.node.tryGetContext('waf')),
    largeBodies: contextFlag(app.node.tryGetContext('largeBodies')),
    emailFrom: app.node.tryGetContext('emailFrom') as string | undefined,
    atsUrls: Object.fromEntries(Object.keys(ATS_URL_CONTEXT).map((name) => [name, app.node.tryGetContext(name) as unknown])),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const stack = new ServiceStack(app, `HiringIntegration-${stage.name}`, {
    stage,
    description: `Hiring Integration Service (${stage.name})`,
    // No env: the template is environment-agnostic (pseudo parameters), nothing in it is looked up, and
    // offline synth does not pin it to whatever region the CLI guessed; `cdk deploy` chooses the target.
    tags: { service: 'hiring-integration-service', stage: stage.name },
    ...stackProps,
  });
  return { app, stack };
}
