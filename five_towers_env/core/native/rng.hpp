// numpy's default generator, bit for bit: PCG64 (XSL-RR 128/64) seeded through SeedSequence, the
// buffered 32-bit draws, random_interval and Generator.shuffle. The native engines draw from this so
// that a seed deals the same cards on both backends (np.random.default_rng(seed) <-> Pcg64::from_seed),
// and a Python generator's state moves in and out of a native state unchanged (words()/from_words).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ftcore {

class Pcg64 {
 public:
  using u128 = unsigned __int128;

  Pcg64() = default;

  // np.random.default_rng(seed) for a seed 0 <= seed < 2**64: SeedSequence(seed).generate_state(4, uint64)
  static Pcg64 from_seed(uint64_t seed) {
    const uint32_t entropy[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    return from_entropy(entropy, (seed >> 32) ? 2 : 1);
  }

  // np.random.default_rng((a, b)) for seeds 0 <= a, b < 2**64: SeedSequence's entropy is each one's 32-bit
  // words (least significant first, one word for 0) one after the other
  static Pcg64 from_seeds(uint64_t a, uint64_t b) {
    uint32_t entropy[4];
    int n = 0;
    for (uint64_t x : {a, b}) {
      entropy[n++] = static_cast<uint32_t>(x);
      if (x >> 32) entropy[n++] = static_cast<uint32_t>(x >> 32);
    }
    return from_entropy(entropy, n);
  }

  // SeedSequence(entropy words).generate_state(4, uint64) as the generator's seed, for at most kPool (4) words
  static Pcg64 from_entropy(const uint32_t* entropy, int n_entropy) {
    uint32_t pool[kPool];
    uint32_t hash = kInitA;
    auto hashmix = [&hash](uint32_t value) {
      value ^= hash;
      hash *= kMultA;
      value *= hash;
      value ^= value >> kXShift;
      return value;
    };
    auto mix = [](uint32_t x, uint32_t y) {
      uint32_t r = kMixMultL * x - kMixMultR * y;
      r ^= r >> kXShift;
      return r;
    };
    for (int i = 0; i < kPool; ++i) pool[i] = hashmix(i < n_entropy ? entropy[i] : 0u);
    for (int src = 0; src < kPool; ++src)
      for (int dst = 0; dst < kPool; ++dst)
        if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
    // (at most kPool words never exceed the pool: no further entropy to mix in)
    uint32_t words[8];
    uint32_t hash_b = kInitB;
    for (int i = 0; i < 8; ++i) {
      uint32_t v = pool[i % kPool];
      v ^= hash_b;
      hash_b *= kMultB;
      v *= hash_b;
      v ^= v >> kXShift;
      words[i] = v;
    }
    uint64_t s[4];
    for (int i = 0; i < 4; ++i) s[i] = static_cast<uint64_t>(words[2 * i]) | (static_cast<uint64_t>(words[2 * i + 1]) << 32);
    Pcg64 g;
    const u128 initstate = (static_cast<u128>(s[0]) << 64) | s[1];
    const u128 initseq = (static_cast<u128>(s[2]) << 64) | s[3];
    g.state_ = 0;
    g.inc_ = (initseq << 1) | 1;
    g.step();
    g.state_ += initstate;
    g.step();
    return g;
  }

  // numpy's bit_generator.state: state (hi, lo), inc (hi, lo), has_uint32, uinteger
  std::array<uint64_t, 6> words() const {
    return {static_cast<uint64_t>(state_ >> 64), static_cast<uint64_t>(state_), static_cast<uint64_t>(inc_ >> 64),
            static_cast<uint64_t>(inc_), static_cast<uint64_t>(has_uint32_), static_cast<uint64_t>(uinteger_)};
  }

  static Pcg64 from_words(const std::array<uint64_t, 6>& w) {
    Pcg64 g;
    g.state_ = (static_cast<u128>(w[0]) << 64) | w[1];
    g.inc_ = (static_cast<u128>(w[2]) << 64) | w[3];
    g.has_uint32_ = w[4] != 0;
    g.uinteger_ = static_cast<uint32_t>(w[5]);
    return g;
  }

  uint64_t next64() {
    ++draws_;
    step();
    const uint64_t hi = static_cast<uint64_t>(state_ >> 64);
    const uint64_t lo = static_cast<uint64_t>(state_);
    const unsigned rot = static_cast<unsigned>(state_ >> 122);
    const uint64_t x = hi ^ lo;
    return (x >> rot) | (x << ((64 - rot) & 63));
  }

  uint32_t next32() {
    if (has_uint32_) {
      ++draws_;
      has_uint32_ = false;
      return uinteger_;
    }
    const uint64_t next = next64();
    has_uint32_ = true;
    uinteger_ = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next);
  }

