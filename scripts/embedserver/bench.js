#!/usr/bin/env node
// bench.js: checks and times an OpenAI-compatible /v1/embeddings endpoint on
// loopback (written for server.js beside it, usable against any).
//
//   node scripts/embedserver/bench.js --spawn --check
//   node scripts/embedserver/bench.js --spawn --n 500 --chars 1000 --batch 32
//   node scripts/embedserver/bench.js --url http://127.0.0.1:8089 --n 500
//
// --spawn starts server.js on a free loopback port for the run and stops it
// after; --url uses a server already running. Only 127.0.0.1/localhost/[::1]
// URLs are accepted.
//
// --check: the same text gives the same vector in two requests and in two
//   different batch compositions (bit-for-bit, and max |diff| is printed);
//   a text longer than the token cap is still embedded (truncated); on a toy
//   set, similar code scores a higher cosine than unrelated code.
// --n N --chars C: N texts of C characters cut from the .go/.py/.js/.c/...
//   files under --src (default: the repository this script sits in), sent in
//   requests of --batch texts; prints texts/s, chars/s and tokens/s.

'use strict';

const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');

function parseArgs(argv) {
  const o = { url: '', spawn: false, check: false, n: 0, chars: 1000, batch: 32,
    src: path.resolve(__dirname, '..', '..'), serverArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => argv[++i];
    switch (a) {
      case '--url': o.url = val(); break;
      case '--spawn': o.spawn = true; break;
      case '--check': o.check = true; break;
      case '--n': o.n = Number(val()); break;
      case '--chars': o.chars = Number(val()); break;
      case '--batch': o.batch = Number(val()); break;
      case '--src': o.src = val(); break;
      case '--': o.serverArgs = argv.slice(i + 1); i = argv.length; break;
      default: throw new Error(`unknown flag ${a}`);
    }
  }
  if (!o.url && !o.spawn) throw new Error('give --url URL or --spawn');
  if (!o.check && !o.n) o.check = true;
  return o;
}

