// Netlify's edge in miniature, for the query front door's Edge Function under Deno, offline (`netlify dev` needs
// the network for its Deno and its edge bootstrap):
//
//   deno run --allow-net=127.0.0.1 --allow-read SITE_DIR/netlify/edge-functions/frontdoor.js... \
//     tests/netlify/edge_harness.mjs SITE_DIR PORT
//
// SITE_DIR holds netlify.toml and dist/. Every [[edge_functions]] of netlify.toml whose path matches runs first
// (the module netlify/edge-functions/<function>.js), with a context whose next() asks the site itself; the site
// is a static server over dist/: a file at the path (a folder through its index.html) with its Content-Type and
// the [[headers]] of its path and the rules of dist/_headers (Netlify applies both), else /404.html with status 404.
// A function's URL is a rewrite: the site serves that path. The rewrite rules are not applied: with the front door,
// the edge function answers every API route before them, and passes on only paths of files.
const [site, port] = Deno.args;
// Netlify's global for the site's environment variables (API_KEY_DIGESTS): here the process environment
globalThis.Netlify ??= {env: {get: (name) => Deno.env.get(name)}};
const toml = await Deno.readTextFile(`${site}/netlify.toml`);

function tables(name) {
  const found = [];
  for (const block of toml.split(/^\[\[/m).slice(1)) {
    if (!block.startsWith(`${name}]]`)) continue;
    const entry = {};
    for (const [, key, value] of block.matchAll(/^\s*([A-Za-z-]+)\s*=\s*"([^"]*)"/gm)) entry[key] = value;
    found.push(entry);
  }
  return found;
}

const glob = (pattern) => new RegExp("^" + pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*") + "$");
const functions = [];
for (const entry of tables("edge_functions")) {
  const module = await import(new URL(`file://${Deno.realPathSync(site)}/netlify/edge-functions/${entry.function}.js`).href);
  functions.push({match: glob(entry.path), handler: module.default});
}
const headerRules = tables("headers").map((entry) => {
  const values = {};
  const block = toml.split(/^\[\[headers\]\]/m).find((b) => b.includes(`for = "${entry.for}"`)) ?? "";
  for (const [, key, value] of block.split("[headers.values]")[1]?.matchAll(/^\s*([A-Za-z-]+)\s*=\s*"([^"]*)"/gm) ?? []) {
    values[key] = value;
  }
  return {match: glob(entry.for), values};
});
// dist/_headers: a path on its own line, then its headers indented ("  Name: value")
try {
  let rule = null;
  for (const line of (await Deno.readTextFile(`${site}/dist/_headers`)).split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    if (!/^\s/.test(line)) {
      rule = {match: glob(line.trim()), values: {}};
      headerRules.push(rule);
    } else if (rule !== null) {
      const cut = line.indexOf(":");
      rule.values[line.slice(0, cut).trim()] = line.slice(cut + 1).trim();
    }
  }
} catch (error) {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}
const TYPES = {json: "application/json", html: "text/html; charset=utf-8", csv: "text/csv", zip: "application/zip",
  parquet: "application/octet-stream", css: "text/css", js: "text/javascript", txt: "text/plain; charset=utf-8"};

async function file(path) {
  try {
    const info = await Deno.stat(`${site}/dist${path}`);
    if (info.isDirectory) return file(path.replace(/\/?$/, "/index.html"));
    return {path, file: `${site}/dist${path}`};
  } catch {
    return null;
  }
}

async function staticSite(request) {
  let path;
  try {
    path = decodeURIComponent(new URL(request.url).pathname);
  } catch {
    path = "/404.html";
  }
  let found = path.includes("..") ? null : await file(path);
  const status = found ? 200 : 404;
  found ??= await file("/404.html");
  const headers = new Headers({"Content-Type": TYPES[found.path.split(".").pop()] ?? "application/octet-stream"});
  for (const rule of headerRules) {
    if (rule.match.test(found.path)) for (const [k, v] of Object.entries(rule.values)) headers.set(k, v);
  }
  // the body streamed from the file, as a CDN serves it
  return new Response(request.method === "HEAD" ? null : (await Deno.open(found.file)).readable, {status, headers});
}

Deno.serve({hostname: "127.0.0.1", port: Number(port), onListen() {}}, async (request) => {
  const path = new URL(request.url).pathname;
  const chain = functions.filter((f) => f.match.test(path));
  const run = async (index) => index < chain.length
    ? chain[index].handler(request, {next: () => run(index + 1), site: {url: new URL(request.url).origin}})
    : staticSite(request);
  const answer = await run(0);
  if (!(answer instanceof URL)) return answer;
  if (answer.origin !== new URL(request.url).origin) throw new Error(`a rewrite to another site: ${answer}`);
  return staticSite(new Request(answer, {method: request.method, headers: request.headers}));
});
