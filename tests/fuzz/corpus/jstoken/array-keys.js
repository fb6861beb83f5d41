const routes = { list: [(q) => s(q), function (q) {}], nested: { deep: [(q) => 1] } };
function mk () { return { items: [(q) => 1] }; }
