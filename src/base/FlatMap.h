// A map kept as one sorted vector: the subset of std::map's interface the
// checker's analysis state uses, with the same iteration order (by key),
// so that results do not change. Copying one is one allocation, not one per
// entry: the ownership checker copies its state at every branch and join,
// and its maps hold a handful of entries. Unlike std::map, an insertion
// or erasure invalidates iterators and references into the map.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace vx::base {

template <typename K, typename V, typename Less = std::less<K>>
class FlatMap {
 public:
  using key_type = K;
  using mapped_type = V;
  using value_type = std::pair<K, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  FlatMap() = default;
  FlatMap(std::initializer_list<value_type> init) {
    for (const value_type& v : init) insert(v);
  }

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear() { items_.clear(); }

  iterator lower_bound(const K& k) {
    return std::lower_bound(items_.begin(), items_.end(), k,
                            [](const value_type& a, const K& b) { return Less()(a.first, b); });
  }
  const_iterator lower_bound(const K& k) const {
    return std::lower_bound(items_.begin(), items_.end(), k,
                            [](const value_type& a, const K& b) { return Less()(a.first, b); });
  }
  iterator find(const K& k) {
    iterator it = lower_bound(k);
    return it != items_.end() && !Less()(k, it->first) ? it : items_.end();
  }
  const_iterator find(const K& k) const {
    const_iterator it = lower_bound(k);
    return it != items_.end() && !Less()(k, it->first) ? it : items_.end();
  }
  size_t count(const K& k) const { return find(k) != end() ? 1 : 0; }
  bool contains(const K& k) const { return find(k) != end(); }

  template <typename... Args>
  std::pair<iterator, bool> try_emplace(const K& k, Args&&... args) {
    iterator it = lower_bound(k);
    if (it != items_.end() && !Less()(k, it->first)) return {it, false};
    it = items_.emplace(it, std::piecewise_construct, std::forward_as_tuple(k),
                        std::forward_as_tuple(std::forward<Args>(args)...));
    return {it, true};
  }
  std::pair<iterator, bool> insert(const value_type& v) { return try_emplace(v.first, v.second); }
  std::pair<iterator, bool> insert(value_type&& v) { return try_emplace(v.first, std::move(v.second)); }
  template <typename VV>
  std::pair<iterator, bool> emplace(const K& k, VV&& v) {
    return try_emplace(k, std::forward<VV>(v));
  }
  template <typename VV>
  std::pair<iterator, bool> insert_or_assign(const K& k, VV&& v) {
    auto [it, inserted] = try_emplace(k, std::forward<VV>(v));
    if (!inserted) it->second = std::forward<VV>(v);
    return {it, inserted};
  }
  V& operator[](const K& k) { return try_emplace(k).first->second; }
  V& at(const K& k) {
    iterator it = find(k);
    if (it == items_.end()) throw std::out_of_range("FlatMap::at");
    return it->second;
  }
  const V& at(const K& k) const {
    const_iterator it = find(k);
    if (it == items_.end()) throw std::out_of_range("FlatMap::at");
    return it->second;
  }

  size_t erase(const K& k) {
    iterator it = find(k);
    if (it == items_.end()) return 0;
    items_.erase(it);
    return 1;
  }
  iterator erase(const_iterator it) { return items_.erase(it); }
  iterator erase(iterator it) { return items_.erase(it); }

  friend bool operator==(const FlatMap& a, const FlatMap& b) { return a.items_ == b.items_; }
  friend bool operator!=(const FlatMap& a, const FlatMap& b) { return !(a == b); }

 private:
  std::vector<value_type> items_;
};

}  // namespace vx::base
