// The front door in JavaScript: a line-by-line translation of generator/frontdoor/resolver.py, listing.py,
// common.py and space.slugify (the Python modules are the specification; keep the two in step). The Netlify Edge
// Function, the Cloudflare Pages worker and the JavaScript client run this module.
//
//   resolve(space, path, query, fetchFile) -> {status, body, contentType, file, fetches} | null
//
// `fetchFile(path)` returns the published file's bytes (Uint8Array or string) or null. `body` is the fetched
// file as given when `file` is set (a host may pass that file through with its own headers), else a string.
// The answer is byte-for-byte what the Python resolver writes: Python's JSON (compact, non-ASCII as is, floats
// as Python's repr), Python's repr in problem details, rows copied from the files as they were published.

export const JSON_TYPE = "application/json; charset=utf-8";
export const PROBLEM = "application/problem+json; charset=utf-8";
const PAGE = /^[1-9][0-9]{0,8}$/;
const ALIASES = {query: "q", search: "q", text: "q", order: "sort", orderby: "sort", sortby: "sort",
  p: "page", pagenumber: "page", offset: "page", limit: "page", perpage: "page", pagesize: "page", size: "page",
  count: "page"};
const PAGE_SIZE = ["offset", "limit", "perpage", "pagesize", "size", "count"];
const LISTED_MAX = 25; // a filter with at most this many values lists them all in the problem of an unknown value

class Invalid extends Error {
  constructor(params, detail) {
    super(detail);
    this.params = params;
    this.detail = detail;
  }
}

// Python's str methods and encodings -------------------------------------------------------------------------
const PY_SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");
const strip = (text) => text.replace(STRIP, "");

/** Code-point order, as Python compares strings. */
function cmpStr(a, b) {
  if (a === b) return 0;
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const cx = x[i].codePointAt(0), cy = y[i].codePointAt(0);
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
  return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
}

function cmpValue(a, b) {
  if (typeof a === "string" && typeof b === "string") return cmpStr(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
}

export function slugify(text) {
  const ascii = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  return ascii.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

const HEX = /^[0-9a-fA-F]{2}$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");

/** urllib.parse.unquote (``plus``: unquote_plus): %XX decoded where well-formed, UTF-8 with replacement. */
function unquote(text, plus = false) {
  if (plus) text = text.replaceAll("+", " ");
  if (!text.includes("%")) return text;
  const bytes = [];
  for (let i = 0; i < text.length;) {
    if (text[i] === "%" && HEX.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const c = String.fromCodePoint(text.codePointAt(i));
      bytes.push(...encoder.encode(c));
      i += c.length;
    }
  }
  return decoder.decode(new Uint8Array(bytes));
}

/** urllib.parse.quote(text, safe=""). */
const quote = (text) => encodeURIComponent(text).replace(/[!'()*]/g,
  (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's repr of a str. */
function repr(text) {
  const q = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = q;
  for (const c of text) {
    const code = c.codePointAt(0);
    if (c === q || c === "\\") out += "\\" + c;
    else if (c === "\t") out += "\\t";
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f || (code > 0x7f && c !== " " && UNPRINTABLE.test(c))) {
      const hex = code.toString(16);
      out += code < 0x100 ? "\\x" + hex.padStart(2, "0") : code < 0x10000 ? "\\u" + hex.padStart(4, "0")
        : "\\U" + hex.padStart(8, "0");
    } else out += c;
  }
  return out + q;
}

/** Python's repr of a float. */
function floatRepr(value) {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  const [mantissa, exp] = value.toExponential().split("e");
  const e = Number(exp);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  if (e < -4 || e >= 16) {
    const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  const whole = digits.length > e + 1 ? digits.slice(0, e + 1) : digits.padEnd(e + 1, "0");
  const frac = digits.length > e + 1 ? digits.slice(e + 1) : "0";
  return `${sign}${whole}.${frac}`;
}

// JSON as Python writes it ---------------------------------------------------------------------------------
const RAW = new WeakMap(); // a row parsed from a file -> its text in that file

function dumps(value) {
  if (value === null || value === undefined) return "null";
  if (typeof value === "object" && RAW.has(value)) return RAW.get(value);
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : floatRepr(value);
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return "[" + value.map(dumps).join(",") + "]";
  return "{" + Object.entries(value).map(([k, v]) => JSON.stringify(k) + ":" + dumps(v)).join(",") + "}";
}

/** The text of each element of the top-level ``"data"`` array of a listing file. */
function dataSlices(text) {
  const start = text.indexOf("[", text.indexOf('"data"'));
  const slices = [];
  let depth = 0, from = -1, inString = false;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      if (depth === 0) from = i;
      depth++;
    } else if (c === "}" || c === "]") {
      if (depth === 0) break; // the end of the data array
      depth--;
      if (depth === 0) slices.push(text.slice(from, i + 1));
    }
  }
  return slices;
}

function parseListing(text) {
  const body = JSON.parse(text);
  const slices = dataSlices(text);
  if (slices.length === body.data.length) body.data.forEach((row, i) => RAW.set(row, slices[i]));
  return body;
}

const asText = (body) => typeof body === "string" ? body : decoder.decode(body);
const READS_AT_ONCE = 8;

/** read(path) of every path, at most READS_AT_ONCE at a time, begun in order (the answer's reads are listed as
 * Python makes them); where Python stops at a missing file, these go on: the answer is none either way. */
async function readAll(paths, read) {
  const out = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const at = next++;
      out[at] = await read(paths[at]);
    }
  };
  await Promise.all(Array.from({length: Math.min(READS_AT_ONCE, paths.length)}, worker));
  return out;
}

// Exact decimals: {sign, digits (no leading or trailing zeros), exp}, value = digits * 10**exp ------------------
function decimal(text) {
  const m = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  let digits = (m[2] || "") + (m[3] || "");
  let exp = Number(m[4] || 0) - (m[3] || "").length;
  digits = digits.replace(/^0+/, "");
  const trimmed = digits.replace(/0+$/, "");
  exp += digits.length - trimmed.length;
  return {sign: m[1] && trimmed ? -1 : 1, digits: trimmed, exp: trimmed ? exp : 0};
}

const decimalOf = (value) => decimal(typeof value === "number" ? numberText(value) : String(value));

function numberText(value) {
  return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : value.toExponential();
}

function cmpDecimal(a, b) {
  if (!a.digits || !b.digits) {
    const x = a.digits ? a.sign : 0, y = b.digits ? b.sign : 0;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.sign !== b.sign) return a.sign < b.sign ? -1 : 1;
  const magA = a.digits.length + a.exp, magB = b.digits.length + b.exp;
  let order = magA !== magB ? (magA < magB ? -1 : 1) : 0;
  if (!order) {
    const width = Math.max(a.digits.length, b.digits.length);
    order = cmpStr(a.digits.padEnd(width, "0"), b.digits.padEnd(width, "0"));
  }
  return order * a.sign;
}

/** min(round(value), max) of a non-negative decimal, rounded up ("ceil"), down ("floor") or whole already (null),
 * as a (then exact) number. */
function bound(value, round, max) {
  if (!value.digits) return 0;
  if (value.digits.length + value.exp > String(max).length) return max;
  let whole = BigInt(value.exp >= 0 ? value.digits + "0".repeat(value.exp)
    : value.digits.slice(0, value.digits.length + value.exp) || "0");
  if (value.exp < 0 && round === "ceil") whole += 1n; // digits end in non-zero: a fraction was cut
  return whole >= BigInt(max) ? max : Number(whole);
}

// common.py -------------------------------------------------------------------------------------------------
function answer(status, body, contentType = JSON_TYPE, file = null) {
  return {status, body, contentType, file, fetches: []};
}

function problem(status, title, detail, params = null) {
  const body = {type: "/#problem-" + (status === 400 ? "invalid-query" : "not-found"), title, status, detail};
  if (params && params.length) body["invalid-params"] = params;
  return answer(status, dumps(body), PROBLEM);
}

const notFound = (detail) => problem(404, "Not Found", detail);
const foldName = (name) => name.toLowerCase().replace(/[^a-z0-9]/g, "");

export function parseQuery(query, tracking) {
  const params = new Map();
  for (const piece of query.split("&")) {
    if (!piece) continue;
    const at = piece.indexOf("=");
    const name = unquote(at < 0 ? piece : piece.slice(0, at), true);
    const value = at < 0 ? "" : piece.slice(at + 1);
    if (tracking.some((t) => name === t || (t.endsWith("*") && name.startsWith(t.slice(0, -1))))) continue;
    if (!params.has(name)) params.set(name, []);
    params.get(name).push(unquote(value, true));
  }
  return params;
}

function checkNames(params, declared, where) {
  const wrong = [];
  const byFold = new Map(declared.map((n) => [foldName(n), n]));
  for (const [name, values] of params) {
    if (!declared.includes(name)) {
      const alias = Object.hasOwn(ALIASES, foldName(name)) ? ALIASES[foldName(name)] : undefined;
      const meant = byFold.get(foldName(name)) || (declared.includes(alias) ? alias : null);
      let hint = meant ? `did you mean \`${meant}\`?` : `${where} takes ${declared.map((d) => `\`${d}\``).join(", ")}`;
      if (meant === "page" && PAGE_SIZE.includes(foldName(name))) {
        hint = "pages have a fixed size (`meta.per_page`): page through with `page` (1, 2, ...)";
      }
      wrong.push({name, reason: declared.length ? `unknown parameter: ${hint}`
        : `unknown parameter: ${where} takes no parameters`});
    } else if (values.length > 1) {
      wrong.push({name, reason: `given ${values.length} times; give it once`});
    }
  }
  if (wrong.length) {
    throw new Invalid(wrong, `${where}: ` + wrong.map((w) => `\`${w.name}\`: ${w.reason}`).join("; "));
  }
  return new Map([...params].map(([name, values]) => [name, values[0]]));
}

