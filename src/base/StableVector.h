// A growable array whose elements never move: storage comes in chunks of a
// power-of-two number of elements, so a reference taken before a push_back
// stays valid after it (as with std::deque), and indexing is a shift, a
// mask and two loads (std::deque divides by its block's element count, and
// allocates a block per 512 bytes). The arenas of the AST, the HIR, the
// type table and the term store are StableVectors: the phases index them in
// their inner loops.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace vx::base {

template <typename T>
class StableVector {
  static constexpr size_t kChunkBytes = 16384;
  static constexpr size_t shiftFor(size_t per) {
    size_t s = 0;
    while ((size_t{2} << s) <= per) ++s;
    return s;
  }
  static constexpr size_t kShift = shiftFor(kChunkBytes / sizeof(T) > 0 ? kChunkBytes / sizeof(T) : 1);
  static constexpr size_t kPerChunk = size_t{1} << kShift;
  static constexpr size_t kMask = kPerChunk - 1;

  template <bool Const>
  class Iter {
    using Owner = std::conditional_t<Const, const StableVector, StableVector>;

   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = std::conditional_t<Const, const T*, T*>;
    using reference = std::conditional_t<Const, const T&, T&>;

    Iter() = default;
    Iter(Owner* v, size_t i) : v_(v), i_(i) {}
    operator Iter<true>() const { return Iter<true>(v_, i_); }  // NOLINT: iterator to const_iterator
    reference operator*() const { return (*v_)[i_]; }
    pointer operator->() const { return &(*v_)[i_]; }
    reference operator[](difference_type n) const { return (*v_)[i_ + n]; }
    Iter& operator++() { ++i_; return *this; }
    Iter operator++(int) { Iter t = *this; ++i_; return t; }
    Iter& operator--() { --i_; return *this; }
    Iter operator--(int) { Iter t = *this; --i_; return t; }
    Iter& operator+=(difference_type n) { i_ += n; return *this; }
    Iter& operator-=(difference_type n) { i_ -= n; return *this; }
    friend Iter operator+(Iter a, difference_type n) { return a += n; }
    friend Iter operator+(difference_type n, Iter a) { return a += n; }
    friend Iter operator-(Iter a, difference_type n) { return a -= n; }
    friend difference_type operator-(const Iter& a, const Iter& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const Iter& a, const Iter& b) { return a.i_ == b.i_; }
    friend bool operator!=(const Iter& a, const Iter& b) { return a.i_ != b.i_; }
    friend bool operator<(const Iter& a, const Iter& b) { return a.i_ < b.i_; }
    friend bool operator>(const Iter& a, const Iter& b) { return a.i_ > b.i_; }
    friend bool operator<=(const Iter& a, const Iter& b) { return a.i_ <= b.i_; }
    friend bool operator>=(const Iter& a, const Iter& b) { return a.i_ >= b.i_; }

   private:
    Owner* v_ = nullptr;
    size_t i_ = 0;
  };

 public:
  using value_type = T;
  using size_type = size_t;
  using reference = T&;
  using const_reference = const T&;
  using iterator = Iter<false>;
  using const_iterator = Iter<true>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  StableVector() = default;
  StableVector(const StableVector& o) {
    for (const T& x : o) push_back(x);
  }
  StableVector(StableVector&& o) noexcept : chunks_(std::move(o.chunks_)), size_(o.size_) {
    o.chunks_.clear();
    o.size_ = 0;
  }
  StableVector& operator=(const StableVector& o) {
    if (this != &o) {
      StableVector copy(o);
      swap(copy);
    }
    return *this;
  }
  StableVector& operator=(StableVector&& o) noexcept {
    if (this != &o) {
      StableVector gone(std::move(*this));
      swap(o);
    }
    return *this;
  }
  ~StableVector() {
    clear();
    for (T* c : chunks_) ::operator delete(static_cast<void*>(c), std::align_val_t{alignof(T)});
  }
  void swap(StableVector& o) noexcept {
    chunks_.swap(o.chunks_);
    std::swap(size_, o.size_);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return chunks_[i >> kShift][i & kMask]; }
  const T& operator[](size_t i) const { return chunks_[i >> kShift][i & kMask]; }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if ((size_ >> kShift) == chunks_.size())
      chunks_.push_back(static_cast<T*>(::operator new(kPerChunk * sizeof(T), std::align_val_t{alignof(T)})));
    T* at = &chunks_[size_ >> kShift][size_ & kMask];
    ::new (static_cast<void*>(at)) T(std::forward<Args>(args)...);
    ++size_;
    return *at;
  }
  void push_back(const T& x) { emplace_back(x); }
  void push_back(T&& x) { emplace_back(std::move(x)); }
  void pop_back() {
    --size_;
    if constexpr (!std::is_trivially_destructible_v<T>) (*this)[size_].~T();
  }
  // Shrinking destroys the last elements; growing appends default ones.
  void resize(size_t n) {
    while (size_ > n) pop_back();
    while (size_ < n) emplace_back();
  }
  void clear() {
    if constexpr (std::is_trivially_destructible_v<T>)
      size_ = 0;
    else
      while (size_ > 0) pop_back();
  }

  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, size_); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size_); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

 private:
  std::vector<T*> chunks_;  // each holds kPerChunk elements' storage
  size_t size_ = 0;
};

}  // namespace vx::base
