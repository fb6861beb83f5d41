// The peer of the trace benchmark: DevTools' trace engine on node, reading
// a trace file as the Performance panel loads one (JSON.parse of the whole
// file, then every handler), and printing the number of sampled threads.
// Needs @paulirish/trace_engine (fixtures/trace/gen: npm ci there).
//   node --max-old-space-size=16000 bench/trace-engine.mjs TRACE
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
globalThis.DOMRect ??= class { constructor(x = 0, y = 0, w = 0, h = 0) { Object.assign(this, { x, y, width: w, height: h }); } };
const engine = path.join(here, "..", "fixtures", "trace", "gen", "node_modules", "@paulirish", "trace_engine", "models", "trace", "trace.js");
const Trace = await import(pathToFileURL(engine).href);
let buf = fs.readFileSync(process.argv[2]);
if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
const json = JSON.parse(buf.toString("utf8"));
buf = null;
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(Array.isArray(json) ? json : json.traceEvents);
const pt = model.parsedTrace();
const data = pt.data ?? pt;
let threads = 0;
for (const byTid of data.Samples.profilesInProcess.values()) threads += byTid.size;
console.log(`${threads} threads`);