const words = (text) => slugify(text).split("-").filter((w) => w);

/** The 404 detail of an unknown profile: what it is addressed by, and the search that finds one. */
function missing(kind, detail, key) {
  const found = words(key);
  const hint = found.length ? `; search for one: /api/search?q=${found.join("%20")}&type=${kind}` : "";
  return `${detail.path}/${key}: no ${kind} with this ${detail.keys.join(" or ")}${hint}`;
}
// the words of `q` that must match: its words without the optional ones (a legal form: the text filter's
// optional_words in the query space), unless that is all of them
function queryWords(text, optional) {
  const found = words(text);
  const kept = found.filter((w) => !optional.includes(w));
  return kept.length ? kept : found;
}

// listing.py ------------------------------------------------------------------------------------------------
function unknownHint(flt, folded, where) {
  const canonical = [...new Set(Object.values(flt.values || {}))].sort(cmpStr);
  const shown = (v) => Object.hasOwn(flt.shown || {}, v) ? flt.shown[v] : v; // as written: S-1/A
  const compact = folded.replaceAll("-", "");
  const suggested = Object.hasOwn(flt.suggestions || {}, compact) ? flt.suggestions[compact] : null;
  const meant = suggested ? [suggested] : canonical.filter((v) => compact && v.replaceAll("-", "").startsWith(compact));
  const hint = meant.length > 0 && meant.length <= 3
    ? `did you mean ${meant.map((v) => `\`${shown(v)}\``).join(" or ")}? ` : "";
  if (canonical.length > 0 && canonical.length <= LISTED_MAX) {
    return `${hint}one of ${canonical.map(shown).join(", ")}; ${where}`;
  }
  return hint + where;
}

function get(row, dotted) {
  let value = row;
  for (const part of dotted.split(".")) {
    value = value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, part)
      ? value[part] : null;
  }
  return value;
}

const pyStr = (value) => typeof value === "number" && !Number.isInteger(value) ? floatRepr(value)
  : typeof value === "boolean" ? (value ? "True" : "False") : String(value);

function textMatches(query, row, fields, prefix) {
  const terms = [];
  for (const f of fields) {
    const value = Object.hasOwn(row, f) ? row[f] : null;
    if (value !== null && value !== undefined) terms.push(...words(pyStr(value)));
  }
  const hit = (word) => prefix ? terms.some((t) => t.startsWith(word)) : terms.includes(word);
  return query.every(hit) || hit(query.join(""));
}

function* combinations(items, size, start = 0) {
  if (size === 0) {
    yield [];
    return;
  }
  for (let i = start; i <= items.length - size; i++) {
    for (const rest of combinations(items, size - 1, i + 1)) yield [items[i], ...rest];
  }
}

// values.py: the three primitives that read a filter's description (choice, number, words) --------------------
// a filter without files that rows do not carry goes only with filters the index holds (else a 404, as a combination
// the files do not publish is on hosts without code)
const NOT_INDEXED = "{path}: `{name}` is answered from the query index, which does not hold {others}: drop one of them";
const COMPARE = {eq: (c) => c === 0, ge: (c) => c >= 0, le: (c) => c <= 0};
// two numbers compare as their shortest decimals do (distinct doubles have disjoint rounding intervals): no
// decimal made for them, which the facets' counts over an index's rows would make a million times at 100k
const holds = (op, a, b) => COMPARE[op](typeof a === "number" && typeof b === "number"
  ? (a < b ? -1 : a > b ? 1 : 0) : cmpDecimal(decimalOf(a), decimalOf(b)));

function problemOf(flt, [reason, detail], raw) { // the description's reason and detail ({name}, {raw}: its repr)
  return new Invalid([{name: flt.name, reason}],
    detail.replaceAll("{name}", () => flt.name).replaceAll("{raw}", () => repr(raw)));
}

function tally(keys, counts) {
  for (const key of keys) counts.set(key, (counts.get(key) || 0) + 1);
}

// A filter of several values per row, as parseIndex gives it: row i's codes are lists[starts[i]:starts[i + 1]].
const rowsOf = (entry) => entry.starts ? entry.starts.length - 1 : (entry.codes || entry.numbers).length;

// the rows of a filter of several values per row that have one of the codes `wanted` marks (a plain loop: no
// callback per row, which a new isolate pays for before V8 optimizes it)
function rowsWithCode(entry, wanted) {
  const {starts, lists} = entry, out = new Uint8Array(rowsOf(entry));
  for (let i = 0; i < out.length; i++) {
    for (let k = starts[i]; k < starts[i + 1]; k++) {
      if (wanted[lists[k]]) {
        out[i] = 1;
        break;
      }
    }
  }
  return out;
}

function starting(entry, word) {
  const wanted = new Uint8Array(entry.values.length);
  entry.values.forEach((v, i) => { if (v.startsWith(word)) wanted[i] = 1; });
  return rowsWithCode(entry, wanted);
}

// How many masked rows each rung holds, in the rungs' order, in one pass over the rows: each row's value is placed
// among the rungs sorted (a binary search), and a rung holds the rows placed on its side. Null where a rung or a
// row's value is not a number (the caller compares them one by one).
function rungCounts(numbers, mask, rungs, compare) {
  if (!rungs.every((r) => typeof r === "number")) return null;
  const sorted = [...rungs].sort((a, b) => a - b);
  const placed = new Float64Array(sorted.length + 1); // [k]: rows with k rungs below (ge: at or below) the value
  for (let i = 0; i < numbers.length; i++) {
    const value = numbers[i];
    if (!mask[i] || value !== value) continue; // NaN: the row has no number
    let low = 0, high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (compare === "ge" ? sorted[middle] <= value : sorted[middle] < value) low = middle + 1;
      else high = middle;
    }
    placed[low] += compare === "eq" ? (low < sorted.length && sorted[low] === value ? 1 : 0) : 1;
  }
  return rungs.map((rung) => {
    const at = sorted.indexOf(rung); // its first place among equal rungs
    let n = 0;
    if (compare === "ge") for (let k = at + 1; k <= sorted.length; k++) n += placed[k]; // value >= rung
    else if (compare === "le") for (let k = 0; k <= at; k++) n += placed[k]; // value <= rung
    else n = placed[at];
    return n;
  });
}

// A mask is a Uint8Array over an index's rows (1: the row matches): over 100k rows, loops over typed arrays take a
// tenth of the time that arrays of booleans made with map() do. An index's numbers are a Float64Array, NaN where a
// row has none (every comparison with NaN is false: it matches no bound).
function numberMask(numbers, compare, value) {
  const out = new Uint8Array(numbers.length);
  if (typeof value !== "number") {
    numbers.forEach((n, i) => { if (n === n && COMPARE[compare](cmpValue(n, value))) out[i] = 1; });
  } else if (compare === "ge") {
    for (let i = 0; i < numbers.length; i++) if (numbers[i] >= value) out[i] = 1;
  } else if (compare === "le") {
    for (let i = 0; i < numbers.length; i++) if (numbers[i] <= value) out[i] = 1;
  } else {
    for (let i = 0; i < numbers.length; i++) if (numbers[i] === value) out[i] = 1;
  }
  return out;
}

const choice = {
  several: false,
  async parse(flt, raw, fetch, where) {
    const {name} = flt;
    const folded = slugify(raw);
    const compact = folded.replaceAll("-", ""); // separators dropped: "ecommerce", "seriesA", "U.K."
    const padded = folded.replace(/-([0-9])$/, "-0$1"); // a month written 2025-7 is 2025-07
    if ("exists" in flt) { // a resource by any of its keys (company=1, company=Stripe): the files' key
      const found = folded ? await fetch(flt.exists.replaceAll("{value}", folded)) : null;
      if (found !== null) return JSON.parse(asText(found)).data[flt.canonical];
    } else if (Object.hasOwn(flt.values, folded)) {
      return flt.values[folded];
    } else if (Object.hasOwn(flt.values, compact)) {
      return flt.values[compact];
    } else if ("pattern" in flt && new RegExp(`^(?:${flt.pattern})$`).test(padded)) {
      return padded;
    }
    throw new Invalid([{name, reason: `unknown value ${repr(raw)}: ${unknownHint(flt, folded, where)}`}],
      `\`${name}\`: unknown value ${repr(raw)}`);
  },
  exact: (flt, value) => flt.files ? String(value) : null, // the file that holds exactly this value's rows
  base: (flt, value) => flt.files ? value : null, // the file that holds them and fewest others
  indexable: (flt) => !("exists" in flt),
  keep(flt, value, row) { // a field rows do not carry: held by every base
    if (flt.field === null) return true;
    const found = get(row, flt.field);
    return flt.multi ? Array.isArray(found) && found.includes(value) : found === value;
  },
  mask(entry, flt, value) { // codes: one per row, -1 for none; several: starts and lists (rowsOf)
    const code = entry.values.indexOf(String(value));
    if (code < 0) return new Uint8Array(rowsOf(entry));
    if (entry.starts) {
      const wanted = new Uint8Array(entry.values.length);
      wanted[code] = 1;
      return rowsWithCode(entry, wanted);
    }
    const codes = entry.codes, out = new Uint8Array(codes.length);
    for (let i = 0; i < out.length; i++) if (codes[i] === code) out[i] = 1;
    return out;
  },
  counts(entry, flt, mask) { // per code, then per value (an index's rows: no array made per row)
    const perCode = new Float64Array(entry.values.length);
    if (entry.starts) {
      const {starts, lists} = entry;
      for (let i = 0; i < starts.length - 1; i++) {
        if (mask[i]) for (let k = starts[i]; k < starts[i + 1]; k++) perCode[lists[k]] += 1;
      }
    } else {
      const codes = entry.codes;
      for (let i = 0; i < codes.length; i++) if (mask[i] && codes[i] >= 0) perCode[codes[i]] += 1;
    }
    const counts = new Map();
    perCode.forEach((n, c) => { if (n) counts.set(entry.values[c], (counts.get(entry.values[c]) || 0) + n); });
    return counts;
  },
  rowCounts(flt, rows) {
    const counts = new Map();
    for (const row of rows) {
      const found = get(row, flt.field);
      if (flt.multi) tally(Array.isArray(found) ? [...new Set(found)].sort(cmpValue) : [], counts);
      else if (found !== null) tally([found], counts);
    }
    return counts;
  },
};

