// lookup-source-map.mjs: the mozilla source-map peer of sourcemap-lookup in
// bench/run.
//
//	node bench/lookup-source-map.mjs MAP < positions
//
// Parses MAP and prints "SOURCE:LINE:COL NAME" for each "LINE:COL" (1-based)
// on standard input, "-" when unmapped, as sourcemap-lookup does.
import sourceMap from 'source-map';
import { readFileSync, writeSync } from 'node:fs';

const map = await new sourceMap.SourceMapConsumer(readFileSync(process.argv[2], 'utf8'));
const input = readFileSync(0, 'latin1').split('\n');
const out = [];
for (const s of input) {
	if (s === '')
		continue;
	const c = s.lastIndexOf(':');
	const p = map.originalPositionFor({ line: +s.slice(0, c), column: +s.slice(c + 1) - 1 });
	if (p.line == null)
		out.push('-');
	else
		out.push(`${p.source ?? '?'}:${p.line}:${p.column + 1}` + (p.name != null ? ' ' + p.name : ''));
}
out.push('');
writeSync(1, out.join('\n'));
map.destroy();
