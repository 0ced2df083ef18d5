// interval_map.hpp - a map from half-open key intervals to values, kept in
// canonical form: no two adjacent intervals map to equal values, and the
// value below the first interval is the map's default.
#pragma once

#include <algorithm>
#include <cassert>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace geo::detail {

/// Thrown when an interval is given with its bounds reversed.
class bad_interval : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// interval_map<K, V> maps every key of K to a value of V. It starts as the
/// constant map to `initial`; assign(lo, hi, v) sets [lo, hi) to v.
///
/// Requirements: K is copyable and ordered by Compare; V is copyable and
/// equality-comparable.
template <typename K, typename V, typename Compare = std::less<K>>
class interval_map {
public:
    using key_type = K;
    using mapped_type = V;

    explicit interval_map(V initial, Compare cmp = Compare{})
        : initial_(std::move(initial)), cmp_(cmp), map_(cmp) {}

    /// The value at key.
    const V& operator[](const K& key) const {
        auto it = map_.upper_bound(key);
        if (it == map_.begin()) {
            return initial_;
        }
        return std::prev(it)->second;
    }

    /// Sets [lo, hi) to value. An empty interval (hi <= lo) changes nothing.
    ///
    /// The work is O(log n) plus the number of boundaries removed: the
    /// boundaries inside [lo, hi) are erased in one range erase, and at
    /// most two are inserted.
    void assign(const K& lo, const K& hi, const V& value) {
        if (!cmp_(lo, hi)) {
            return;
        }
        // The value that resumes at hi once the new interval ends.
        const V after = (*this)[hi];
        // The value just before lo decides whether lo is a boundary.
        auto first = map_.lower_bound(lo);
        const V& before = first == map_.begin() ? initial_ : std::prev(first)->second;
        const bool lo_is_boundary = !(before == value);
        const bool hi_is_boundary = !(after == value);

        auto last = map_.lower_bound(hi);
        // Keep a boundary at exactly hi only if it is still needed.
        if (last != map_.end() && !cmp_(hi, last->first)) {
            if (!hi_is_boundary) {
                ++last;
            }
        }
        auto hint = map_.erase(first, last);
        if (hi_is_boundary && (hint == map_.end() || cmp_(hi, hint->first))) {
            hint = map_.emplace_hint(hint, hi, after);
        }
        if (lo_is_boundary) {
            map_.emplace_hint(hint, lo, value);
        }
        assert(canonical());
    }

    /// The number of boundaries (intervals after the initial one).
    std::size_t size() const noexcept { return map_.size(); }

    /// Visits every maximal interval with a defined start, in key order.
    template <typename F>
    void for_each(F&& f) const {
        for (auto it = map_.begin(); it != map_.end(); ++it) {
            auto next = std::next(it);
            std::optional<K> end;
            if (next != map_.end()) {
                end = next->first;
            }
            f(it->first, end, it->second);
        }
    }

    /// Checks the invariant: adjacent intervals have different values, and
    /// the first differs from the initial value.
    bool canonical() const {
        const V* prev = &initial_;
        for (const auto& [key, value] : map_) {
            if (value == *prev) {
                return false;
            }
            prev = &value;
        }
        return true;
    }

    friend std::ostream& operator<<(std::ostream& os, const interval_map& m) {
        os << "{(-inf)->" << m.initial_;
        for (const auto& [key, value] : m.map_) {
            os << ", [" << key << ")->" << value;
        }
        return os << '}';
    }

private:
    V initial_;
    Compare cmp_;
    std::map<K, V, Compare> map_;
};

/// Builds an interval_map from (lo, hi, value) triples, applied in order,
/// and throws bad_interval on a reversed triple instead of ignoring it.
template <typename K, typename V>
interval_map<K, V> from_triples(V initial, const std::vector<std::tuple<K, K, V>>& triples) {
    interval_map<K, V> m(std::move(initial));
    for (const auto& [lo, hi, value] : triples) {
        if (hi < lo) {
            throw bad_interval("interval with hi < lo");
        }
        m.assign(lo, hi, value);
    }
    return m;
}

}  // namespace geo::detail
