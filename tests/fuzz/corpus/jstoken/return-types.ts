function f(): Map<string, number> { return m }
export async function g(): Promise<Map<string, Array<number>>> { return m }
function c(n: number, k?: string | symbol): Map<string, (x: number) => void> { return m }
class R<K, V> { entries(n): Array<{ key: K, value: V }> { return [] } static of<A, B>(a: A): R<A, B> { return r } }
const o = { k: c ? g(a) : b < d, m() { return 1 } };
const v: Map<A, (a: number) => void> = m; use(a, (x) => x);
function d({ x = !a?.b, y = f(1, (z) => z) } = {}, w = 1): Pair<A, B> { return p }
