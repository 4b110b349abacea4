/**
 * A tiny BERT-shaped ONNX sentence encoder with random weights, written from scratch
 * into a directory laid out as a Hugging Face model (config.json, tokenizer.json,
 * tokenizer_config.json, onnx/model.onnx), so the transformers provider can be tested
 * offline. It checks loading, tokenizing, pooling and the 768-number path, not quality.
 *
 * The graph takes BERT's three inputs and returns last_hidden_state [batch, seq, hidden]:
 *   h = tanh(word_embeddings[input_ids] + type_embeddings[token_type_ids]) * attention_mask
 *   last_hidden_state = (h + sum of h over the sequence) * attention_mask
 * The sum stands in for attention: without it the [CLS] position would hold the same
 * vector for every text, and CLS pooling could not tell texts apart.
 * and the ONNX protobuf is encoded by hand (the few messages and fields it needs, per
 * onnx/onnx.proto3), since no ONNX writer is a dependency.
 */
import fs from 'node:fs'
import path from 'node:path'

// --- protobuf wire format -------------------------------------------------------------

function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n))
  const out: number[] = []
  do {
    let byte = Number(v & 0x7fn)
    v >>= 7n
    if (v) byte |= 0x80
    out.push(byte)
  } while (v)
  return out
}
const key = (field: number, wire: number) => varint((field << 3) | wire)
const int = (field: number, n: number | bigint) => [...key(field, 0), ...varint(n)]
const bytes = (field: number, b: Uint8Array | number[]) => [...key(field, 2), ...varint(b.length), ...b]
const str = (field: number, s: string) => bytes(field, [...Buffer.from(s, 'utf8')])
const msg = (field: number, parts: number[][]) => bytes(field, parts.flat())

// --- the ONNX messages used (field numbers from onnx.proto3) ----------------------------

const FLOAT = 1
const INT64 = 7

/** TensorProto: dims 1, data_type 2, name 8, raw_data 9 */
function tensor(field: number, name: string, dims: number[], type: number, raw: Buffer) {
  return msg(field, [...dims.map((d) => int(1, d)), int(2, type), str(8, name), bytes(9, raw)])
}

/** ValueInfoProto { name 1, type 2: TypeProto { tensor_type 1: { elem_type 1, shape 2: { dim 1: { dim_value 1 | dim_param 2 } } } } } */
function valueInfo(field: number, name: string, type: number, dims: (number | string)[]) {
  const shape = dims.map((d) => msg(1, [typeof d === 'number' ? int(1, d) : str(2, d)]))
  return msg(field, [str(1, name), msg(2, [msg(1, [int(1, type), msg(2, shape)])])])
}

/** NodeProto: input 1, output 2, name 3, op_type 4, attribute 5 (AttributeProto: name 1, i 3, type 20; INT = 2) */
function node(name: string, op: string, inputs: string[], outputs: string[], intAttrs: Record<string, number> = {}) {
  const attrs = Object.entries(intAttrs).map(([k, v]) => msg(5, [str(1, k), int(3, v), int(20, 2)]))
  return msg(1, [...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)), str(3, name), str(4, op), ...attrs])
}

/** A deterministic generator, so a seed always gives the same model. */
function random(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

function floats(n: number, rnd: () => number) {
  const b = Buffer.alloc(n * 4)
  for (let i = 0; i < n; i++) b.writeFloatLE(rnd() * 2 - 1, i * 4)
  return b
}

export function tinyBertOnnx(vocabSize: number, hidden: number, seed = 1): Buffer {
  const rnd = random(seed)
  const axis = (n: bigint) => {
    const b = Buffer.alloc(8)
    b.writeBigInt64LE(n)
    return b
  }
  const graph = [
    node('word', 'Gather', ['word_embeddings', 'input_ids'], ['words'], { axis: 0 }),
    node('type', 'Gather', ['type_embeddings', 'token_type_ids'], ['types'], { axis: 0 }),
    node('sum', 'Add', ['words', 'types'], ['summed']),
    node('act', 'Tanh', ['summed'], ['activated']),
    node('mask_float', 'Cast', ['attention_mask'], ['mask_f'], { to: FLOAT }),
    node('mask_3d', 'Unsqueeze', ['mask_f', 'last_axis'], ['mask_3d']),
    node('masked', 'Mul', ['activated', 'mask_3d'], ['h']),
    node('context', 'ReduceSum', ['h', 'sequence_axis'], ['context'], { keepdims: 1 }),
    node('mix', 'Add', ['h', 'context'], ['mixed']),
    node('output', 'Mul', ['mixed', 'mask_3d'], ['last_hidden_state']),
    str(2, 'tiny-bert'),
    tensor(5, 'word_embeddings', [vocabSize, hidden], FLOAT, floats(vocabSize * hidden, rnd)),
    tensor(5, 'type_embeddings', [2, hidden], FLOAT, floats(2 * hidden, rnd)),
    tensor(5, 'last_axis', [1], INT64, axis(-1n)),
    tensor(5, 'sequence_axis', [1], INT64, axis(1n)),
    valueInfo(11, 'input_ids', INT64, ['batch', 'sequence']),
    valueInfo(11, 'attention_mask', INT64, ['batch', 'sequence']),
    valueInfo(11, 'token_type_ids', INT64, ['batch', 'sequence']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', hidden]),
  ]
  // ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8 (domain 1, version 2)
  return Buffer.from([...int(1, 8), ...str(2, 'job-data-service tests'), ...msg(7, graph), ...msg(8, [str(1, ''), int(2, 13)])])
}

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']

/** A BERT WordPiece tokenizer.json over the given words (lower-cased) and the special tokens. */
export function tinyBertTokenizer(words: string[]) {
  const vocab: Record<string, number> = {}
  for (const t of [...SPECIAL, ...words.map((w) => w.toLowerCase())]) if (!(t in vocab)) vocab[t] = Object.keys(vocab).length
  const special = (content: string) => ({ id: vocab[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })
  const token = (id: string) => ({ SpecialToken: { id, type_id: 0 } })
  return {
    vocab,
    json: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: SPECIAL.map(special),
      normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [token('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, token('[SEP]')],
        pair: [token('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, token('[SEP]'), { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
        special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [vocab[t]], tokens: [t] }])),
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
    },
  }
}

/**
 * Writes the model as `<root>/<name>/…`, the layout the transformers provider reads
 * from EMBEDDING_MODEL_DIR, and returns its directory.
 */
export function writeTinyBert(root: string, name: string, { hidden = 768, words, maxLength = 512 }: { hidden?: number; words: string[]; maxLength?: number }) {
  const dir = path.join(root, name)
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true })
  const { vocab, json } = tinyBertTokenizer(words)
  const vocabSize = Object.keys(vocab).length
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(json))
  fs.writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: maxLength, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' }),
  )
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: hidden, vocab_size: vocabSize, max_position_embeddings: maxLength, num_attention_heads: 1, num_hidden_layers: 1, type_vocab_size: 2 }),
  )
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), tinyBertOnnx(vocabSize, hidden))
  return dir
}
