/**
 * Builds the console (api/console/src) into api/console/dist: console.js (one minified
 * script) and console.css. `npm ci` runs it (the prepare script); the server builds in
 * memory instead when dist is missing (api/routes/console.ts).
 *
 *   node --import tsx api/console/build.ts
 */
import { build } from 'esbuild'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const here = dirname(fileURLToPath(import.meta.url))
export const distDir = join(here, 'dist')
export const srcDir = join(here, 'src')

/** The built files by name. */
export async function buildConsole(): Promise<Map<string, Buffer>> {
  const result = await build({
    entryPoints: [join(srcDir, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  })
  const css = await build({ entryPoints: [join(srcDir, 'console.css')], bundle: true, minify: true, write: false, logLevel: 'silent' })
  return new Map([
    ['console.js', Buffer.from(result.outputFiles[0].contents)],
    ['console.css', Buffer.from(css.outputFiles[0].contents)],
  ])
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = await buildConsole()
  await mkdir(distDir, { recursive: true })
  for (const [name, bytes] of files) {
    await writeFile(join(distDir, name), bytes)
    console.log(`api/console/dist/${name}: ${bytes.length} bytes, ${gzipSync(bytes).length} gzipped`)
  }
}
