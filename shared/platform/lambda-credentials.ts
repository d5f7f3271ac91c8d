/**
 * The credential provider of every bundled function (docs/decisions.md, P137). The bundler puts this module
 * in place of `@aws-sdk/credential-provider-node` (`alias` in lib/function-bundle.ts), whose default chain
 * (environment, SSO, shared ini files, credential process, web identity, container and instance metadata)
 * brings the SSO, SSO-OIDC, STS and sign-in clients into every bundle: about 135 kB of the 370 kB authorizer.
 * On Lambda the chain always ends at its first link, because the runtime hands the execution role's
 * credentials over in `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`; this is that
 * link alone, the SDK's own `fromEnv`. Nothing imports it directly, and code run from source (tests, the
 * local runtime, the admin tool) keeps the full chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** Same signature as `@aws-sdk/credential-provider-node`'s `defaultProvider`, which the SDK clients call. */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
