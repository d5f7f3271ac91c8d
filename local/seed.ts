/** Demo data for a new local data directory: a partner, a company on the sandbox ATS, keys and jobs. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiKey } from '#companies/api-keys.js';
import { createChannel } from '#applications/channels.js';
import { createCompany } from '#companies/company-store.js';
import { importJobs } from '#jobs/job-store.js';
import type { JobInput } from '#jobs/job-schema.js';
import { setSandboxAts } from '#delivery/connectors/sandbox.js';
import { createPartner } from '#companies/partners.js';

export interface Demo {
  partnerId: number;
  companyId: number;
  partnerKey: string;
  companyKey: string;
}

const DEMO_FILE = 'demo.json';

export const demoJobs = [
  {
    external_id: 'demo-1001',
    title: 'Senior Backend Engineer (TypeScript)',
    description: 'Build the APIs our partners integrate with.',
    posting_url: 'https://careers.example.com/jobs/demo-1001',
    application_url: 'https://careers.example.com/jobs/demo-1001/apply',
    application_email: 'jobs@example.com',
    remote: 'hybrid',
    language: 'en',
    category: 'software_development',
    employment_type: 'permanent',
    work_schedule: 'full_time',
    senority: 'senior',
    location_name: 'Berlin, Germany',
    city: 'Berlin',
    country: 'DE',
    salary_from: 70000,
    salary_to: 90000,
    salary_currency: 'EUR',
    salary_frequency: 'annual',
    description_sections: [
      { id: 'tasks', type: 'responsibilities', order: 1, title: 'What you will do', content: 'Design and run services.' },
      { id: 'profile', type: 'requirements', order: 2, title: 'What you bring', content: 'TypeScript and AWS.' },
    ],
    screening_questions: [
      { id: 'q1', question: 'Do you have a work permit for the EU?', answer_type: 'boolean', required: true, options: [] },
    ],
  },
  {
    external_id: 'demo-1002',
    title: 'Customer Success Manager',
    remote: 'on-site',
    language: 'de',
    category: 'customer_service_support',
    employment_type: 'permanent',
    work_schedule: 'full_time',
    senority: 'mid_level',
    city: 'Hamburg',
    country: 'DE',
  },
  {
    external_id: 'demo-1003',
    title: 'Working Student Data Analytics',
    remote: 'remote',
    language: 'en',
    category: 'data_analytics',
    employment_type: 'working_student',
    work_schedule: 'part_time',
    senority: 'unexperienced',
    city: 'Munich',
    country: 'DE',
  },
  {
    external_id: 'closed-1004',
    title: 'Office Manager (position filled in the ATS)',
    remote: 'on-site',
    language: 'de',
    category: 'administration',
    employment_type: 'permanent',
    work_schedule: 'full_time',
    city: 'Cologne',
    country: 'DE',
  },
];

export async function seedDemo(dataDir: string): Promise<Demo> {
  const partner = await createPartner('Demo Partner', 'job_board');
  const company = await createCompany({
    partner: partner.id,
    name: 'Demo Company',
    ats: 'sandbox',
    status: 'active',
    partner_company_id: 'demo-company',
    entitlements: ['job_sync', 'candidate_sync', 'email_fallback'],
    is_test: true,
    contact_email: 'hiring@demo-company.example',
  });
  const partnerKey = await createApiKey({ partner: partner.id });
  const companyKey = await createApiKey({ company: company.id });
  await createChannel({ slug: 'demo-board', name: 'Demo Job Board', logo: 'https://demo-board.example/logo.png' });
  await importJobs(company.id, demoJobs);
  // The sandbox ATS publishes the same jobs, so the scheduled job import (D14) finds them unchanged.
  await setSandboxAts(company.id, { feed: demoJobs as JobInput[] });
  const demo: Demo = { partnerId: partner.id, companyId: company.id, partnerKey: partnerKey.key, companyKey: companyKey.key };
  // Local demo only: the keys are kept so a restart can print the curl again.
  writeFileSync(join(dataDir, DEMO_FILE), JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

export function readDemo(dataDir: string): Demo | undefined {
  const file = join(dataDir, DEMO_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Demo) : undefined;
}
