/**
 * Contacts without a database: the name and role a posting gives beside its contact
 * address (contactPerson), and a company profile's `contacts` list (profileContacts).
 */
import test from 'ava'
import { profileContacts } from '../../ingest/profile-contacts.ts'
import { contactPerson, extractEmail } from '../../ingest/transform/contacts.ts'
import { sanitizeDescription } from '../../ingest/transform/sanitize-description.ts'

/** contactPerson as the API calls it: on the blocks of a description, for the address ingest found in it. */
const person = (html: string, phone: string | null = null) => {
  const { text, blocks } = sanitizeDescription(html)
  return contactPerson(blocks, { email: extractEmail(text), phone })
}

test('a name and role beside the address: parentheses, commas, a contact verb, a signature', (t) => {
  t.deepEqual(person('<p>Questions? Email the hiring manager, Bill, at bill@pbs.example</p>'), { name: 'Bill', role: 'hiring manager' })
  t.deepEqual(person('<p>Contact Jane Doe (Head of Talent) at jane@acme.example</p>'), { name: 'Jane Doe', role: 'Head of Talent' })
  t.deepEqual(person('<p>Jane Doe, Senior Technical Recruiter – jane@acme.example</p>'), { name: 'Jane Doe', role: 'Senior Technical Recruiter' })
  t.deepEqual(person('<p>Contact our recruiter Maria Garcia at maria@acme.example</p>'), { name: 'Maria Garcia', role: 'recruiter' })
  t.deepEqual(person('<p>Please apply or reach out to me (Sasha) to learn more - sasha@yield.example</p>'), { name: 'Sasha', role: null })
  t.deepEqual(person('<p>Apply now.</p><p>Jane Doe</p><p>Head of Talent</p><p>jane@acme.example</p>'), { name: 'Jane Doe', role: 'Head of Talent' })
  t.deepEqual(person('<p>For details write to Anne-Marie Keller: anne@acme.example</p>'), { name: 'Anne-Marie Keller', role: null })
  // as Hacker News posts put it
  t.deepEqual(person('<p>Send me (Justin, co-founder &amp; CTO) a note at justin@strongdm.example</p>'), { name: 'Justin', role: 'CTO' })
  t.deepEqual(person('<p>Send any questions to our CTO, Alec at alec@wellth.example</p>'), { name: 'Alec', role: 'CTO' })
})

test('a phone number is found the same way', (t) => {
  t.deepEqual(person('<p>Call Tom Baker, Engineering Manager, on +44 20 7946 0958</p>', '+44 20 7946 0958'), { name: 'Tom Baker', role: 'Engineering Manager' })
})

test('no name where the text gives none: a sentence\'s first word, a team, another clause', (t) => {
  const none = { name: null, role: null }
  t.deepEqual(person('<p>Please email careers@acme.example</p>'), none)
  t.deepEqual(person('<p>Email me frank@ngrok.example to learn more.</p>'), none)
  t.deepEqual(person('<p>CONTACT: Please email resume to: Lauren.Lozano@Match.example. Please specify ad code KRLL</p>'), none)
  // the role belongs to another way of asking
  t.deepEqual(person('<p>Please speak to your talent acquisition partner or email us at nextbit@agile.example</p>'), none)
  // a role nobody here has, or the job's own
  t.deepEqual(person('<p>Hit me up (I\'m a Front End Engineer, not a recruiter) at gabriel@edited.example</p>'), none)
  t.deepEqual(person('<p>A referral bonus for our team lead role (careers@ought.example, terms apply)</p>'), none)
  // a capitalized phrase far from any contact verb
  t.deepEqual(person('<p>We run on Google Cloud. Interested? jobs@acme.example</p>'), none)
  // a signature line above that is a sentence
  t.deepEqual(person('<p>We are hiring Senior Engineers.</p><p>jobs@acme.example</p>'), none)
  // no address in the text (the feed gave it) or no address at all
  t.deepEqual(contactPerson(['Contact Jane Doe (Head of Talent)'], { email: 'jane@acme.example', phone: null }), none)
  t.deepEqual(contactPerson(['Contact Jane Doe at jane@acme.example'], { email: null, phone: null }), none)
})

test('profile contacts: a list replaces, no key leaves, a bad entry rejects the profile without echoing it', (t) => {
  t.is(profileContacts({ name: 'Acme' }), null)
  t.deepEqual(profileContacts({ contacts: [] }), [])
  t.deepEqual(
    profileContacts({
      contacts: [
        { name: ' Jane  Doe ', role: 'Head of Talent', email: 'Jane@Acme.example' },
        { phone: '+1 415 555 0100' },
        { name: 'Jane again', email: 'jane@acme.example' },
      ],
    }),
    [
      { name: 'Jane Doe', role: 'Head of Talent', email: 'jane@acme.example', phone: null },
      { name: null, role: null, email: null, phone: '+1 415 555 0100' },
    ],
  )
  const bad: [unknown, RegExp][] = [
    ['jane@acme.example', /^contacts: expected a list/],
    [[{ name: 'Jane Doe' }], /^contacts\[0\]: needs an email or a phone$/],
    [[{ email: 'jane at acme' }], /^contacts\[0\]\.email: not an e-mail address$/],
    [[{ phone: 'call me maybe' }], /^contacts\[0\]\.phone: not a phone number$/],
    [[{ email: 'a@b.example', name: 7 }], /^contacts\[0\]\.name: expected a string$/],
    [['x'], /^contacts\[0\]: expected an object$/],
    [Array.from({ length: 101 }, (_, i) => ({ email: `p${i}@acme.example` })), /^contacts: at most 100$/],
  ]
  for (const [contacts, message] of bad) {
    const err = t.throws(() => profileContacts({ contacts }))
    t.regex(err!.message, message)
    t.notRegex(err!.message, /jane at acme|call me maybe|Jane Doe/, 'the reason names the field, not its value')
  }
})