function startServer(extra) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'server.js'), '--port', '0', '--quiet', ...extra],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error(`server did not start in 60 s: ${err}`)); }, 60000);
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) { clearTimeout(timer); process.stderr.write(err); resolve({ child, url: m[1] }); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited ${code}: ${err}`)); });
  });
}

async function post(url, input) {
  const res = await fetch(`${url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'use-lite', input }),
    signal: AbortSignal.timeout(600000),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body)}`);
  if (body.data.length !== input.length) throw new Error(`${body.data.length} vectors for ${input.length} inputs`);
  body.data.forEach((d, i) => { if (d.index !== i) throw new Error(`data[${i}].index = ${d.index}`); });
  return { vecs: body.data.map((d) => d.embedding), usage: body.usage, truncated: Number(res.headers.get('x-embed-truncated') || 0) };
}

const cos = (a, b) => {
  let d = 0, na = 0, nb = 0;
  for (let k = 0; k < a.length; k++) { d += a[k] * b[k]; na += a[k] * a[k]; nb += b[k] * b[k]; }
  return d / Math.sqrt(na * nb);
};
const maxDiff = (a, b) => a.reduce((m, x, k) => Math.max(m, Math.abs(x - b[k])), 0);

const TOY = {
  // two near-duplicates in different languages/styles, and unrelated code
  goSum: 'func sum(xs []int) int {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}',
  pySum: 'def sum_list(values):\n    total = 0\n    for v in values:\n        total += v\n    return total',
  goRead: 'func readConfig(path string) (*Config, error) {\n\tf, err := os.Open(path)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer f.Close()\n\tvar c Config\n\treturn &c, json.NewDecoder(f).Decode(&c)\n}',
  pyRead: 'def read_config(path):\n    with open(path) as f:\n        return json.load(f)',
  cssBtn: '.button {\n  color: #fff;\n  background: #0070f3;\n  border-radius: 4px;\n  padding: 8px 16px;\n}',
  sqlUsers: 'SELECT u.id, u.name, COUNT(o.id) AS orders\nFROM users u LEFT JOIN orders o ON o.user_id = u.id\nGROUP BY u.id, u.name\nORDER BY orders DESC;',
};

async function check(url) {
  let ok = true;
  const fail = (m) => { ok = false; console.log(`FAIL ${m}`); };
  const names = Object.keys(TOY);
  const texts = names.map((n) => TOY[n]);

  // determinism: same request twice, and a text alone vs in a mixed batch
  const a = (await post(url, texts)).vecs;
  const b = (await post(url, texts)).vecs;
  const alone = (await post(url, [TOY.goSum])).vecs[0];
  const mixed = (await post(url, [TOY.sqlUsers, 'x', TOY.goSum, TOY.goRead + TOY.goRead])).vecs[2];
  const rep = Math.max(...a.map((v, i) => maxDiff(v, b[i])));
  const bat = maxDiff(alone, a[0]);
  const bat2 = maxDiff(alone, mixed);
  console.log(`determinism: repeat max|diff| = ${rep}, alone vs batch-of-6 = ${bat}, alone vs mixed batch-of-4 = ${bat2}`);
  if (rep !== 0) fail('same request gave different vectors');
  if (bat !== 0 || bat2 !== 0) fail('batch composition changes the vector');
  console.log(`dimension: ${a[0].length}, |v| = ${Math.sqrt(a[0].reduce((s, x) => s + x * x, 0)).toFixed(6)}`);

  // similarity: each near-duplicate pair beats every unrelated pair
  const sim = {};
  for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) {
    sim[`${names[i]}~${names[j]}`] = cos(a[i], a[j]);
  }
  const sorted = Object.entries(sim).sort((x, y) => y[1] - x[1]);
  for (const [k, v] of sorted) console.log(`  cos ${v.toFixed(4)}  ${k}`);
  const pairs = [['goSum', 'pySum'], ['goRead', 'pyRead']];
  for (const [p, q] of pairs) {
    const s = sim[`${p}~${q}`];
    for (const u of ['cssBtn', 'sqlUsers']) {
      for (const x of [p, q]) {
        const key = names.indexOf(x) < names.indexOf(u) ? `${x}~${u}` : `${u}~${x}`;
        if (!(s > sim[key])) fail(`cos(${p},${q}) = ${s.toFixed(4)} is not above cos(${key}) = ${sim[key].toFixed(4)}`);
      }
    }
  }
  // retrieval toy: a natural-language query finds the right snippet
  const q = (await post(url, ['read a JSON config file from disk'])).vecs[0];
  const ranked = names.map((n, i) => [n, cos(q, a[i])]).sort((x, y) => y[1] - x[1]);
  console.log(`query "read a JSON config file from disk": ${ranked.map(([n, s]) => `${n} ${s.toFixed(3)}`).join(', ')}`);
  if (!ranked[0][0].endsWith('Read')) fail('query did not rank a config reader first');

  // long inputs: two texts that share their first ~150 tokens but end
  // differently (the graph alone would see only the shared head)
  const head = TOY.goRead + '\n' + TOY.goSum + '\n' + TOY.goRead + '\n';
  const [h1, h2] = (await post(url, [head + TOY.cssBtn, head + TOY.sqlUsers])).vecs;
  const c12 = cos(h1, h2);
  console.log(`same head, different tails: cos ${c12.toFixed(6)} (1.000000 means tails are ignored, as in --long truncate)`);
  // a very long input is cut, not refused
  const long = (TOY.goRead + '\n').repeat(200);
  const r = await post(url, [long, TOY.goRead]);
  console.log(`long input (${long.length} chars): embedded, truncated inputs = ${r.truncated}, prompt_tokens = ${r.usage.prompt_tokens}`);
  if (r.truncated !== 1) fail('long input was not reported truncated');
  console.log(ok ? 'check: ok' : 'check: FAILED');
  return ok;
}

function corpus(src, n, chars) {
  const exts = new Set(['.go', '.py', '.js', '.ts', '.c', '.h', '.rs', '.java', '.rb', '.scm']);
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'testdata') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (exts.has(path.extname(e.name))) files.push(p);
    }
  };
  walk(src);
  const out = [];
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    for (let s = 0; s + chars <= text.length && out.length < n; s += chars) out.push(text.slice(s, s + chars));
    if (out.length >= n) break;
  }
  if (out.length < n) throw new Error(`only ${out.length} texts of ${chars} chars under ${src}`);
  return out;
}

// cpuSeconds reads a process's user+system CPU time (Linux /proc), or NaN.
function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch (e) {
    return NaN;
  }
}

async function bench(url, o, pid) {
  const texts = corpus(o.src, o.n, o.chars);
  await post(url, texts.slice(0, 2)); // warm-up
  const cpu0 = pid ? cpuSeconds(pid) : NaN;
  const t0 = process.hrtime.bigint();
  let tokens = 0, truncated = 0;
  for (let s = 0; s < texts.length; s += o.batch) {
    const r = await post(url, texts.slice(s, s + o.batch));
    tokens += r.usage.prompt_tokens;
    truncated += r.truncated;
  }
  const sec = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`bench: ${texts.length} texts x ${o.chars} chars in requests of ${o.batch}: ${sec.toFixed(2)} s, ` +
    `${(texts.length / sec).toFixed(1)} texts/s, ${((texts.length * o.chars) / sec / 1000).toFixed(1)} kchars/s, ` +
    `${(tokens / sec).toFixed(0)} tokens/s, ${(tokens / texts.length).toFixed(0)} tokens/text, ${truncated} truncated`);
  const cpu = pid ? cpuSeconds(pid) - cpu0 : NaN;
  if (cpu > 0) {
    console.log(`bench: server CPU ${cpu.toFixed(1)} s (${(cpu / sec).toFixed(2)} cores busy on average), ` +
      `${(texts.length / cpu).toFixed(1)} texts per CPU-second`);
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let server = null;
  let url = o.url.replace(/\/+$/, '');
  if (url) {
    const h = new URL(url).hostname;
    if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(h)) throw new Error(`--url must be on loopback, got ${h}`);
  }
  if (o.spawn) { server = await startServer(o.serverArgs); url = server.url; }
  let ok = true;
  try {
    const h = await (await fetch(`${url}/health`)).json();
    console.log(`health: ${JSON.stringify(h)}`);
    if (o.check) ok = await check(url);
    if (o.n) await bench(url, o, server && server.child.pid);
  } finally {
    if (server) server.child.kill('SIGTERM');
  }
  process.exitCode = ok ? 0 : 1;
}

main().catch((e) => { console.error(`bench: ${e.message}`); process.exit(1); });