const number = {
  ...choice,
  async parse(flt, raw) {
    const text = strip(raw);
    if (!new RegExp(`^(?:${flt.pattern})$`).test(text)) throw problemOf(flt, flt.invalid, raw);
    return bound(decimal(text), flt.round, flt.max);
  },
  rung(flt, value) { // the rung whose rows hold every row the value matches and fewest others
    const holding = flt.rungs.filter((r) => COMPARE[flt.compare](cmpValue(value, r)));
    if (!holding.length) return null;
    return flt.compare === "ge" ? Math.max(...holding) : Math.min(...holding);
  },
  exact(flt, value) {
    if ("rungs" in flt && !flt.rungs.includes(value)) return null;
    return choice.exact(flt, value);
  },
  base: (flt, value) => "rungs" in flt && flt.files ? number.rung(flt, value) : choice.base(flt, value),
  keep(flt, value, row) {
    if (flt.field === null) return true;
    const found = get(row, flt.field);
    return found !== null && holds(flt.compare, found, value);
  },
  mask: (entry, flt, value) => numberMask(entry.numbers, flt.compare, value),
  keys: (flt, found) => "rungs" in flt ? flt.rungs.filter((r) => holds(flt.compare, found, r)) : [found],
  counts(entry, flt, mask) {
    const counts = new Map();
    if ("rungs" in flt) { // per rung, the rows it holds (no array made per row)
      const found = rungCounts(entry.numbers, mask, flt.rungs, flt.compare);
      flt.rungs.forEach((rung, r) => {
        const n = found ? found[r] : entry.numbers.reduce((sum, value, i) =>
          sum + (mask[i] && value === value && holds(flt.compare, value, rung) ? 1 : 0), 0);
        if (n) counts.set(rung, (counts.get(rung) || 0) + n);
      });
      return counts;
    }
    entry.numbers.forEach((found, i) => { if (mask[i] && found === found) counts.set(found, (counts.get(found) || 0) + 1); });
    return counts;
  },
  rowCounts(flt, rows) {
    const counts = new Map();
    for (const row of rows) {
      const found = get(row, flt.field);
      if (found !== null) tally(number.keys(flt, found), counts);
    }
    return counts;
  },
};

