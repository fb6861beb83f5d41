const isFunction = (v: unknown): v is (...a: any[]) => any => typeof v;
const k = (a: number): ((b: number) => number) => (b) => a + b;
const s = o ? (a) : p => v[p];
const u = c ? (t): T => t : 0;
