import { traceAtsCalls, traced } from '#delivery/ats-tracing.js';
import { submitConnectForm } from '#http/connect-page.js';
import { page } from '#http/pages.js';

// The credentials check calls the ATS: each call is an X-Ray subsegment named by the ATS.
traceAtsCalls();

export const handler = traced('ConnectSubmit', page('ConnectSubmit', submitConnectForm));
