/**
 * What differs between stages. Everything else is the same on every stage, so that dev exercises the
 * configuration prod runs.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ConnectorDescriptor } from '#delivery/connectors/connector.js';
import { connectorSettings, connectors } from '#delivery/connectors/registry.js';

export type StageName = 'dev' | 'prod';

export interface StageConfig {
  name: StageName;
  /** Prefix of every physical name, so that both stages can live in one account. */
  prefix: string;
  /** Prod keeps its data when the stack or a resource is deleted; dev can be torn down and rebuilt. */
  retainData: boolean;
  removalPolicy: RemovalPolicy;
  logRetention: RetentionDays;
  logLevel: 'DEBUG' | 'INFO' | 'WARN';
  /** Stage-wide throttle; the usage plan repeats it so per-client plans can later be cut from it. */
  throttle: { rateLimit: number; burstLimit: number };
  /** API Gateway caches the authorizer's answer per Authorization header for this long (D16: revocation delay). */
  authorizerCacheTtl: Duration;
  waf: boolean;
  /**
   * Issue 15 (`-c largeBodies=true`): the container ingest on ECS Fargate behind an internal ALB, and a CloudFront
   * distribution in front of the whole API that sends `/applications*` there (bodies up to the spec's 27.5 MB).
   */
  largeBodies: boolean;
  /** Sender of the e-mail fallback (D12); must be an SES-verified identity in the target account. */
  emailFrom: string;
  /**
   * Where the ATSs are, from the context values the connector registry declares (`greenhouseApiUrl`, …, one
   * per connector setting; for the day a region needs another host); unset ones keep the connectors' real
   * defaults. By environment variable.
   */
  atsUrls: Record<string, string>;
}

/** The context value that sets each ATS base URL (context key → environment variable), from the registry. */
export function atsUrlContext(registry: readonly ConnectorDescriptor[] = connectors): Readonly<Record<string, string>> {
  return Object.fromEntries(connectorSettings(registry).map((s) => [s.context, s.env]));
}
export const ATS_URL_CONTEXT = atsUrlContext();

export function stageConfig(
  name: string,
  options: { waf?: boolean; largeBodies?: boolean; emailFrom?: string; atsUrls?: Record<string, unknown> } = {},
): StageConfig {
  if (name !== 'dev' && name !== 'prod') throw new Error(`unknown stage "${name}": use -c stage=dev or -c stage=prod`);
  const prod = name === 'prod';
  return {
    name,
    prefix: `his-${name}`,
    retainData: prod,
    removalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    logRetention: prod ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS,
    logLevel: prod ? 'INFO' : 'DEBUG',
    throttle: prod ? { rateLimit: 500, burstLimit: 1000 } : { rateLimit: 50, burstLimit: 100 },
    authorizerCacheTtl: Duration.seconds(300),
    waf: options.waf ?? false,
    largeBodies: options.largeBodies ?? false,
    emailFrom: options.emailFrom ?? 'applications@hiring-integration.invalid',
    atsUrls: atsUrls(options.atsUrls ?? {}),
  };
}

/** Context values arrive as strings from `-c key=value` and as JSON values from cdk.json. */
export function contextFlag(value: unknown): boolean {
  return value === true || value === 'true' || value === '1';
}

function atsUrls(context: Record<string, unknown>): StageConfig['atsUrls'] {
  const urls: StageConfig['atsUrls'] = Object.create(null) as StageConfig['atsUrls'];
  for (const [name, variable] of Object.entries(ATS_URL_CONTEXT)) {
    const value = context[name];
    if (value === undefined || value === null || value === '') continue;
    const probe = String(value).replace(/\{[a-z_]+\}/g, 'x');
    if (!/^https?:\/\//.test(probe) || !URL.canParse(probe))
      throw new Error(`context value ${name} must be an http(s) URL, got "${String(value)}"`);
    urls[variable] = String(value);
  }
  return urls;
}