  // numpy's random_interval: uniform on 0..max inclusive, by masked rejection
  uint64_t interval(uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    uint64_t value;
    if (max <= 0xffffffffULL) {
      while ((value = (next32() & mask)) > max) {
      }
    } else {
      while ((value = (next64() & mask)) > max) {
      }
    }
    return value;
  }

  // numpy's Generator.shuffle of a 1-D array (so Generator.permutation of a list, copied first)
  template <class T>
  void shuffle(T* data, size_t n) {
    for (size_t i = n; i-- > 1;) {
      const size_t j = static_cast<size_t>(interval(i));
      std::swap(data[i], data[j]);
    }
  }

  template <class T>
  void shuffle(std::vector<T>& v) {
    shuffle(v.data(), v.size());
  }

  // how many values were drawn so far (the Python wrapper copies the state back when this moves)
  uint64_t draws() const { return draws_; }

 private:
  static constexpr int kPool = 4;
  static constexpr uint32_t kInitA = 0x43b0d7e5u, kMultA = 0x931e8875u, kInitB = 0x8b51f9ddu, kMultB = 0x58f38dedu;
  static constexpr uint32_t kMixMultL = 0xca01f9ddu, kMixMultR = 0x4973f715u;
  static constexpr int kXShift = 16;
  static constexpr u128 kMult = (static_cast<u128>(0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;

  void step() { state_ = state_ * kMult + inc_; }

  u128 state_ = 0;
  u128 inc_ = 1;
  bool has_uint32_ = false;
  uint32_t uinteger_ = 0;
  uint64_t draws_ = 0;
};

// numpy's Generator.integers(n) for 2**32 < n < 2**64 (Lemire's method on 64-bit draws, the buffered 32-bit
// draw untouched): how the search agents draw the seed of a decision's determinisations (integers(1 << 62))
inline uint64_t integers_below64(Pcg64& rng, uint64_t n) {
  using u128 = unsigned __int128;
  u128 m = static_cast<u128>(rng.next64()) * n;
  uint64_t leftover = static_cast<uint64_t>(m);
  if (leftover < n) {
    const uint64_t threshold = (UINT64_MAX - (n - 1)) % n;
    while (leftover < threshold) {
      m = static_cast<u128>(rng.next64()) * n;
      leftover = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

// numpy's Generator.random(): (next64 >> 11) * 2**-53, which leaves the buffered 32-bit draw untouched (how
// Campanile's search draws the uniform numbers that drive a determinisation's rollouts, random(128))
inline double random_double(Pcg64& rng) { return static_cast<double>(rng.next64() >> 11) * (1.0 / 9007199254740992.0); }

// numpy's Generator.integers(n) for 2 <= n < 2**32 (Lemire's method on the buffered 32-bit draws): how the
// rule-based agents draw a tie (core.agent.best_after), so the native agents leave a generator as numpy does
inline uint64_t integers_below(Pcg64& rng, uint32_t n) {
  const uint32_t max = n - 1, excl = n;
  uint64_t m = static_cast<uint64_t>(rng.next32()) * excl;
  uint32_t leftover = static_cast<uint32_t>(m);
  if (leftover < excl) {
    const uint32_t threshold = (UINT32_MAX - max) % excl;
    while (leftover < threshold) {
      m = static_cast<uint64_t>(rng.next32()) * excl;
      leftover = static_cast<uint32_t>(m);
    }
  }
  return m >> 32;
}

}  // namespace ftcore
