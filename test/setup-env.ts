// Quiet service logs in tests unless asked for; tests that need logs set LOG_LEVEL themselves.
process.env.LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_DEV ??= 'false';
// The worker's own DynamoDB Local among the run's (test/support/global-setup.mjs, P251); the commands a test
// spawns inherit it.
const endpoints = (process.env.DYNAMODB_LOCAL_ENDPOINTS ?? '').split(',').filter(Boolean);
if (endpoints.length) process.env.DYNAMODB_LOCAL_ENDPOINT = endpoints[(Number(process.env.JEST_WORKER_ID ?? 1) - 1) % endpoints.length];
