/**
 * Word lists for synthetic company names and profiles. Names are combinatorial
 * ("Northwind Analytics", "Bluefin Logistics", "Harper & Vance LLP") so that thousands of
 * distinct, plausible companies come out of a few hundred words.
 */

export const namePrefixes = [
  'Northwind', 'Bluefin', 'Cedar', 'Ironclad', 'Silverline', 'Brightwater', 'Redwood', 'Summit', 'Harbor', 'Keystone',
  'Lumen', 'Vertex', 'Copperleaf', 'Evergreen', 'Granite', 'Horizon', 'Juniper', 'Kestrel', 'Lakeshore', 'Meridian',
  'Nimbus', 'Oakridge', 'Pinnacle', 'Quartz', 'Riverbend', 'Sequoia', 'Tidewater', 'Upland', 'Vantage', 'Willow',
  'Aster', 'Beacon', 'Cobalt', 'Driftwood', 'Ember', 'Foxglove', 'Glacier', 'Hollow Oak', 'Indigo', 'Jasper',
  'Kinetic', 'Larkspur', 'Magnolia', 'Northstar', 'Onyx', 'Parallel', 'Quill', 'Rosewood', 'Sable', 'Tamarack',
  'Umber', 'Velvet', 'Westfield', 'Yellowstone', 'Zephyr', 'Alder', 'Brookside', 'Crestview', 'Dovetail', 'Eastgate',
  'Fairhaven', 'Greystone', 'Highland', 'Ironwood', 'Kingsley', 'Lighthouse', 'Maple', 'Nova', 'Orchard', 'Pioneer',
  'Radiant', 'Saltmarsh', 'Thornbury', 'Unity', 'Valiant', 'Whitecap', 'Acorn', 'Bramble', 'Canopy', 'Delta',
  'Everest', 'Falcon', 'Gable', 'Heron', 'Isle', 'Kite', 'Lattice', 'Mosaic', 'Nettle', 'Osprey',
  'Prairie', 'Rampart', 'Solstice', 'Trellis', 'Vesper', 'Wren', 'Arbor', 'Bolt', 'Clearwater', 'Dune',
  'Elm Street', 'Fjord', 'Goldcrest', 'Hearth', 'Ivory', 'Kiln', 'Linden', 'Mariner', 'Nautilus', 'Obsidian',
  'Pebble', 'Rook', 'Sparrow', 'Terra', 'Vale', 'Wayfarer', 'Atlas', 'Bastion', 'Cypress', 'Drumlin',
  'Equinox', 'Fernhill', 'Gulfstream', 'Halcyon', 'Ironbridge', 'Lodestar', 'Millbrook', 'Newbridge', 'Oasis', 'Polaris',
  'Quarry', 'Ridgeline', 'Stonebridge', 'Thistle', 'Verdant', 'Windward', 'Amber', 'Birch', 'Corvid', 'Dawnlight',
  'Elevate', 'Flint', 'Greenleaf', 'Hawthorn', 'Inlet', 'Keel', 'Longview', 'Moraine', 'Nightingale', 'Outpost',
  'Pelican', 'Rowan', 'Sundial', 'Tallgrass', 'Waypoint', 'Anchor', 'Blue Ridge', 'Coral', 'Deepwell', 'Emberly',
]

export const surnames = [
  'Harper', 'Vance', 'Whitaker', 'Sterling', 'Holloway', 'Prescott', 'Langford', 'Mercer', 'Calloway', 'Thornton',
  'Ashby', 'Bennett', 'Carrington', 'Donovan', 'Ellison', 'Fairbanks', 'Garrison', 'Hale', 'Ingram', 'Kendall',
  'Lockhart', 'Montgomery', 'Norwood', 'Osborne', 'Pemberton', 'Radcliffe', 'Sinclair', 'Templeton', 'Underwood', 'Wainwright',
  'Okafor', 'Nakamura', 'Kowalski', 'Lindqvist', 'Moreau', 'Castellano', 'Patel', 'Iyer', 'Schneider', 'Novak',
  'Adeyemi', 'Brennan', 'Chen', 'Duarte', 'Fischer', 'Gallagher', 'Haddad', 'Jensen', 'Kaur', 'Larsen',
]

