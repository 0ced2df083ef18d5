import Foundation

/// A source of the current time, so tests can drive the bucket by hand.
protocol Clock {
    func now() -> TimeInterval
}

struct SystemClock: Clock {
    func now() -> TimeInterval {
        return Date().timeIntervalSince1970
    }
}

enum RateLimitError: Error, CustomStringConvertible {
    case exhausted(retryAfter: TimeInterval)
    case invalidCost(Int)

    var description: String {
        switch self {
        case .exhausted(let retryAfter):
            return "rate limit exhausted, retry after \(retryAfter)s"
        case .invalidCost(let cost):
            return "invalid cost \(cost)"
        }
    }
}

/// A token bucket: `capacity` tokens, refilled at `refillRate` tokens per
/// second. Each request takes `cost` tokens or is refused.
final class TokenBucket {
    let capacity: Double
    let refillRate: Double
    private var tokens: Double
    private var lastRefill: TimeInterval
    private let clock: Clock
    private let lock = NSLock()

    init(capacity: Double, refillRate: Double, clock: Clock = SystemClock()) {
        precondition(capacity > 0, "capacity must be positive")
        self.capacity = capacity
        self.refillRate = refillRate
        self.tokens = capacity
        self.clock = clock
        self.lastRefill = clock.now()
    }

    /// Tokens available right now, after refilling.
    var available: Double {
        lock.lock()
        defer { lock.unlock() }
        refill()
        return tokens
    }

    func take(cost: Int = 1) throws {
        guard cost > 0 else {
            throw RateLimitError.invalidCost(cost)
        }
        lock.lock()
        defer { lock.unlock() }
        refill()
        let needed = Double(cost)
        if tokens >= needed {
            tokens -= needed
            return
        }
        let missing = needed - tokens
        throw RateLimitError.exhausted(retryAfter: missing / refillRate)
    }

    private func refill() {
        let now = clock.now()
        let elapsed = max(0, now - lastRefill)
        tokens = min(capacity, tokens + elapsed * refillRate)
        lastRefill = now
    }
}

extension TokenBucket: CustomDebugStringConvertible {
    var debugDescription: String {
        return "TokenBucket(\(available)/\(capacity), +\(refillRate)/s)"
    }
}

/// A clock that only moves when told to.
final class ManualClock: Clock {
    private(set) var current: TimeInterval

    init(start: TimeInterval = 0) {
        current = start
    }

    func now() -> TimeInterval {
        return current
    }

    func advance(by seconds: TimeInterval) {
        current += seconds
    }
}

func drain(_ bucket: TokenBucket, requests: Int) -> [Result<Void, Error>] {
    var results: [Result<Void, Error>] = []
    for _ in 0..<requests {
        results.append(Result { try bucket.take() })
    }
    return results
}

/// What the API gateway allows each client: a burst of 20, then 5 a second.
let gatewayLimit = (capacity: 20.0, refillRate: 5.0)