const day = { // a day YYYY-MM-DD, compared with a row's ISO date; the query index holds it as YYYYMMDD
  ...number,
  async parse(flt, raw) {
    const text = strip(raw);
    if (!new RegExp(`^(?:${flt.pattern})$`).test(text)) throw problemOf(flt, flt.invalid, raw);
    const [y, m, d] = text.split("-").map(Number);
    const date = new Date(0);
    date.setUTCFullYear(y, m - 1, d); // not Date.UTC: it reads years 0-99 as 1900-1999
    if (y < 1 || date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
      throw problemOf(flt, flt.invalid, raw); // 2025-02-30
    }
    return text;
  },
  keep(flt, value, row) {
    const found = get(row, flt.field);
    return found !== null && COMPARE[flt.compare](cmpStr(String(found), value));
  },
  mask(entry, flt, value) {
    return numberMask(entry.numbers, flt.compare, Number(value.replaceAll("-", "")));
  },
};

const wordsValue = {
  ...choice,
  several: true, // several words: a published superset per word tried (alternatives)
  async parse(flt, raw) {
    if ([...raw].length > flt.max_length) throw problemOf(flt, flt.too_long, raw);
    const found = queryWords(raw, flt.optional_words);
    if (!found.length) throw problemOf(flt, flt.no_word, raw);
    return found;
  },
  bounds: (flt) => flt.prefixes || [1, flt.word_max],
  exact(flt, value) {
    const [shortest, longest] = wordsValue.bounds(flt);
    if (!flt.files || value.length !== 1 || !(shortest <= value[0].length && value[0].length <= longest)) return null;
    return value[0];
  },
  base: () => null, // a word shorter than the files' is answered by the other filters' files
  alternatives(flt, value, word = null) {
    const [shortest, longest] = wordsValue.bounds(flt);
    const longestWord = value.reduce((best, w) => w.length > best.length ? w : best, value[0]);
    const tried = [word || longestWord, value.join("")];
    const found = [...new Set(tried.filter((w) => w.length >= shortest).map((w) => w.slice(0, longest)))].sort(cmpStr);
    if (!flt.files || (found.length < 2 && flt.prefixes && tried.some((w) => w.length < shortest))) return null;
    return found;
  },
  filed(flt, value) { // the words as the files name them, the longest first (then as written)
    const [shortest, longest] = wordsValue.bounds(flt);
    return [...new Set([...value].sort((a, b) => b.length - a.length).filter((w) => w.length >= shortest)
      .map((w) => w.slice(0, longest)))];
  },
  // a prefix query whose words, glued too, are shorter than the shortest indexed prefix
  indexable: (flt, value) => Boolean(flt.prefixes) && value.join("").length < flt.prefixes[0],
  keep: (flt, value, row) => textMatches(value, row, flt.text_fields, Boolean(flt.prefixes)),
  mask(entry, flt, value) { // every word starts a word of the row, or the words glued together do
    const each = allOf(value.map((w) => starting(entry, w)), rowsOf(entry));
    const glued = starting(entry, value.join(""));
    return each.map((a, i) => a | glued[i]);
  },
};

export const PRIMITIVES = {choice, number, date: day, words: wordsValue}; // exported for tests/test_kinds.py
const primitive = (flt) => PRIMITIVES[flt.value];

class Listing {
  constructor(fetch, route, params, meta) {
    this.fetch = fetch;
    this.route = route;
    this.params = params;
    this.meta = meta;
    this.filters = Object.fromEntries(route.filters.map((f) => [f.name, f]));
    this.read = new Map();
  }

  async value(flt, raw) {
    const {name} = flt;
    const where = `see ${this.route.path}'s \`${name}\` in /api/query-space.json or /api/openapi`;
    if (!strip(raw)) throw new Invalid([{name, reason: "empty value"}], `\`${name}\` is empty`);
    return primitive(flt).parse(flt, raw, this.fetch, where);
  }

  async parse() {
    let problems = [];
    let values = new Map();
    for (const flt of this.route.filters) {
      if (this.params.has(flt.name)) {
        try {
          values.set(flt.name, await this.value(flt, this.params.get(flt.name)));
        } catch (error) {
          if (!(error instanceof Invalid)) throw error;
          problems = problems.concat(error.params);
        }
      }
    }
    let asked = null;
    if (this.params.has("sort")) {
      let text = strip(this.params.get("sort"));
      if (text.startsWith("+")) text = text.slice(1); // %2Bvaluation: ascending, said explicitly
      const found = Object.keys(this.route.sorts).filter((s) => s.toLowerCase() === text.toLowerCase());
      if (found.length) asked = found[0];
      else problems.push({name: "sort", reason: "one of " + Object.keys(this.route.sorts).join(", ")});
    }
    let page = 1;
    if (this.params.has("page")) {
      if (PAGE.test(strip(this.params.get("page")))) page = Number(strip(this.params.get("page")));
      else problems.push({name: "page", reason: "a positive integer (1 is the first page)"});
    }
    if (problems.length) {
      throw new Invalid(problems, `${this.route.path}: ` + problems.map((p) => `\`${p.name}\`: ${p.reason}`).join("; "));
    }
    for (const [name, value] of Object.entries(this.route.default_filters)) { // every query not naming it
      if (!values.has(name)) values.set(name, value);
    }
    values = new Map(this.route.filters.filter((f) => values.has(f.name)).map((f) => [f.name, values.get(f.name)]));
    let sort = asked || this.route.default_sort;
    for (const [name, sorts] of Object.entries(this.route.value_sorts || {})) { // past events: newest first
      if (asked === null && values.has(name) && Object.hasOwn(sorts, String(values.get(name)))) {
        sort = sorts[String(values.get(name))];
      }
    }
    return [values, sort, page];
  }

