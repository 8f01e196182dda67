// The parsing pipeline of the TypeScript reference bot, run over JSONL so
// that its throughput can be compared with `airi parse --jsonl`: read each
// {"raw": "..."} line, strip think blocks and code fences, parse the rest
// with best-effort-json-parser, normalize the action and print one line.
//
// Usage: node reference.mjs MODULE_DIR < answers.jsonl > results.jsonl
// MODULE_DIR is a directory where best-effort-json-parser is installed.
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import path from 'node:path';

const require = createRequire(path.join(path.resolve(process.argv[2] ?? '.'), 'noop.js'));
const { parse } = require('best-effort-json-parser');
parse.onExtraToken = () => {};

function clean(raw) {
  let text = raw.replace(/<think>[\s\S]*?<\/think>/g, '').replace(/<think>[\s\S]*$/, '');
  const fence = text.match(/```(?:json)?\s*([\s\S]*?)(```|$)/);
  if (fence) text = fence[1];
  const start = text.indexOf('{');
  return start >= 0 ? text.slice(start) : text;
}

function normalize(value) {
  if (Array.isArray(value)) value = value[0];
  if (!value || typeof value !== 'object') throw new Error('no action');
  const { action, parameters, reasoning, ...rest } = value;
  if (typeof action !== 'string') throw new Error('no action');
  const out = { action, ...rest, ...(parameters && typeof parameters === 'object' ? parameters : {}) };
  for (const key of ['channelId', 'replyTo']) {
    if (typeof out[key] === 'number') out[key] = String(out[key]);
  }
  return { action: out, ...(reasoning ? { reasoning } : {}) };
}

const out = [];
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  let result;
  try {
    const { raw } = JSON.parse(line);
    result = normalize(parse(clean(raw)));
  } catch (err) {
    result = { error: String(err && err.message) };
  }
  out.push(JSON.stringify(result));
  if (out.length >= 4096) {
    process.stdout.write(out.join('\n') + '\n');
    out.length = 0;
  }
}
if (out.length) process.stdout.write(out.join('\n') + '\n');
