// A decision's deadline: the hard stop of a search (five_towers_env/core/deadline.py holds it per thread; a
// binding passes it in as the seconds left, `stop_after`). A search checks it between rollouts and, once it has
// passed, stops and answers its best move so far. Unset (the default) it never passes and costs one branch, so
// a search without a deadline runs exactly as before.
#pragma once

#include <chrono>
#include <cmath>

namespace ftcore {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  Deadline() = default;  // none: never passes

  // `seconds` from now (0 or less: passed already; not finite: none). Beyond a year is taken as none too, so that
  // no time point overflows.
  static Deadline after(double seconds) {
    Deadline d;
    if (std::isnan(seconds) || seconds > kLongest) return d;
    d.set_ = true;
    d.at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(seconds > 0.0 ? seconds : 0.0));
    return d;
  }

  bool set() const { return set_; }
  // whether the deadline has passed (a steady_clock read, some tens of nanoseconds, only when one is set)
  bool passed() const { return set_ && Clock::now() >= at_; }

 private:
  static constexpr double kLongest = 365.0 * 24 * 3600;
  bool set_ = false;
  Clock::time_point at_{};
};

}  // namespace ftcore
