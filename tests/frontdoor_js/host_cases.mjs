// host.mjs's frontDoor over a fake site, for what the dev servers cannot show: a rate limiting binding (the worker
// uses one when the environment has it; `wrangler pages dev` cannot declare one), a read of the site that the
// host refuses (Netlify's rate limit counts the function's own reads) or that fails at the network level, and a
// site that gates its own reads as Netlify's does (a fresh isolate's public answers must not need a key).
// Argument: a valid key; prints a JSON table.
import {frontDoor} from "../../generator/frontdoor/js/host.mjs";
import {digest} from "../../generator/frontdoor/js/keys.mjs";

const key = process.argv[2];
const digests = `${await digest(key)}\n`;
const space = {version: 1, meta: {}, tracking: [], routes: {}, details: {}, documents: {"/api/openapi": "/api/openapi.json"},
  export: {path: "/api/export", formats: [], tables: [], dataset: "dataset"}};
const files = {"/api/query-space.json": JSON.stringify(space), "/api/openapi.json": '{"openapi":"3.0.3"}'};

function site(readStatus = null, retryAfter = null) {
  return (path) => {
    if (readStatus !== null && path !== "/api/query-space.json") {
      return new Response("busy", {status: readStatus, headers: retryAfter ? {"Retry-After": retryAfter} : {}});
    }
    return path in files ? new Response(files[path], {status: 200}) : new Response("", {status: 404});
  };
}
let passedOn = 0;
const passOn = async () => {
  passedOn += 1;
  return new Response("file", {status: 200, headers: {"Cache-Control": "public, max-age=300"}});
};
const failing = async () => { throw new TypeError("error sending request: connection refused"); };

// Netlify: a read of the site runs the gate again; records the key each read carried
const readsCarried = [];
function gatedSite(path, asked) {
  const carried = asked.headers.get("Authorization") ?? asked.headers.get("X-API-Key");
  readsCarried.push([path, carried]);
  if (carried !== `Bearer ${key}` && !["/api/openapi.json"].includes(path)) return new Response("", {status: 401});
  return path in files ? new Response(files[path], {status: 200}) : new Response("", {status: 404});
}

function limiter(allow) {
  const seen = [];
  return {seen, limit: async ({key: counted}) => { seen.push(counted); return {success: allow}; }};
}

async function row(name, handler, request, options, site = passOn) {
  passedOn = 0;
  const response = await handler(request, site, options);
  const headers = Object.fromEntries([...response.headers].map(([k, v]) => [k.toLowerCase(), v]));
  return [name, {status: response.status, headers, body: await response.text(), counted: options.limiter?.seen ?? null,
    passedOn}];
}

// Node's Request refuses to make a TRACE (a server receives one): a request's shape, for the wrapper
const ask = (path, headers = {}, method = "GET") => method === "TRACE"
  ? {method, url: `https://example.test${path}`, headers: new Headers(headers)}
  : new Request(`https://example.test${path}`, {headers, method});
const rows = [];
let open = limiter(true);
rows.push(await row("limited: allowed with a key", frontDoor(site()), ask("/api/openapi", {Authorization: `Bearer ${key}`}),
  {digests, limiter: open, address: "192.0.2.1"}));
open = limiter(true);
rows.push(await row("limited: allowed on a file path with a key", frontDoor(site()),
  ask("/api/companies/all/sort=-valuation,page=1.json", {"X-API-Key": key}), {digests, limiter: open, address: "192.0.2.1"}));
open = limiter(true);
rows.push(await row("limited: allowed without a key", frontDoor(site()), ask("/api/openapi"),
  {digests, limiter: open, address: "192.0.2.1"}));
rows.push(await row("limited: over the limit with a key", frontDoor(site()), ask("/api/openapi", {Authorization: `Bearer ${key}`}),
  {digests, limiter: limiter(false), address: "192.0.2.1"}));
rows.push(await row("limited: over the limit without keys", frontDoor(site()), ask("/api/openapi"),
  {digests: null, limiter: limiter(false), address: "192.0.2.1"}));
rows.push(await row("read refused: 429", frontDoor(site(429, "7")), ask("/api/openapi", {Authorization: `Bearer ${key}`}),
  {digests}));
rows.push(await row("read refused: 429 without Retry-After", frontDoor(site(429)), ask("/api/openapi"), {digests: null}));
rows.push(await row("read refused: 500", frontDoor(site(500)), ask("/api/openapi"), {digests: null}));
rows.push(await row("keys off: a file passes on as it is", frontDoor(site()), ask("/api/companies/x.json"), {digests: null}));
rows.push(await row("keys on: a file passes on private", frontDoor(site()), ask("/api/companies/x.json", {"X-API-Key": key}),
  {digests}));
rows.push(await row("keys on: a file without the key", frontDoor(site()), ask("/api/companies/x.json"), {digests}));
rows.push(await row("keys on: the variable holds no digest", frontDoor(site()), ask("/api/companies/x.json", {"X-API-Key": key}),
  {digests: key}));
rows.push(await row("read fails at the network level", frontDoor(failing), ask("/api/openapi", {"X-API-Key": key}),
  {digests}));
rows.push(await row("pass on fails at the network level", frontDoor(site()), ask("/api/companies/x.json", {"X-API-Key": key}),
  {digests}, failing));
rows.push(await row("keys on: TRACE with a key", frontDoor(site()), ask("/api/companies", {"X-API-Key": key}, "TRACE"),
  {digests}));
rows.push(await row("keys on: OPTIONS on a spelled file, no key", frontDoor(site()),
  ask("//%61pi/export/json/dataset.zip", {}, "OPTIONS"), {digests}));
rows.push(await row("keys on: OPTIONS on the landing page", frontDoor(site()), ask("/", {}, "OPTIONS"), {digests}));
rows.push(await row("keys on: a fresh isolate, public, no key", frontDoor(gatedSite), ask("/api/openapi"), {digests}));
rows.push(await row("keys on: a fresh isolate, public, a wrong key", frontDoor(gatedSite),
  ask("/api/openapi/?x=1", {Authorization: "Bearer nope"}), {digests}));
rows.push(await row("keys on: a protected path, keyed", frontDoor(gatedSite),
  ask("/api/companies", {Authorization: `Bearer ${key}`}), {digests}));
rows.push(["reads carried", readsCarried]);
process.stdout.write(JSON.stringify(Object.fromEntries(rows)));