  combines(names) {
    const groups = this.route.combinable;
    return groups === null || groups.some((g) => [...names].every((n) => g.includes(n)));
  }

  sortsFor(names) { // the sorts the files publish for a set of filters (a sort without files: none)
    if (names.size <= this.route.sort_depth && [...names].every((n) => this.filters[n].sortable)) {
      return Object.keys(this.route.sorts).filter((s) => this.route.sorts[s].files);
    }
    return [this.route.default_sort];
  }

  file(filters, sort, page) {
    const order = this.route.filters.map((f) => f.name);
    const segments = order.filter((n) => filters.has(n)).map((n) => `${n}=${filters.get(n)}`);
    return [this.route.path, ...(segments.length ? segments : ["all"]), `sort=${sort},page=${page}.json`].join("/");
  }

  direct(values, sort) {
    const out = new Map();
    for (const [name, value] of values) {
      const found = primitive(this.filters[name]).exact(this.filters[name], value);
      if (found === null) return null;
      out.set(name, found);
    }
    const names = new Set(out.keys());
    if (!this.combines(names) || !this.sortsFor(names).includes(sort)) return null;
    return out;
  }

  bases(values, word = null) {
    const exact = new Map();
    let text = null;
    let textName = "";
    for (const [name, value] of values) {
      const flt = this.filters[name];
      const reader = primitive(flt);
      if (reader.several) {
        text = reader.alternatives(flt, value, word);
        textName = name;
      } else {
        const base = reader.base(flt, value);
        if (base !== null) exact.set(name, String(base));
      }
    }
    const names = [...exact.keys()];
    let best = new Map();
    search: for (let size = names.length; size >= 0; size--) {
      for (const chosen of combinations(names, size)) {
        const set = new Set(chosen);
        if (text && text.length) set.add(textName);
        if (this.combines(set)) {
          best = new Map(chosen.map((n) => [n, exact.get(n)]));
          break search;
        }
      }
    }
    if (text && text.length) return text.map((word) => new Map([...best, [textName, word]]));
    return [best];
  }

  async answer() {
    const [values, sort, page] = await this.parse();
    const direct = this.direct(values, sort);
    if (direct !== null) return this.fromFile(direct, sort, page, values);
    const indexed = (await fromPrefix(this, values, sort, page)) ?? (await fromIndex(this, values, sort, page));
    if (indexed !== null) return indexed;
    const refused = this.unanswerable(values);
    if (refused !== null) return refused;
    const rows = new Map();
    let meta = {};
    for (const base of this.bases(values, await this.narrowest(values, sort))) {
      const [found, baseMeta] = await this.allRows(base, this.baseSort(base, sort));
      if (!Object.keys(meta).length) meta = baseMeta;
      for (const row of found) {
        const key = JSON.stringify(this.route.key.map((k) => row[k]));
        if (!rows.has(key)) rows.set(key, row);
      }
    }
    const chosen = [...rows.values()].filter((row) => this.keep(row, values));
    chosen.sort(this.comparator(sort));
    const perPage = this.route.per_page;
    const counts = page === 1 ? new Map(this.faceted(values)
      .map((n) => [n, primitive(this.filters[n]).rowCounts(this.filters[n], chosen)])) : null;
    return this.page(chosen.slice((page - 1) * perPage, page * perPage), chosen.length, values, sort, page, meta,
      counts);
  }

  async fromFile(filters, sort, page, values) {
    const path = this.file(filters, sort, page);
    const body = await this.fetch(path);
    if (body !== null) return answer(200, body, JSON_TYPE, path);
    if (page > 1 && (await this.fetch(this.file(filters, sort, 1))) !== null) {
      return notFound(`${this.route.path}: page ${page} is past the last page`);
    }
    return this.page([], 0, values, sort, page, {});
  }

  async once(path) {
    if (!this.read.has(path)) this.read.set(path, await this.fetch(path));
    return this.read.get(path);
  }

  baseSort(base, sort) {
    return this.sortsFor(new Set(base.keys())).includes(sort) ? sort : this.route.default_sort;
  }

  // with several words, the one whose files are read: the longest, unless its files run past a page; then the one
  // of fewest pages (each one's first page read in turn until one has a page at most). null: the longest
  async narrowest(values, sort) {
    for (const [name, value] of values) {
      const flt = this.filters[name];
      const reader = primitive(flt);
      if (!reader.several || reader.alternatives(flt, value) === null) continue;
      let chosen = null, fewest = -1;
      for (const word of reader.filed(flt, value)) {
        const base = this.bases(values, word).find((b) => b.get(name) === word);
        const first = await this.once(this.file(base, this.baseSort(base, sort), 1));
        const pages = first === null ? 0 : Number(JSON.parse(asText(first)).meta.pages);
        if (fewest < 0 || pages < fewest) [chosen, fewest] = [word, pages];
        if (pages <= 1) break;
      }
      return chosen;
    }
    return null;
  }

  async allRows(base, sort) {
    const first = await this.once(this.file(base, sort, 1));
    if (first === null) return [[], {}];
    const body = parseListing(asText(first));
    let rows = [...body.data];
    const pages = Math.max(0, Number(body.meta.pages) - 1);
    const paths = Array.from({length: pages}, (_, i) => this.file(base, sort, i + 2));
    for (const more of await readAll(paths, (path) => this.once(path))) {
      if (more !== null) rows = rows.concat(parseListing(asText(more)).data);
    }
    return [rows, body.meta];
  }

  keep(row, values) {
    for (const [name, value] of values) {
      if (!primitive(this.filters[name]).keep(this.filters[name], value, row)) return false;
    }
    return true;
  }

  unanswerable(values) {
    const unheld = [...values].filter(([n, v]) => !primitive(this.filters[n]).indexable(this.filters[n], v))
      .map(([n]) => n);
    for (const name of values.keys()) {
      if (!this.filters[name].files && this.filters[name].field === null && unheld.length) {
        const others = unheld.map((n) => `\`${n}\``).join(", ");
        return notFound(NOT_INDEXED.replace("{path}", () => this.route.path).replace("{name}", () => name)
          .replace("{others}", () => others));
      }
    }
    return null;
  }

