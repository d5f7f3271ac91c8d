import { externalApplyRedirect } from '#http/external-apply-page.js';
import { page } from '#http/pages.js';

export const handler = page('ExternalApplyRedirect', externalApplyRedirect);
