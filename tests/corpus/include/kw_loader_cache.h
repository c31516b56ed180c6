// kw_loader_cache.h: a thread-safe cache of loader objects by key, the way
// aiter keeps one ASM kernel loader per kernel name: the object is made by a
// factory (a lambda returning it by value) on the first lookup of its key,
// and a reference to the cached object is handed out after.
#pragma once
#include <mutex>
#include <unordered_map>

namespace kw {

template <class Key, class Value>
class KwLoaderCache {
 public:
  template <class Make>
  Value& get_or_create(const Key& key, Make&& make) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) it = items_.emplace(key, make()).first;
    return it->second;
  }

 private:
  std::mutex mu_;
  std::unordered_map<Key, Value> items_;
};

}  // namespace kw
