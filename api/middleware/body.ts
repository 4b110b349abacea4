/**
 * JSON body parsing, per route, so an unknown path is a 404 before its body is read.
 * The limit bounds the body while it streams; a malformed body becomes the spec's
 * json_invalid item in errorHandler.
 */
import { koaBody } from 'koa-body'

export const jsonBody = () => koaBody({ json: true, urlencoded: false, text: false, multipart: false, jsonLimit: '1mb', jsonStrict: false })
