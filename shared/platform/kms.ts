/**
 * What the service uses of KMS, in a module of its own so that it can be imported on first use (P288): a
 * dynamic `import()` of the package itself would keep all of its commands' schemas in the bundle, an import of
 * this module keeps only these (the shapes of the two commands secrets.ts sends).
 */
export { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
