/** The job category list (seeds/categories.json) is the interface's: its 39 names, in any order, with `Other` apart. */
import test from 'ava'
import categories from '../seeds/categories.json' with { type: 'json' }

const SPEC_CATEGORIES = [
  'Accounting, Payroll & Financial Planning Jobs',
  'Administration Jobs',
  'Arts and Design Jobs',
  'Banking Jobs',
  'Business Development Jobs',
  'Business Operations & Strategy Jobs',
  'Community and Social Services Jobs',
  'Consulting Jobs',
  'Culinary Jobs',
  'Customer Support & Success Jobs',
  'Data Analyst Jobs',
  'Driver and Delivery Jobs',
  'Education Jobs',
  'Engineering Jobs',
  'Finance Jobs',
  'Healthcare Services Jobs',
  'Hospitality Jobs',
  'Human Resources Jobs',
  'IT Support Jobs',
  'Information Technology Jobs',
  'Insurance Jobs',
  'Legal Jobs',
  'Marketing Jobs',
  'Media and Communication Jobs',
  'Operations Jobs',
  'Product Jobs',
  'Project & Program Management Jobs',
  'Purchasing Jobs',
  'Quality Assurance Jobs',
  'Real Estate Jobs',
  'Recruitment Jobs',
  'Research Jobs',
  'Retail Jobs',
  'Risk and Compliance Jobs',
  'Sales Jobs',
  'Security Engineer Jobs',
  'Skilled Trade Jobs',
  'Software Engineer Jobs',
  'Support Engineer Jobs',
]

test('the reference categories are the 39 the interface names, Other apart', (t) => {
  t.deepEqual([...categories].sort(), SPEC_CATEGORIES)
  t.false(categories.includes('Other'), 'Other is a tag records may carry, added beside the list')
})
