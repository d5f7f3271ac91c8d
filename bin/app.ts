/** CDK entry point: `npx cdk synth -c stage=dev|prod [-c waf=true]` (the app reads its context itself). */
import { createServiceApp } from '../lib/service-app.js';

createServiceApp();
