const h = isDev ? makeDev() : req => handle(req);
const read = o ? p ? prop => f(v[prop]) : prop => v[prop] : () => v;
const k = c ? (a): T => a : 0, m = async (a): Promise<T> => a;
