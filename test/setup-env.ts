// Quiet service logs in tests unless asked for; tests that need logs set LOG_LEVEL themselves.
process.env.LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_DEV ??= 'false';
