// Writes a big Chrome trace for the benchmark: the events of the Chromium
// fixture (fixtures/trace/trace-array.json) COPIES times over, each copy's
// processes renumbered (pid + k * 1000000), so that the profiles stay
// apart: a long recording of many processes, as large as wanted.
//   node bench/gen-trace.mjs COPIES OUT.json
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [copies, out] = [Number(process.argv[2]), process.argv[3]];
const here = path.dirname(fileURLToPath(import.meta.url));
const lines = fs
  .readFileSync(path.join(here, "..", "fixtures", "trace", "trace-array.json"), "utf8")
  .split("\n")
  .filter((l) => l.startsWith("{"))
  .map((l) => l.replace(/,$/, ""));
const fd = fs.openSync(out, "w");
fs.writeSync(fd, '{"traceEvents":[\n');
let first = true;
for (let k = 0; k < copies; k++) {
  const chunk = [];
  for (const l of lines) {
    const e = JSON.parse(l);
    if (typeof e.pid === "number") e.pid += k * 1000000;
    chunk.push((first ? "" : ",\n") + JSON.stringify(e));
    first = false;
  }
  fs.writeSync(fd, chunk.join(""));
}
fs.writeSync(fd, '\n],"metadata":{"source":"DevTools"}}\n');
fs.closeSync(fd);
