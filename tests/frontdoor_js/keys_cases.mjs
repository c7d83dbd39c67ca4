// keys.mjs on the cases tests/test_keys.py gives on stdin, for comparison with generator/frontdoor/keys.py:
//   {"parse": [text|null], "credential": [[authorization|null, apiKey|null]], "public": [path],
//    "check": [[digestsText|null, path, authorization|null, apiKey|null]], "digest": [key], "normal": [path]}
// prints the same shape with each case's answer, and the module's constants.
import * as keys from "../../generator/frontdoor/js/keys.mjs";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString("utf-8"));
const sorted = (found) => (found === null ? null : [...found].sort());
const out = {
  parse: cases.parse.map((text) => sorted(keys.parseDigests(text))),
  credential: cases.credential.map(([authorization, apiKey]) => keys.credential(authorization, apiKey)),
  public: cases.public.map((path) => keys.isPublic(path)),
  normal: cases.normal.map((path) => [keys.normalPath(path), keys.isApi(path)]),
  check: [],
  digest: [],
  constants: {
    KEY_HEADER: keys.KEY_HEADER, DIGESTS_VARIABLE: keys.DIGESTS_VARIABLE, REALM: keys.REALM,
    PUBLIC_PATH: keys.PUBLIC_PATH.source, KEYED_CACHE_CONTROL: keys.KEYED_CACHE_CONTROL,
    REFUSED_CACHE_CONTROL: keys.REFUSED_CACHE_CONTROL, VARY: keys.VARY, RETRY_AFTER_SECONDS: keys.RETRY_AFTER_SECONDS,
    UNAUTHORIZED: keys.UNAUTHORIZED, TOO_MANY_REQUESTS: keys.TOO_MANY_REQUESTS,
    challenge: [keys.wwwAuthenticate(false), keys.wwwAuthenticate(true)],
    ALLOWED_METHODS: keys.ALLOWED_METHODS, METHOD_NOT_ALLOWED: keys.METHOD_NOT_ALLOWED,
    PUBLIC_DOCUMENTS: keys.PUBLIC_DOCUMENTS,
  },
};
for (const [text, path, authorization, apiKey] of cases.check) {
  const verdict = await keys.check(keys.parseDigests(text), path, authorization, apiKey);
  out.check.push({...verdict, headers: keys.verdictHeaders(verdict)});
}
for (const key of cases.digest) out.digest.push(await keys.digest(key));
process.stdout.write(JSON.stringify(out));
