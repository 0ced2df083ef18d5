// Reference token counts from js-tiktoken, an implementation independent of
// the Go module internal/tokens builds on (different regex engine, different
// BPE code, ranks shipped separately). internal/tokens' TestMatchesJSTiktoken
// runs it; install with `npm ci` in this folder.
//
// Usage: node count.mjs ENCODING... < strings.json
// stdin:  a JSON array of strings.
// stdout: a JSON object mapping each ENCODING to the array of token counts,
//         one per string, with encode_ordinary semantics (special tokens such
//         as "<|endoftext|>" are counted as ordinary text).
import { readFileSync } from "node:fs";
import { Tiktoken } from "js-tiktoken/lite";

const ranks = {
  cl100k_base: async () => (await import("js-tiktoken/ranks/cl100k_base")).default,
  o200k_base: async () => (await import("js-tiktoken/ranks/o200k_base")).default,
};

const names = process.argv.slice(2);
if (names.length === 0 || names.some((n) => !(n in ranks))) {
  console.error(`usage: node count.mjs ENCODING... < strings.json (encodings: ${Object.keys(ranks).join(", ")})`);
  process.exit(2);
}
const texts = JSON.parse(readFileSync(0, "utf8"));
const out = {};
for (const name of names) {
  const enc = new Tiktoken(await ranks[name]());
  // allowedSpecial [] and disallowedSpecial []: no special token is
  // recognised and none is an error, which is encode_ordinary.
  out[name] = texts.map((t) => enc.encode(t, [], []).length);
}
process.stdout.write(JSON.stringify(out) + "\n");
