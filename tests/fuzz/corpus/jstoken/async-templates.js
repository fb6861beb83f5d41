const o = { async: () => 1, async a() { return `x.${o}.y.${1}` }, async *g() {}, async [k]() {}, async "s"() {} };
async function main() { return `${`a`}b${c}` + `` }
globalThis.__ck = function checksum(n) { let r = 7; for (let i = 0; i < n; i++) r = (r * 31 + i) % 1009; return r };
const f = async x => x, h = async (y) => y, async = 1, t = `unterminated ${