  comparator(sort) {
    const spec = this.route.sorts[sort];
    const keys = this.route.key;
    return (a, b) => {
      let x = get(a, spec.field), y = get(b, spec.field);
      if (spec.lower) [x, y] = [x, y].map((v) => v !== null ? pyStr(v).toLowerCase() : null);
      if (x !== y) {
        if (x === null || y === null) return y === null ? -1 : 1;
        const order = cmpValue(x, y) < 0 ? -1 : 1;
        return spec.desc ? -order : order;
      }
      for (const key of keys) {
        if (a[key] !== b[key]) return cmpValue(a[key], b[key]) < 0 ? -1 : 1;
      }
      return 0;
    };
  }

  faceted(values) {
    // the filters whose refinements of the answer page 1 counts, as a file's: those one filter deeper that the
    // files publish (faceted, not applied, combinable with the applied ones)
    const applied = [...values.keys()].filter((n) => this.filters[n].files); // one without files narrows, no more
    return this.route.filters.filter((f) => f.faceted && !values.has(f.name) && f.field !== null
      && this.combines(new Set([...applied, f.name]))).map((f) => f.name);
  }

  page(data, total, values, sort, page, baseMeta, counts = null) {
    // the answer's page `page` holding `data`, of `total` rows in all; page 1 with the facets of `counts` (per
    // faceted filter, its values' row counts in the answer)
    const perPage = this.route.per_page;
    const pages = Math.ceil(total / perPage);
    const last = Math.max(pages, 1);
    if (page > last) return notFound(`${this.route.path}: page ${page} is past the last page (${last})`);
    const shown = new Map([...values].map(([name, value]) => [name, shownValue(value)]));
    // first, as a file's page has them
    const meta = {total, page, per_page: perPage, pages, sort, filters: Object.fromEntries(shown)};
    for (const [k, v] of Object.entries(baseMeta)) {
      if (!Object.hasOwn(meta, k) && k !== "facets" && k !== "facets_truncated") meta[k] = v;
    }
    for (const [name, value] of Object.entries(this.meta)) if (!Object.hasOwn(meta, name)) meta[name] = value;
    const url = (number, refined = null) => {
      const asked = new Map([...shown, ...(refined ? [refined] : [])]);
      const query = this.route.params.filter((n) => asked.has(n)).map((n) => `${n}=${quote(String(asked.get(n)))}`);
      return `${this.route.path}?` + [...query, `sort=${sort}`, `page=${number}`].join("&");
    };
    const links = {self: url(page), first: url(1), prev: page > 1 ? url(page - 1) : null,
      next: page < last ? url(page + 1) : null, last: url(last)};
    if (page === 1) { // as a file's page 1: the refinements with rows, most first, and the URL of each
      const limit = this.route.facet_limit, facets = {}, cut = [];
      for (const [name, found] of counts || []) {
        const ordered = [...found].filter(([, n]) => n).sort(([v, n], [w, m]) => m - n || cmpValue(v, w));
        if (ordered.length) {
          facets[name] = ordered.slice(0, limit).map(([v, n]) => ({value: v, count: n, url: url(1, [name, v])}));
        }
        if (ordered.length > limit) cut.push(name);
      }
      Object.assign(meta, {facets, facets_truncated: cut});
    }
    return answer(200, dumps({data, meta, links}));
  }
}

function allOf(masks, rows) { // never changed by its callers: one mask is its own conjunction
  if (masks.length === 1) return masks[0];
  if (!masks.length) return new Uint8Array(rows).fill(1);
  const out = new Uint8Array(rows), [first, second] = masks; // one pass without branches per pair
  for (let i = 0; i < rows; i++) out[i] = first[i] & second[i];
  for (const mask of masks.slice(2)) for (let i = 0; i < rows; i++) out[i] &= mask[i];
  return out;
}


function indexCandidates(listing, exact) {
  const route = listing.route;
  const names = [...exact.keys()];
  const out = [];
  for (const sort of Object.keys(route.sorts)) {
    const kept = [];
    for (let size = names.length; size >= 0; size--) {
      for (const chosen of combinations(names, size)) {
        if (!chosen.length && Object.keys(route.default_filters).length) continue;
        if (kept.some((k) => chosen.every((n) => k.has(n)))) continue;
        const set = new Set(chosen);
        if (listing.combines(set) && listing.sortsFor(set).includes(sort)) {
          kept.push(set);
          out.push([chosen, sort]);
        }
      }
    }
  }
  return out;
}

const defaultOrders = new WeakMap();
function defaultOrder(index) {
  let found = defaultOrders.get(index);
  if (found === undefined) {
    found = new Uint32Array(index.rows);
    for (let i = 0; i < found.length; i++) found[i] = i; // a plain loop: from() with a callback is ten times slower
    defaultOrders.set(index, found);
  }
  return found;
}

// each row's place in a sort (the inverse of its order), made once per index and sort
const rankings = new WeakMap();
function ranks(index, sort, ordered) {
  let found = rankings.get(index);
  if (found === undefined) rankings.set(index, found = new Map());
  let ranked = found.get(sort);
  if (ranked === undefined) {
    ranked = new Uint32Array(ordered.length);
    for (let place = 0; place < ordered.length; place++) ranked[ordered[place]] = place;
    found.set(sort, ranked);
  }
  return ranked;
}

// a query index decoded once per bytes read (a host that keeps its files hands the same bytes again); never changed
const parsedIndexes = new WeakMap();
function parsedIndex(raw) {
  if (typeof raw === "string") raw = encoder.encode(raw);
  let index = parsedIndexes.get(raw);
  if (index === undefined) {
    index = parseIndex(raw);
    parsedIndexes.set(raw, index);
  }
  return index;
}

const ARRAYS = {1: Uint8Array, 2: Uint16Array, 4: Uint32Array, 8: Float64Array};

