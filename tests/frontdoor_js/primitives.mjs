// The JavaScript front door's value primitives on cases given as JSON on stdin (tests/test_kinds.py): per case, the
// filter's description, the operation and its arguments; one JSON result per case on stdout.
import {PRIMITIVES} from "../../generator/frontdoor/js/frontdoor.mjs";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const {flt, op, args} of JSON.parse(input)) {
  const reader = PRIMITIVES[flt.value];
  try {
    let found;
    if (op === "parse") found = await reader.parse(flt, args[0], async () => null, "see the docs");
    else if (op === "counts") found = Object.fromEntries(reader.counts(args[0], flt, args[1]));
    else if (op === "mask") found = Array.from(reader.mask(args[0], flt, args[1]), Boolean); // 0/1 per row
    else found = reader[op](flt, ...args);
    out.push({ok: found === undefined ? null : found});
  } catch (error) {
    out.push({invalid: error.params || String(error), detail: error.detail || null});
  }
}
process.stdout.write(JSON.stringify(out));
