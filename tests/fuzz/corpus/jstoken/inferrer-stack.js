"production" !== process.env.NODE_ENV && (function () {
  exports.jsx = function (t) {};
  exports.a = exports.b = function () {}, R.c = () => 1;
})();
a.b && !function Baz () { if (x) { R["f2"] = function () {}; } }();
function Qux () { w = hook.__wdc || (hook.__wdc = () => 1); }
R.default = /ab(c)/g
R.g1 = function () {}
