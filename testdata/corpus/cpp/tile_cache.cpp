// tile_cache.cpp - a thread-safe cache of decoded map tiles with a memory
// budget, asynchronous loading and request coalescing.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "interval_map.hpp"

namespace geo {

struct TileId {
    std::uint8_t zoom = 0;
    std::uint32_t x = 0;
    std::uint32_t y = 0;

    bool operator==(const TileId& o) const noexcept {
        return zoom == o.zoom && x == o.x && y == o.y;
    }
};

struct TileIdHash {
    std::size_t operator()(const TileId& id) const noexcept {
        // x and y fit in 2^zoom <= 2^24; pack everything into 64 bits.
        std::uint64_t v = (std::uint64_t{id.zoom} << 56) ^ (std::uint64_t{id.x} << 28) ^ id.y;
        v ^= v >> 33;
        v *= 0xff51afd7ed558ccdULL;
        v ^= v >> 33;
        return static_cast<std::size_t>(v);
    }
};

/// A decoded tile: RGBA pixels.
struct Tile {
    TileId id;
    int width = 256;
    int height = 256;
    std::vector<std::uint8_t> rgba;

    std::size_t bytes() const noexcept { return rgba.size() + sizeof(Tile); }
};

using TilePtr = std::shared_ptr<const Tile>;

/// Fetches and decodes one tile; may block, may throw.
class TileSource {
public:
    virtual ~TileSource() = default;
    virtual TilePtr load(const TileId& id) = 0;
};

class TileCache {
public:
    struct Stats {
        std::uint64_t hits = 0;
        std::uint64_t misses = 0;
        std::uint64_t coalesced = 0;
        std::uint64_t evictions = 0;
        std::uint64_t failures = 0;
    };

    TileCache(std::shared_ptr<TileSource> source, std::size_t budget_bytes)
        : source_(std::move(source)), budget_(budget_bytes) {}

    TileCache(const TileCache&) = delete;
    TileCache& operator=(const TileCache&) = delete;

    /// Returns the tile, loading it when absent. Concurrent requests for
    /// the same tile wait for one load instead of starting their own.
    std::shared_future<TilePtr> get(const TileId& id);

    /// Drops every tile above max_zoom, e.g. after the view zoomed out.
    std::size_t drop_above(std::uint8_t max_zoom);

    Stats stats() const {
        std::lock_guard<std::mutex> lock(mu_);
        return stats_;
    }

    std::size_t used_bytes() const {
        std::lock_guard<std::mutex> lock(mu_);
        return used_;
    }

private:
    struct Entry {
        TilePtr tile;
        std::list<TileId>::iterator lru;
    };

    void insert_locked(const TileId& id, TilePtr tile);
    void evict_locked();

    std::shared_ptr<TileSource> source_;
    const std::size_t budget_;

    mutable std::mutex mu_;
    std::list<TileId> lru_;  // front: most recent
    std::unordered_map<TileId, Entry, TileIdHash> entries_;
    std::unordered_map<TileId, std::shared_future<TilePtr>, TileIdHash> pending_;
    std::size_t used_ = 0;
    Stats stats_;
};

std::shared_future<TilePtr> TileCache::get(const TileId& id) {
    std::unique_lock<std::mutex> lock(mu_);
    if (auto it = entries_.find(id); it != entries_.end()) {
        ++stats_.hits;
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        std::promise<TilePtr> ready;
        ready.set_value(it->second.tile);
        return ready.get_future().share();
    }
    if (auto it = pending_.find(id); it != pending_.end()) {
        ++stats_.coalesced;
        return it->second;
    }
    ++stats_.misses;

    auto promise = std::make_shared<std::promise<TilePtr>>();
    auto future = promise->get_future().share();
    pending_.emplace(id, future);
    lock.unlock();

    // The load runs on its own thread; the cache lock is never held while
    // the source works, so a slow network cannot stall cache hits.
    std::thread([this, id, promise] {
        TilePtr tile;
        std::exception_ptr error;
        try {
            tile = source_->load(id);
            if (!tile) {
                throw std::runtime_error("tile source returned no tile");
            }
        } catch (...) {
            error = std::current_exception();
        }
        {
            std::lock_guard<std::mutex> guard(mu_);
            pending_.erase(id);
            if (error) {
                ++stats_.failures;
            } else {
                insert_locked(id, tile);
            }
        }
        if (error) {
            promise->set_exception(error);
        } else {
            promise->set_value(std::move(tile));
        }
    }).detach();

    return future;
}

void TileCache::insert_locked(const TileId& id, TilePtr tile) {
    if (auto it = entries_.find(id); it != entries_.end()) {
        used_ -= it->second.tile->bytes();
        lru_.erase(it->second.lru);
        entries_.erase(it);
    }
    used_ += tile->bytes();
    lru_.push_front(id);
    entries_.emplace(id, Entry{std::move(tile), lru_.begin()});
    evict_locked();
}

void TileCache::evict_locked() {
    // Keep the most recent tile even when it alone is over the budget:
    // evicting what was just loaded would make the cache useless.
    while (used_ > budget_ && lru_.size() > 1) {
        const TileId victim = lru_.back();
        auto it = entries_.find(victim);
        used_ -= it->second.tile->bytes();
        entries_.erase(it);
        lru_.pop_back();
        ++stats_.evictions;
    }
}

std::size_t TileCache::drop_above(std::uint8_t max_zoom) {
    std::lock_guard<std::mutex> lock(mu_);
    std::size_t dropped = 0;
    for (auto it = lru_.begin(); it != lru_.end();) {
        if (it->zoom <= max_zoom) {
            ++it;
            continue;
        }
        auto entry = entries_.find(*it);
        used_ -= entry->second.tile->bytes();
        entries_.erase(entry);
        it = lru_.erase(it);
        ++dropped;
    }
    return dropped;
}

}  // namespace geo
