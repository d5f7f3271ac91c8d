import { showConnectPage } from '#http/connect-page.js';
import { page } from '#http/pages.js';

export const handler = page('ConnectPage', showConnectPage);
