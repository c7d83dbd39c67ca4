// The JavaScript client over a static server: reads a JSON list of URLs on stdin, writes {url: {status, body,
// content-type, seconds}} on stdout.
import {createClient} from "../../generator/frontdoor/js/client.mjs";

const api = createClient(process.argv[2]);
let input = "";
for await (const chunk of process.stdin) input += chunk;
const table = {};
for (const url of JSON.parse(input)) {
  const start = performance.now();
  const answer = await api.get(url);
  table[url] = {status: answer.status, body: answer.text(), "content-type": answer.contentType,
    seconds: (performance.now() - start) / 1000};
}
process.stdout.write(JSON.stringify(table));
