// Python's built-in sum() of floats, bit for bit: the ported search code adds lists of floats with sum(), and
// Python 3.12 changed its result (compensated summation, Neumaier's algorithm) while 3.10 and 3.11 add in
// order. The module sets which one at import (set_compensated_sum), from the interpreter it is built for.
#pragma once

#include <cmath>

namespace ftcore {

inline bool& compensated_sum() {
  static bool on = false;
  return on;
}
inline void set_compensated_sum(bool on) { compensated_sum() = on; }

// sum(x[0], ..., x[n-1]) as this Python computes it (starting from the int 0: 0 + x is x)
template <class F>
double py_sum(int n, F&& x) {
  double f = 0.0;
  if (!compensated_sum()) {
    for (int i = 0; i < n; ++i) f += x(i);
    return f;
  }
  double c = 0.0;
  for (int i = 0; i < n; ++i) {
    const double v = x(i);
    const double t = f + v;
    if (std::fabs(f) >= std::fabs(v)) c += (f - t) + v;
    else c += (v - t) + f;
    f = t;
  }
  if (c != 0.0 && std::isfinite(c)) f += c;
  return f;
}

inline double py_sum(const double* x, int n) {
  return py_sum(n, [x](int i) { return x[i]; });
}

}  // namespace ftcore
