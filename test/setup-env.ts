// Quiet service logs in tests unless asked for; tests that need logs set LOG_LEVEL themselves.
process.env.LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_DEV ??= 'false';
// The worker's own DynamoDB Local among the run's (test/support/global-setup.mjs, P251); the commands a test
// spawns inherit it.
const endpoints = (process.env.DYNAMODB_LOCAL_ENDPOINTS ?? '').split(',').filter(Boolean);
if (endpoints.length) process.env.DYNAMODB_LOCAL_ENDPOINT = endpoints[(Number(process.env.JEST_WORKER_ID ?? 1) - 1) % endpoints.length];
// Connector pacing as deployed (P366): a test file whose simulators have no per-second limit may set
// ATS_PACING_SCALE=0 (`withoutPacing()`); every file starts without it, whatever the worker's last file set.
delete process.env.ATS_PACING_SCALE;
