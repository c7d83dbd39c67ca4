// What Netlify would serve for a batch of requests, decided by Netlify's own parser and matcher.
//
//   node tests/netlify/resolve.mjs NETLIFY_TOML PUBLISH_DIR < requests.jsonl > answers.jsonl
//
// netlify.toml is parsed by @netlify/redirect-parser (any parse error is fatal), the redirects are handed to
// netlify-redirector (the matcher of Netlify's edge), and each input line {"path": "/api/...", "query": "a=b"}
// gets one output line {"file": "/api/....json", "status": 200} in the same order:
//   - a file at the request path wins (no rule here uses force); a folder counts through its index.html;
//   - otherwise the first matching rule decides, in one pass: its target with the rule's status if the target
//     file exists, else the site's /404.html with 404 (a later catch-all rule is not consulted);
//   - no matching rule and no file: /404.html with 404.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { parseAllRedirects } from '@netlify/redirect-parser';
import redirector from 'netlify-redirector';

const SITE_404 = '/404.html';

function fail(message) {
  process.stderr.write(`resolve.mjs: ${message}\n`);
  process.exit(2);
}

const [configPath, publishArg] = process.argv.slice(2);
if (!configPath || !publishArg) fail('usage: node resolve.mjs NETLIFY_TOML PUBLISH_DIR < requests.jsonl');
// The parser silently returns no rules for a missing file: check it first.
if (!existsSync(configPath)) fail(`no such file: ${configPath}`);
const publish = path.resolve(publishArg);
if (!existsSync(publish) || !statSync(publish).isDirectory()) fail(`no such folder: ${publish}`);

const { redirects, errors } = await parseAllRedirects({
  netlifyConfigPath: path.resolve(configPath),
  redirectsFiles: [],
  configRedirects: [],
  minimal: false,
});
if (errors.length > 0) fail(`${errors.length} parse error(s):\n${errors.map((e) => `  ${e.message ?? e}`).join('\n')}`);
const declared = (readFileSync(configPath, 'utf8').match(/^\s*\[\[redirects\]\]\s*$/gm) ?? []).length;
if (redirects.length !== declared) fail(`parsed ${redirects.length} redirects, the file declares ${declared}`);

// The parser's shape ({from, query, ...}) -> the matcher's ({path, params, ...}); refuse anything not converted.
const rules = redirects.map((redirect, index) => {
  const unsupported = [];
  if (redirect.proxy) unsupported.push('proxy');
  if (redirect.signed) unsupported.push('signed');
  if (Object.keys(redirect.conditions ?? {}).length) unsupported.push('conditions');
  if (Object.keys(redirect.headers ?? {}).length) unsupported.push('headers');
  if (unsupported.length) fail(`redirect #${index + 1} (${redirect.from}) uses ${unsupported.join(', ')}: not converted`);
  return {
    path: redirect.from,
    to: redirect.to,
    status: redirect.status ?? 301,
    force: Boolean(redirect.force),
    params: redirect.query ?? {},
  };
});
const matcher = await redirector.parseJSON(JSON.stringify(rules), {});

// The file a URL path names inside the publish folder (a folder through its index.html), or null.
function fileAt(urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  let candidate = path.resolve(publish, `.${path.posix.normalize(`/${decoded}`)}`);
  if (candidate !== publish && !candidate.startsWith(publish + path.sep)) return null;
  if (existsSync(candidate) && statSync(candidate).isDirectory()) candidate = path.join(candidate, 'index.html');
  if (!existsSync(candidate) || !statSync(candidate).isFile()) return null;
  return `/${path.relative(publish, candidate).split(path.sep).join('/')}`;
}

function resolve(urlPath, query) {
  const own = fileAt(urlPath);
  if (own !== null) return { file: own, status: 200 };
  const match = matcher.match({
    scheme: 'http',
    host: 'localhost',
    path: urlPath,
    query,
    getHeader: () => '',
    getCookie: () => '',
  });
  if (match) {
    if (match.force) fail(`rule ${match.from} uses force: not supported by this script`);
    // An empty placeholder leaves an empty path segment: deployed files are keyed by their exact path, so
    // no file has one.
    const targetPath = match.to.split('?')[0];
    const target = targetPath.includes('//') ? null : fileAt(targetPath);
    if (target !== null) return { file: target, status: match.status, to: match.to };
    return { file: SITE_404, status: 404, to: match.to };
  }
  return { file: SITE_404, status: 404, to: null };
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  if (typeof request.path !== 'string') fail(`request without a path: ${line}`);
  process.stdout.write(`${JSON.stringify(resolve(request.path, request.query ?? ''))}\n`);
}
