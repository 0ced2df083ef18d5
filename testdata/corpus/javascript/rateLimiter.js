'use strict';

/**
 * A token-bucket rate limiter with an in-memory store and an Express-style
 * middleware. Buckets refill continuously; a request takes one token (or
 * `cost` tokens) and is refused when the bucket is empty.
 *
 * @module rateLimiter
 */

const { EventEmitter } = require('events');

const DEFAULT_OPTIONS = Object.freeze({
  capacity: 60,
  refillPerSecond: 1,
  keyPrefix: 'rl:',
  headers: true,
  trustProxy: false,
});

// Milliseconds in a second; kept as a name so the arithmetic reads.
const MS_PER_SECOND = 1000;

/**
 * Thrown when an option is out of range.
 */
class RateLimitConfigError extends Error {
  constructor(option, value, reason) {
    super(`invalid rate limit option ${option}=${JSON.stringify(value)}: ${reason}`);
    this.name = 'RateLimitConfigError';
    this.option = option;
    this.value = value;
  }
}

/**
 * Validates and completes the options of a limiter.
 *
 * @param {object} options
 * @returns {object} a frozen copy with every default filled in
 */
function normalizeOptions(options = {}) {
  const merged = { ...DEFAULT_OPTIONS, ...options };
  if (!Number.isInteger(merged.capacity) || merged.capacity < 1) {
    throw new RateLimitConfigError('capacity', merged.capacity, 'must be a positive integer');
  }
  if (typeof merged.refillPerSecond !== 'number' || !(merged.refillPerSecond > 0)) {
    throw new RateLimitConfigError('refillPerSecond', merged.refillPerSecond, 'must be a positive number');
  }
  if (typeof merged.keyPrefix !== 'string') {
    throw new RateLimitConfigError('keyPrefix', merged.keyPrefix, 'must be a string');
  }
  return Object.freeze(merged);
}

/**
 * An in-memory store of buckets. A production deployment would put these
 * in Redis; the interface is the same: get, set and an expiry sweep.
 */
class MemoryStore {
  #buckets = new Map();
  #timer = null;

  constructor({ sweepIntervalMs = 60 * MS_PER_SECOND, now = Date.now } = {}) {
    this.now = now;
    this.sweepIntervalMs = sweepIntervalMs;
  }

  get(key) {
    return this.#buckets.get(key);
  }

  set(key, bucket) {
    this.#buckets.set(key, bucket);
  }

  get size() {
    return this.#buckets.size;
  }

