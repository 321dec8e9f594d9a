#pragma once
/// @file
/// Lock-free single-producer, single-consumer triple buffer. The producer
/// writes a whole value into its private slot and publishes it with one
/// atomic exchange; the consumer takes the newest published value with
/// another. Neither side ever waits for the other: a slow consumer only
/// skips values, a slow producer only leaves the consumer on the last one.

#include <array>
#include <atomic>
#include <cstdint>

namespace articula::viewer {

template <class T>
class TripleBuffer {
 public:
  TripleBuffer() = default;
  explicit TripleBuffer(const T& initial) : m_slots{initial, initial, initial} {}
  TripleBuffer(const TripleBuffer&) = delete;
  TripleBuffer& operator=(const TripleBuffer&) = delete;

  // ---- producer thread ---------------------------------------------------
  /// The producer's slot: overwrite it completely, then publish(). It holds
  /// a value published (at least) two publishes ago, or the initial value.
  T& writeSlot() { return m_slots[m_back]; }
  /// Makes the write slot the newest value and takes a free slot to write next.
  void publish() {
    const std::uint8_t previous =
        m_middle.exchange(static_cast<std::uint8_t>(m_back | kFresh), std::memory_order_acq_rel);
    m_back = previous & kIndexMask;
  }

  // ---- consumer thread ---------------------------------------------------
  /// Takes the newest published value if there is one not yet taken;
  /// returns whether readSlot() changed.
  bool acquire() {
    if ((m_middle.load(std::memory_order_relaxed) & kFresh) == 0) return false;
    const std::uint8_t previous = m_middle.exchange(m_front, std::memory_order_acq_rel);
    m_front = previous & kIndexMask;
    return true;
  }
  /// The consumer's slot: the value last acquired (or the initial value).
  /// The producer never touches it.
  const T& readSlot() const { return m_slots[m_front]; }

  /// Whether lock-free on this platform (always true for a byte on x86-64).
  static constexpr bool isLockFree() { return std::atomic<std::uint8_t>::is_always_lock_free; }

 private:
  static constexpr std::uint8_t kIndexMask = 0x3;
  static constexpr std::uint8_t kFresh = 0x4;

  std::array<T, 3> m_slots{};
  // The three indices are always a permutation of {0, 1, 2}.
  alignas(64) std::uint8_t m_back = 0;                // producer only
  alignas(64) std::atomic<std::uint8_t> m_middle{1};  // shared, with the fresh bit
  alignas(64) std::uint8_t m_front = 2;               // consumer only
};

}  // namespace articula::viewer
