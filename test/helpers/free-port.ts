/** A loopback port nothing listens on now: for a server a test or bench starts in another process. */
import { createServer, type AddressInfo } from 'node:net'

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