  // Removes buckets that have been full for longer than maxIdleMs: a full
  // bucket is the same as no bucket, so nothing is lost.
  sweep(maxIdleMs) {
    const cutoff = this.now() - maxIdleMs;
    let removed = 0;
    for (const [key, bucket] of this.#buckets) {
      if (bucket.full && bucket.updatedAt < cutoff) {
        this.#buckets.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  startSweeping(maxIdleMs) {
    if (this.#timer) {
      return;
    }
    this.#timer = setInterval(() => this.sweep(maxIdleMs), this.sweepIntervalMs);
    // Never keep the process alive just to sweep.
    if (typeof this.#timer.unref === 'function') {
      this.#timer.unref();
    }
  }

  stopSweeping() {
    clearInterval(this.#timer);
    this.#timer = null;
  }
}

/**
 * The limiter itself. Emits `limited` with the key whenever a request is
 * refused, so that callers can log or count refusals.
 */
class RateLimiter extends EventEmitter {
  constructor(options, store = new MemoryStore()) {
    super();
    this.options = normalizeOptions(options);
    this.store = store;
  }

  /**
   * Takes `cost` tokens from the bucket of `key`.
   *
   * @returns {{allowed: boolean, remaining: number, retryAfterMs: number}}
   */
  take(key, cost = 1) {
    const { capacity, refillPerSecond, keyPrefix } = this.options;
    if (cost > capacity) {
      // Such a request could never pass: say so instead of waiting forever.
      return { allowed: false, remaining: 0, retryAfterMs: Infinity };
    }
    const now = this.store.now();
    const fullKey = keyPrefix + key;
    const bucket = this.store.get(fullKey) ?? { tokens: capacity, updatedAt: now, full: true };
    const elapsed = Math.max(0, now - bucket.updatedAt) / MS_PER_SECOND;
    const tokens = Math.min(capacity, bucket.tokens + elapsed * refillPerSecond);
    const allowed = tokens >= cost;
    const left = allowed ? tokens - cost : tokens;
    this.store.set(fullKey, { tokens: left, updatedAt: now, full: left >= capacity });
    const retryAfterMs = allowed ? 0 : Math.ceil(((cost - left) / refillPerSecond) * MS_PER_SECOND);
    if (!allowed) {
      this.emit('limited', key, retryAfterMs);
    }
    return { allowed, remaining: Math.floor(left), retryAfterMs };
  }
}

/**
 * Finds the client's address, honouring X-Forwarded-For only behind a
 * trusted proxy (otherwise any client could pick its own bucket).
 */
function clientKey(req, trustProxy) {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    if (typeof forwarded === 'string' && forwarded.length > 0) {
      return forwarded.split(',')[0].trim();
    }
  }
  return req.socket?.remoteAddress ?? 'unknown';
}

/**
 * Express-style middleware: `app.use(rateLimit({ capacity: 100 }))`.
 *
 * The middleware sets the draft RateLimit headers, answers 429 with a
 * Retry-After header when the bucket is empty, and lets a `skip(req)`
 * option exempt requests (health checks, say). A `cost(req)` option can
 * make expensive endpoints take more than one token.
 */
function rateLimit(options = {}) {
  const { skip, cost, keyGenerator, onLimited, ...limiterOptions } = options;
  const limiter = new RateLimiter(limiterOptions);
  const { capacity, refillPerSecond, headers, trustProxy } = limiter.options;
  if (typeof onLimited === 'function') {
    limiter.on('limited', onLimited);
  }

  return function rateLimitMiddleware(req, res, next) {
    if (typeof skip === 'function' && skip(req)) {
      return next();
    }
    let key;
    try {
      key = typeof keyGenerator === 'function' ? keyGenerator(req) : clientKey(req, trustProxy);
    } catch (err) {
      // A broken key generator must not let every request through.
      return next(err);
    }
    const tokens = typeof cost === 'function' ? Number(cost(req)) || 1 : 1;
    const result = limiter.take(String(key), tokens);

    if (headers) {
      const resetSeconds = Math.ceil((capacity - result.remaining) / refillPerSecond);
      res.setHeader('RateLimit-Limit', String(capacity));
      res.setHeader('RateLimit-Remaining', String(result.remaining));
      res.setHeader('RateLimit-Reset', String(resetSeconds));
    }

    if (result.allowed) {
      return next();
    }

    const retryAfter = Number.isFinite(result.retryAfterMs)
      ? Math.ceil(result.retryAfterMs / MS_PER_SECOND)
      : 3600;
    res.statusCode = 429;
    res.setHeader('Retry-After', String(retryAfter));
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(
      JSON.stringify({
        error: 'too_many_requests',
        message: `Rate limit exceeded; retry in ${retryAfter} s.`,
        retryAfter,
      }),
    );
    return undefined;
  };
}

/**
 * A small React status badge for dashboards. The JavaScript grammar parses
 * JSX, so it can live in a .js file.
 */
function LimitBadge({ remaining, capacity }) {
  const ratio = capacity > 0 ? remaining / capacity : 0;
  const tone = ratio > 0.5 ? 'ok' : ratio > 0.1 ? 'warn' : 'danger';
  return (
    <span className={`badge badge-${tone}`} title="requests left in this window">
      {remaining} / {capacity}
    </span>
  );
}

module.exports = {
  DEFAULT_OPTIONS,
  LimitBadge,
  MemoryStore,
  RateLimitConfigError,
  RateLimiter,
  clientKey,
  normalizeOptions,
  rateLimit,
};