/** Per industry: name nouns, service phrases, and the mission clause for description_summary. */
export const industryVocab: Record<string, { nouns: string[]; services: string[]; does: string[] }> = {
  'Tech, Software & IT Services': {
    nouns: ['Analytics', 'Labs', 'Systems', 'Software', 'Cloud', 'AI', 'Data', 'Networks', 'Digital', 'Technologies', 'Stack', 'Logic', 'Compute', 'Signal'],
    services: ['Cloud infrastructure', 'Data platform', 'Machine learning APIs', 'Developer tools', 'Cybersecurity monitoring', 'Managed IT services', 'SaaS workflow automation', 'Mobile app development', 'Payments infrastructure', 'Observability'],
    does: ['builds software that helps teams move faster', 'turns messy data into decisions', 'makes cloud infrastructure simple and secure', 'builds developer tools used by thousands of engineering teams', 'helps businesses automate repetitive work'],
  },
  'Transportation & Logistics': {
    nouns: ['Logistics', 'Freight', 'Transport', 'Shipping', 'Carriers', 'Express', 'Haulage', 'Supply Co', 'Fleet', 'Couriers'],
    services: ['Freight forwarding', 'Last-mile delivery', 'Warehousing', 'Truckload shipping', 'Cold-chain logistics', 'Customs brokerage', 'Fleet management', 'Intermodal transport'],
    does: ['moves goods reliably across the country', 'runs a modern last-mile delivery network', 'keeps supply chains moving for retailers and manufacturers', 'connects shippers with carriers in real time'],
  },
  'Retail & Wholesale': {
    nouns: ['Market', 'Goods', 'Outfitters', 'Supply', 'Trading Co', 'Mercantile', 'Stores', 'Emporium', 'Provisions', 'Wholesale'],
    services: ['Grocery retail', 'Online store', 'Wholesale distribution', 'Home goods', 'Apparel retail', 'Consumer electronics retail', 'Click-and-collect', 'Private-label products'],
    does: ['runs neighborhood stores and a fast-growing online shop', 'supplies independent retailers with quality goods', 'makes everyday shopping easy and affordable', 'brings curated products to customers in-store and online'],
  },
  'Recreation & Travel': {
    nouns: ['Travel', 'Hotels', 'Resorts', 'Journeys', 'Adventures', 'Hospitality', 'Getaways', 'Inns', 'Expeditions'],
    services: ['Boutique hotels', 'Guided tours', 'Travel booking', 'Resort management', 'Outdoor adventures', 'Corporate travel', 'Event venues', 'Vacation rentals'],
    does: ['creates memorable trips for travelers around the world', 'operates boutique hotels and resorts', 'runs outdoor adventures and guided experiences', 'helps companies plan seamless business travel'],
  },
  'Real Estate': {
    nouns: ['Properties', 'Realty', 'Estates', 'Living', 'Residential', 'Land Co', 'Homes', 'Capital Partners', 'Property Group'],
    services: ['Residential leasing', 'Property management', 'Commercial brokerage', 'Real estate investment', 'Student housing', 'Land development', 'Appraisal and valuation'],
    does: ['manages apartment communities across the region', 'helps families buy and sell homes', 'invests in and operates commercial properties', 'develops sustainable mixed-use neighborhoods'],
  },
  'Public Safety': {
    nouns: ['Safety Services', 'Emergency Services', 'Rescue', 'Response', 'Protective Services', 'Security'],
    services: ['Emergency medical services', 'Fire protection', 'Emergency dispatch', 'Public safety training', 'Search and rescue', 'Community safety programs'],
    does: ['keeps communities safe with rapid emergency response', 'trains first responders and public safety professionals', 'provides ambulance and emergency medical services'],
  },
  'Public Administration': {
    nouns: ['County Services', 'Municipal Authority', 'Public Services', 'Regional Authority', 'Development Agency', 'Administration'],
    services: ['Public services', 'Urban planning', 'Permitting and licensing', 'Social services administration', 'Public health programs', 'Infrastructure planning'],
    does: ['delivers public services to residents of the region', 'plans and funds infrastructure for growing communities', 'administers social and economic development programs'],
  },
  Nonprofit: {
    nouns: ['Foundation', 'Alliance', 'Trust', 'Fund', 'Collective', 'Initiative', 'Society', 'Project', 'Coalition'],
    services: ['Community programs', 'Youth development', 'Housing assistance', 'Food security programs', 'Advocacy', 'Scholarships', 'Disaster relief', 'Conservation'],
    does: ['works to expand opportunity in underserved communities', 'supports young people through mentoring and education', 'protects wildlife and natural places', 'provides housing and support services to families in need'],
  },
  'Media & Communications': {
    nouns: ['Media', 'Studios', 'Broadcasting', 'Publishing', 'Communications', 'Press', 'Radio', 'Networks', 'Content Co'],
    services: ['Digital publishing', 'Broadcast television', 'Podcast production', 'Advertising sales', 'Telecommunications', 'Branded content', 'Events and conferences'],
    does: ['tells stories that millions of people read, watch and hear', 'runs a network of digital publications', 'produces podcasts and video for global audiences', 'connects homes and businesses with fast, reliable networks'],
  },
  Manufacturing: {
    nouns: ['Manufacturing', 'Industries', 'Fabrication', 'Components', 'Works', 'Machining', 'Precision', 'Materials', 'Products'],
    services: ['Precision machining', 'Contract manufacturing', 'Injection molding', 'Metal fabrication', 'Electronics assembly', 'Industrial automation', 'Packaging production'],
    does: ['makes precision components for aerospace and automotive customers', 'manufactures industrial equipment used around the world', 'produces sustainable packaging at scale', 'builds electronics for medical and industrial markets'],
  },
  Legal: {
    nouns: ['LLP', 'Law Group', 'Legal', 'Attorneys', 'Law'],
    services: ['Corporate law', 'Litigation', 'Employment law', 'Intellectual property', 'Immigration law', 'Real estate law', 'Estate planning'],
    does: ['advises companies and individuals on complex legal matters', 'is a full-service business law firm', 'represents clients in high-stakes litigation', 'helps families with immigration and estate planning'],
  },
  Healthcare: {
    nouns: ['Health', 'Medical', 'Care', 'Clinics', 'Therapeutics', 'Biosciences', 'Health Partners', 'Medical Group', 'Diagnostics', 'Pharma'],
    services: ['Primary care', 'Home health care', 'Telemedicine', 'Diagnostic imaging', 'Clinical research', 'Behavioral health', 'Physical therapy', 'Drug development'],
    does: ['delivers high-quality care close to home', 'develops therapies for patients with serious diseases', 'runs a network of outpatient clinics', 'makes healthcare more accessible through virtual care'],
  },
  Finance: {
    nouns: ['Capital', 'Financial', 'Bank', 'Partners', 'Investments', 'Wealth', 'Credit Union', 'Lending', 'Pay', 'Insurance', 'Asset Management'],
    services: ['Commercial banking', 'Wealth management', 'Consumer lending', 'Payment processing', 'Insurance', 'Investment management', 'Mortgage lending', 'Treasury services'],
    does: ['helps people and businesses manage money with confidence', 'provides banking and lending to local businesses', 'builds modern payment infrastructure', 'manages long-term investments for institutions and families'],
  },
  Entertainment: {
    nouns: ['Entertainment', 'Pictures', 'Games', 'Studios', 'Live', 'Records', 'Productions', 'Interactive', 'Arts'],
    services: ['Film production', 'Video games', 'Live events', 'Music publishing', 'Animation', 'Streaming content', 'Theme experiences'],
    does: ['creates games played by millions', 'produces film and television for global audiences', 'promotes live music and events', 'builds immersive entertainment experiences'],
  },
  'Energy & Mining': {
    nouns: ['Energy', 'Power', 'Resources', 'Mining', 'Renewables', 'Solar', 'Wind', 'Minerals', 'Utilities'],
    services: ['Solar development', 'Wind power', 'Grid services', 'Mineral exploration', 'Oil and gas services', 'Energy storage', 'Electricity distribution'],
    does: ['develops utility-scale solar and storage projects', 'supplies reliable power to homes and businesses', 'explores and responsibly mines critical minerals', 'helps the grid run on clean energy'],
  },
  Education: {
    nouns: ['Academy', 'Learning', 'Schools', 'Education', 'Institute', 'Tutoring', 'College', 'Learning Co'],
    services: ['K-12 education', 'Online courses', 'Tutoring', 'Professional training', 'Early childhood education', 'Language instruction', 'Higher education'],
    does: ['helps students of every background reach their potential', 'runs a network of public charter schools', 'offers online courses for working professionals', 'provides early learning programs for young children'],
  },
  Design: {
    nouns: ['Design', 'Studio', 'Creative', 'Works', 'Design Co', 'Architects', 'Interiors', 'Collective'],
    services: ['Brand identity', 'UX/UI design', 'Interior design', 'Industrial design', 'Architecture', 'Packaging design', 'Motion graphics'],
    does: ['designs brands and products people remember', 'is an independent design studio', 'creates spaces that people love to live and work in', 'designs digital products for ambitious companies'],
  },
  'Corporate Services': {
    nouns: ['Consulting', 'Advisors', 'Partners', 'Solutions', 'Group', 'Associates', 'Services', 'Advisory'],
    services: ['Management consulting', 'Outsourced accounting', 'HR consulting', 'Facilities management', 'Translation services', 'Business process outsourcing', 'Corporate training'],
    does: ['helps organizations operate more efficiently', 'provides outsourced finance and HR services', 'advises executives on strategy and transformation', 'keeps offices and facilities running smoothly'],
  },
  'Consumer Goods': {
    nouns: ['Brands', 'Goods', 'Co', 'Foods', 'Home', 'Essentials', 'Beverages', 'Supply', 'Apparel'],
    services: ['Packaged foods', 'Personal care products', 'Home goods', 'Beverages', 'Apparel', 'Pet products', 'Direct-to-consumer brands'],
    does: ['makes everyday products that families trust', 'builds direct-to-consumer brands', 'produces natural personal care products', 'crafts beverages sold in thousands of stores'],
  },
  Construction: {
    nouns: ['Construction', 'Builders', 'Contracting', 'Building Group', 'Civil', 'Structures', 'Development', 'Engineering & Construction'],
    services: ['General contracting', 'Civil engineering', 'Commercial construction', 'Residential building', 'Renovation', 'Electrical contracting', 'Infrastructure projects'],
    does: ['builds schools, hospitals and commercial buildings', 'delivers complex civil infrastructure projects', 'renovates and restores historic buildings', 'builds quality homes for growing communities'],
  },
  Arts: {
    nouns: ['Arts', 'Gallery', 'Theatre', 'Collective', 'Ensemble', 'Arts Center', 'Museum'],
    services: ['Exhibitions', 'Performing arts', 'Arts education', 'Artist residencies', 'Photography', 'Festival production'],
    does: ['brings contemporary art to a wide audience', 'produces theatre, dance and music performances', 'supports artists through residencies and grants', 'preserves and shares cultural heritage'],
  },
  Agriculture: {
    nouns: ['Farms', 'Agriculture', 'Growers', 'Harvest', 'Agri', 'Produce', 'Seeds', 'Ag'],
    services: ['Crop production', 'Organic produce', 'Farm equipment', 'Agricultural technology', 'Livestock', 'Food processing', 'Crop protection'],
    does: ['grows fresh produce for grocers across the region', 'builds technology that helps farmers grow more with less', 'produces sustainable, organic food', 'supplies equipment and seed to farms'],
  },
  'Wellness & Fitness': {
    nouns: ['Fitness', 'Wellness', 'Health Clubs', 'Studios', 'Yoga', 'Athletics', 'Performance', 'Movement'],
    services: ['Fitness clubs', 'Personal training', 'Yoga and pilates', 'Corporate wellness', 'Nutrition coaching', 'Physical therapy', 'Wellness app'],
    does: ['helps people build healthy habits that last', 'runs boutique fitness studios', 'offers corporate wellness programs', 'makes expert coaching available to everyone'],
  },
}

export const agencyNouns = ['Talent', 'Staffing', 'Recruitment', 'Search Partners', 'Talent Solutions', 'Workforce', 'Personnel', 'Recruiting Group', 'Executive Search', 'Talent Partners']
export const agencyServices = ['Permanent placement', 'Contract staffing', 'Executive search', 'Recruitment process outsourcing', 'Temp-to-hire', 'Volume hiring', 'Technical recruiting', 'Healthcare staffing']

