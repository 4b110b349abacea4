/**
 * A resume file, whole: read (read.ts, in worker threads), structured (parse.ts), with
 * the optional LLM pass (llm.ts) when RESUME_LLM=1 turns it on, and embedded (embed-resume.ts)
 * when there is a model. POST /v2/resumes/embed and the stored resumes' parse job both
 * come through here, so a resume parses alike either way.
 */
import OpenAI from 'openai'
import type { Embedder } from '../embed/embedder.ts'
import { embedResume, type EmbeddingResult } from './embed-resume.ts'
import { refineWithLlm } from './llm.ts'
import { parseResume } from './parse.ts'
import { readResume } from './read.ts'
import type { ParsedResume, ResumeText } from './types.ts'

export type LlmConfig = { apiKey: string; baseUrl: string; model: string }

export type AnalyzeOptions = {
  embedder: Embedder | null
  llm: LlmConfig | null
  readTimeoutMs: number
  /** a client is waiting: the model embeds this resume before the background batches */
  urgent?: boolean
  /** the LLM pass failed; the heuristic result stands */
  onLlmFailure?: (error: unknown) => void
}

export type ResumeAnalysis = { resume: ParsedResume; result: EmbeddingResult | null; read: ResumeText }

const clients = new Map<string, OpenAI>()

function llmClient(c: LlmConfig) {
  const key = `${c.baseUrl}\n${c.apiKey}`
  let client = clients.get(key)
  if (!client) clients.set(key, (client = new OpenAI({ apiKey: c.apiKey, baseURL: c.baseUrl, maxRetries: 1, timeout: 30_000 })))
  return client
}

export async function analyzeResume(bytes: Buffer, contentType: string, opts: AnalyzeOptions): Promise<ResumeAnalysis> {
  const read = await readResume(bytes, contentType, { timeoutMs: opts.readTimeoutMs })
  let resume = parseResume(read.text)
  if (opts.llm) {
    try {
      resume = await refineWithLlm(read.text, resume, llmClient(opts.llm), opts.llm.model)
    } catch (e) {
      opts.onLlmFailure?.(e)
    }
  }
  const result = opts.embedder ? await embedResume(resume, read, opts.embedder, { urgent: opts.urgent }) : null
  return { resume, result, read }
}