/** generator/api/query_index.py's decode: the header parsed, each array read where it lies (little-endian). */
export function parseIndex(raw) {
  if (decoder.decode(raw.subarray(0, 4)) !== "QIX1") throw new Error("not a query index");
  const length = new DataView(raw.buffer, raw.byteOffset, 8).getUint32(4, true);
  const header = JSON.parse(decoder.decode(raw.subarray(8, 8 + length)));
  const start = raw.byteOffset + 8 + length;
  const read = ([offset, width, count]) => {
    const Type = ARRAYS[width];
    if ((start + offset) % width === 0) return new Type(raw.buffer, start + offset, count);
    return new Type(raw.buffer.slice(start + offset, start + offset + width * count)); // not aligned: a copy
  };
  // plain loops into typed arrays: a callback, a subarray or an array per row costs a tenth of a second at 100k
  // rows, and a new edge isolate runs them before they are optimized. Numbers: a Float64Array, NaN for none; several
  // codes per row: the file's starts and lists as they lie (row i's are lists[starts[i]:starts[i + 1]])
  const decoded = (entry) => {
    if ("table" in entry) {
      const table = read(entry.table), codes = read(entry.codes), numbers = new Float64Array(codes.length);
      for (let i = 0; i < codes.length; i++) numbers[i] = codes[i] ? table[codes[i] - 1] : NaN;
      return {numbers};
    }
    if ("starts" in entry) return {values: entry.values, starts: read(entry.starts), lists: read(entry.lists)};
    const found = read(entry.codes), codes = new Int32Array(found.length);
    for (let i = 0; i < found.length; i++) codes[i] = found[i] - 1; // -1: no value
    return {values: entry.values, codes};
  };
  const filters = {}; // each entry decoded when a request first reads it (a query reads its filters and facets)
  for (const [name, entry] of Object.entries(header.filters)) {
    if (typeof entry === "string") filters[name] = entry;
    else {
      Object.defineProperty(filters, name, {enumerable: true, configurable: true, get() {
        const value = decoded(entry);
        Object.defineProperty(filters, name, {value, enumerable: true});
        return value;
      }});
    }
  }
  const orders = Object.fromEntries(Object.entries(header.orders).map(([sort, place]) => [sort, read(place)]));
  return {...header, filters, orders};
}

// one answer of a file of answers, one a line (`"<name>":{...},`: prefix_answers.py, scattered.py), parsed alone
function answerLine(raw, name) {
  const text = asText(raw);
  const key = `\n${JSON.stringify(name)}:`;
  const at = text.indexOf(key);
  if (at < 0) return null;
  const line = text.slice(at + key.length, text.indexOf("\n", at + key.length));
  return parseListing(line.endsWith(",") ? line.slice(0, -1) : line);
}

/** generator/api/prefix_answers.py's path and entry: the file of the short prefixes beginning with a character,
 * and a prefix's first page's name in it. */
function prefixPath(found, prefix) {
  return `${found.folder}/${found.filter}=${prefix[0]}.json`;
}

function prefixEntry(found, prefix, context) {
  return [`${found.filter}=${prefix}`, ...[...context].map(([n, v]) => `${n}=${v}`)].join(",");
}

// the first page of a short prefix (alone, or with one value of a filter `with` names) from its first character's file
async function fromPrefix(listing, values, sort, page) {
  const found = listing.route.prefixes;
  if (!found || page !== 1 || sort !== listing.route.default_sort) return null;
  const word = values.get(found.filter);
  const others = new Map([...values].filter(([n]) => n !== found.filter).map(([n, v]) => [n, String(v)]));
  if (!Array.isArray(word) || word.length !== 1 || word[0].length >= found.below || others.size > 1
    || [...others.keys()].some((n) => !found.with.includes(n))) return null;
  const raw = await listing.fetch(prefixPath(found, word[0]));
  if (raw === null) return null;
  const short = answerLine(raw, prefixEntry(found, word[0], others));
  if (short === null) return null;
  const files = [];
  for (const body of await readAll(short.files, listing.fetch)) {
    if (body === null) return null;
    files.push(parseListing(asText(body)));
  }
  const rows = short.rows.map(([f, i]) => f < 0 ? short.data[i] : files[f].data[i]);
  const counts = new Map(listing.faceted(values).filter((n) => Object.hasOwn(short.counts, n))
    .map((n) => [n, new Map(short.counts[n])]));
  return listing.page(rows, short.total, values, sort, page, files[0].meta, counts);
}

/** generator/api/scattered.py: pages a computed page may read beside the index, and the hash that picks the file
 * of a scattered page's answer. */
const SCATTERED_FILES = 3;

export function fnv1a(text) {
  let found = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) found = Math.imul(found ^ byte, 0x01000193) >>> 0;
  return found;
}

// a scattered page's answer (its rows and the route's meta) from its route's answer files, or null
async function fromScattered(listing, parts, path) {
  const raw = await listing.fetch(`${listing.route.scattered}${fnv1a(path) % parts}.json`);
  return raw === null ? null : answerLine(raw, path);
}

async function fromIndex(listing, values, sort, page) {
  const route = listing.route;
  const filters = listing.filters;
  if (!route.index) return null;
  for (const [name, value] of values) {
    if (!primitive(filters[name]).indexable(filters[name], value)) return null;
  }
  const raw = await listing.fetch(route.index);
  if (raw === null) return null;
  const index = parsedIndex(raw);
  const rows = index.rows, perPage = route.per_page;
  const held = new Proxy(index.filters, {get: (filters, n) => // a name: the same entry as that filter's
    typeof filters[n] === "string" ? filters[filters[n]] : filters[n]});
  if ([...values.keys()].some((name) => !Object.hasOwn(index.filters, name))) return null;
  const masks = new Map([...values].map(([n, v]) => [n, primitive(filters[n]).mask(held[n], filters[n], v)]));
  const mask = allOf([...masks.values()], rows);
  const numbered = defaultOrder(index); // the default order, made once per index
  const order = (name) => name === index.order ? numbered : index.orders[name];
  const chosen = []; // the asked page's rows, and the total of every matching row
  const first = (page - 1) * perPage, ordering = order(sort);
  let total = 0;
  for (let at = 0; at < ordering.length; at++) {
    const i = ordering[at];
    if (mask[i]) {
      if (total >= first && total < first + perPage) chosen.push(i);
      total += 1;
    }
  }
  const pages = Math.ceil(total / perPage), last = Math.max(pages, 1);
  if (page > last) return notFound(`${route.path}: page ${page} is past the last page (${last})`);
  if (!chosen.length) return listing.page([], 0, values, sort, page, {});
  const exact = new Map();
  const bases = new Map();
  for (const [name, value] of values) { // below the lowest rung, a short prefix, a filter without files: the
    const flt = filters[name]; // other filters' files hold the answer
    const base = primitive(flt).base(flt, value);
    if (base !== null) {
      exact.set(name, String(base));
      bases.set(name, base === value ? masks.get(name) : primitive(flt).mask(held[name], flt, base));
    }
  }
  const needed = new Uint8Array(rows); // the asked page's rows (distinct)
  for (const i of chosen) needed[i] = 1;
  let best = null;
  const conjunctions = new Map(); // one per set of filters, whichever sort; every filter its own base: the query's
  if (bases.size === values.size && [...bases].every(([n, found]) => found === masks.get(n))) {
    conjunctions.set([...bases.keys()].join("&"), mask);
  }
  for (const [names, baseSort] of indexCandidates(listing, exact)) {
    if (best !== null && best[0] === 1) break; // no combination holds the page in fewer files
    const where = new Map();
    if (!names.length) { // every row: a row's place is its rank in the sort
      const ranked = ranks(index, baseSort, order(baseSort));
      for (const i of chosen) where.set(i, ranked[i]);
    } else {
      const key = names.join("&");
      if (!conjunctions.has(key)) conjunctions.set(key, allOf(names.map((n) => bases.get(n)), rows));
      const base = conjunctions.get(key);
      const pages = new Set();
      let position = 0;
      const ordered = order(baseSort);
      for (let at = 0; at < ordered.length; at++) {
        const i = ordered[at];
        if (base[i]) {
          if (needed[i]) {
            where.set(i, position);
            pages.add(Math.floor(position / perPage));
            // found, or it cannot read fewer files than the best
            if (where.size === chosen.length || (best !== null && pages.size >= best[0])) break;
          }
          position += 1;
        }
      }
    }
    const files = new Set([...where.values()].map((p) => Math.floor(p / perPage))).size;
    if (where.size === chosen.length && (best === null || files < best[0])) best = [files, names, baseSort, where];
  }
  const counts = page === 1 ? new Map(listing.faceted(values).filter((n) => Object.hasOwn(index.filters, n))
    .map((n) => [n, primitive(filters[n]).counts(held[n], filters[n], mask)])) : null;
  const whole = new Map([...values].map(([n, v]) => [n, primitive(filters[n]).exact(filters[n], v)])); // published
  if ((best === null || best[0] > SCATTERED_FILES) && index.scattered && ![...whole.values()].includes(null)) {
    const answer = await fromScattered(listing, index.scattered, listing.file(whole, sort, page));
    if (answer !== null && answer.data.length === chosen.length) {
      return listing.page(answer.data, total, values, sort, page, answer.meta, counts);
    }
  }
  if (best === null) return null;
  const [, names, baseSort, where] = best;
  const found = new Map();
  let meta = null;
  const numbers = [...new Set([...where.values()].map((p) => Math.floor(p / perPage) + 1))].sort((a, b) => a - b);
  const named = new Map(names.map((n) => [n, exact.get(n)]));
  const bodies = await readAll(numbers.map((number) => listing.file(named, baseSort, number)), listing.fetch);
  for (const [at, number] of numbers.entries()) {
    const body = bodies[at];
    if (body === null) return null;
    const document = parseListing(asText(body));
    meta = meta || document.meta;
    for (const [i, p] of where) {
      if (Math.floor(p / perPage) + 1 === number && p % perPage < document.data.length) {
        found.set(i, document.data[p % perPage]);
      }
    }
  }
  if (found.size !== chosen.length) return null;
  return listing.page(chosen.map((i) => found.get(i)), total, values, sort, page, meta, counts);
}

