/** sql/replicas.ts's pure parts: WAL positions, which failures a replica's read is retried for, names without passwords. The replica itself: test/api/replicas.test.ts. */
import test from 'ava'
import { AppError } from '../../api/errors.ts'
import { parseLsn, replicaFailure, replicaName } from '../../sql/replicas.ts'

test('parseLsn: both hexadecimal halves, ordered as the server orders them', (t) => {
  t.is(parseLsn('0/0'), 0n)
  t.is(parseLsn('3/6412D930'), (3n << 32n) + 0x6412d930n)
  t.true(parseLsn('1/0') > parseLsn('0/FFFFFFFF'))
})

test('replicaFailure: a replica gone is skipped, a recovery conflict or a 404 is asked of the primary, anything else is the request\'s own', (t) => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT', '57P01', '08006', '3D000']) t.is(replicaFailure({ code }), 'down', code)
  t.is(replicaFailure({ code: '40001', message: 'canceling statement due to conflict with recovery' }), 'retry')
  t.is(replicaFailure(new AppError(404, 'Job not found')), 'retry')
  for (const err of [{ code: '57014' }, { code: '22P02' }, new AppError(400, 'bad'), new Error('boom'), null]) t.is(replicaFailure(err), null)
})

test('replicaName: the URL without its password', (t) => {
  t.is(replicaName('postgres://app:secret@r1:5432/jobs'), 'postgres://app:***@r1:5432/jobs')
  t.is(replicaName('postgres://app@r1/jobs'), 'postgres://app@r1/jobs')
})
