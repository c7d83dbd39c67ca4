// The JavaScript front door's value primitives on cases given as JSON on stdin (tests/test_kinds.py): per case, the
// filter's description, the operation and its arguments; one JSON result per case on stdout.
import {PRIMITIVES} from "../../generator/frontdoor/js/frontdoor.mjs";

// an entry as Python's decode gives it (numbers with None, a list of codes per row or a code or None) in the form
// parseIndex decodes it to: numbers a Float64Array with NaN for none, codes an Int32Array with -1 for none, several
// codes per row as starts and lists
function decoded(entry) {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return entry;
  if ("numbers" in entry) return {numbers: Float64Array.from(entry.numbers, (n) => n === null ? NaN : n)};
  if (!("codes" in entry)) return entry;
  if (entry.codes.some(Array.isArray)) {
    const starts = [0];
    for (const found of entry.codes) starts.push(starts[starts.length - 1] + found.length);
    return {values: entry.values, starts: Uint32Array.from(starts), lists: Uint32Array.from(entry.codes.flat())};
  }
  return {values: entry.values, codes: Int32Array.from(entry.codes, (c) => c === null ? -1 : c)};
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const {flt, op, args} of JSON.parse(input)) {
  const reader = PRIMITIVES[flt.value];
  try {
    let found;
    if (op === "parse") found = await reader.parse(flt, args[0], async () => null, "see the docs");
    else if (op === "counts") found = Object.fromEntries(reader.counts(decoded(args[0]), flt, args[1]));
    else if (op === "mask") found = Array.from(reader.mask(decoded(args[0]), flt, args[1]), Boolean); // 0/1 a row
    else found = reader[op](flt, ...args);
    out.push({ok: found === undefined ? null : found});
  } catch (error) {
    out.push({invalid: error.params || String(error), detail: error.detail || null});
  }
}
process.stdout.write(JSON.stringify(out));
