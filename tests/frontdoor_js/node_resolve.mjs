// The JavaScript front door under Node over a built folder: reads requests (JSON lines: "path?query") on stdin,
// writes one JSON answer per request (status, content type, file, fetches, body) on stdout.
import {readFile} from "node:fs/promises";
import {join} from "node:path";
import {resolve} from "../../generator/frontdoor/js/frontdoor.mjs";

const root = process.argv[2];
const space = JSON.parse(await readFile(join(root, "api", "query-space.json"), "utf-8"));
const fetchFile = async (path) => {
  try {
    return await readFile(join(root, path));
  } catch {
    return null;
  }
};
let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const url of JSON.parse(input)) {
  const at = url.indexOf("?");
  const [path, query] = at < 0 ? [url, ""] : [url.slice(0, at), url.slice(at + 1)];
  try {
    const found = await resolve(space, path, query, fetchFile);
    out.push(found === null ? null : {status: found.status, content_type: found.contentType, file: found.file,
      fetches: found.fetches, body: found.file ? null : found.body});
  } catch (error) {
    out.push({status: 500, error: String(error)});
  }
}
process.stdout.write(JSON.stringify(out));
