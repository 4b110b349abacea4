/**
 * The tests' one way to wait for something that happens in its own time: polls `check`
 * until it returns a value (anything but false, null or undefined) and returns that
 * value, or throws, naming `what`, once `ms` have passed. A fixed sleep proves nothing
 * about what did not happen; a deadline on what should happen is all a test can give.
 *
 *   const row = await eventually('the task to finish', async () => (await task()).state === 'finished' && task)
 */
export async function eventually<T>(
  what: string,
  check: () => T | false | null | undefined | Promise<T | false | null | undefined>,
  { ms = 30_000, every = 20 }: { ms?: number; every?: number } = {},
): Promise<T> {
  for (const deadline = Date.now() + ms; ; ) {
    const v = await check()
    if (v !== false && v !== null && v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`)
    await new Promise((r) => setTimeout(r, every))
  }
}
