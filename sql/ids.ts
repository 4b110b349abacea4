/**
 * The shape of the ids the database gives tasks, resumes, saved searches and accounts
 * (uuid). An id of any other shape names nothing, so it is answered 404 without asking
 * Postgres, which would reject it as invalid input.
 */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (id: string) => UUID.test(id)