function shownValue(value) {
  if (Array.isArray(value)) return value.join(" ");
  return value;
}

// resolver.py -----------------------------------------------------------------------------------------------
// `serveExports`: an export's file is named (answer.served), not read: the host serves it (host.mjs)
export async function resolve(space, path, query, fetchFile, {serveExports = false} = {}) {
  const fetches = [];
  const fetch = async (p) => {
    fetches.push(p);
    const found = await fetchFile(p);
    return found === undefined ? null : found;
  };
  path = unquote(path);
  const trimmed = path.replace(/\/+$/, "") || "/";
  const lowered = trimmed.toLowerCase();
  let result;
  try {
    result = await route(space, fetch, lowered, trimmed, query || "", serveExports);
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    result = problem(400, "Invalid query", error.detail, error.params);
  }
  if (result !== null) result.fetches = fetches;
  return result;
}

async function route(space, fetch, lowered, original, query, serveExports) {
  for (const r of Object.values(space.routes)) {
    if (lowered === r.path) {
      const params = checkNames(parseQuery(query, space.tracking), r.params, r.path);
      return new Listing(fetch, r, params, space.meta).answer();
    }
  }
  const exp = space.export;
  if (lowered === exp.path) {
    const params = checkNames(parseQuery(query, space.tracking), ["format", "table"], exp.path);
    return exportAnswer(fetch, exp, params, serveExports);
  }
  if (Object.hasOwn(space.documents, lowered)) {
    checkNames(parseQuery(query, space.tracking), [], lowered);
    return fileAnswer(fetch, space.documents[lowered]);
  }
  const cut = original.lastIndexOf("/");
  const head = cut < 0 ? "" : original.slice(0, cut), key = cut < 0 ? original : original.slice(cut + 1);
  if (!key || key.includes("=") || key.endsWith(".json") || key.includes(".")) return null;
  for (const [kind, detail] of Object.entries(space.details)) {
    if (head.toLowerCase() === detail.path) {
      checkNames(parseQuery(query, space.tracking), [], `${detail.path}/{key}`);
      for (const candidate of new Set([key.toLowerCase(), slugify(key)])) {
        const found = await fetch(`${detail.path}/${candidate}.json`);
        if (found !== null) return answer(200, found, JSON_TYPE, `${detail.path}/${candidate}.json`);
      }
      return notFound(missing(kind, detail, key));
    }
  }
  return null;
}

async function fileAnswer(fetch, path) {
  const body = await fetch(path);
  if (body === null) return notFound(`${path}: not published`);
  return answer(200, body, JSON_TYPE, path);
}

async function exportAnswer(fetch, exp, params, serveExports) {
  const table = params.has("table") ? slugify(params.get("table")).replaceAll("-", "_") : null;
  let fmt = params.has("format") ? strip(params.get("format")).toLowerCase() : "";
  if (Object.hasOwn(exp.format_aliases || {}, fmt)) fmt = exp.format_aliases[fmt]; // ndjson: jsonl
  if (!params.has("format")) {
    if (table === null) return fileAnswer(fetch, `${exp.path}/index.json`);
    fmt = "json"; // a table without a format: its json (rewrite-only hosts answer a problem)
  }
  if (!exp.formats.includes(fmt)) {
    throw new Invalid([{name: "format", reason: "one of " + exp.formats.join(", ")}],
      `${exp.path}: unknown format ${repr(params.get("format"))}`);
  }
  if (table !== null && !exp.tables.includes(table)) {
    throw new Invalid([{name: "table", reason: "one of " + exp.tables.join(", ")}],
      `${exp.path}: unknown table ${repr(params.get("table"))}`);
  }
  const name = table === null ? `${exp.dataset}.zip` : `${table}.${fmt}`;
  const path = `${exp.path}/${fmt}/${name}`;
  const found = serveExports ? {...answer(200, null, JSON_TYPE, path), served: true} : await fileAnswer(fetch, path);
  const types = {csv: "text/csv; charset=utf-8", parquet: "application/vnd.apache.parquet",
    jsonl: "application/jsonl; charset=utf-8", zip: "application/zip"};
  found.contentType = types[name.slice(name.lastIndexOf(".") + 1)] || JSON_TYPE;
  return found;
}

/** A path as a URL path: each segment percent-encoded except the characters the files' names use. */
export function filePath(path) {
  return path.split("/").map((s) => encodeURIComponent(s).replace(/%3D/g, "=").replace(/%2C/g, ",")).join("/");
}
