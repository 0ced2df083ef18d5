package org.acme.net

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.delay
import java.io.IOException
import java.time.Duration
import kotlin.math.min
import kotlin.random.Random

/**
 * How a failed call is retried: how many attempts, how long to wait
 * between them, and which failures are worth another try.
 */
data class RetryPolicy(
    val maxAttempts: Int = 4,
    val initialDelay: Duration = Duration.ofMillis(200),
    val maxDelay: Duration = Duration.ofSeconds(10),
    val multiplier: Double = 2.0,
    val jitter: Double = 0.2,
    val retryOn: (Throwable) -> Boolean = ::isTransient,
) {
    init {
        require(maxAttempts >= 1) { "maxAttempts must be at least 1, was $maxAttempts" }
        require(multiplier >= 1.0) { "multiplier must be at least 1, was $multiplier" }
        require(jitter in 0.0..1.0) { "jitter must be within 0..1, was $jitter" }
        require(!initialDelay.isNegative && initialDelay <= maxDelay) {
            "initialDelay must be between 0 and maxDelay"
        }
    }

    /** The wait before attempt [attempt] (2 for the first retry). */
    fun delayBefore(attempt: Int, random: Random = Random.Default): Duration {
        if (attempt <= 1) return Duration.ZERO
        var millis = initialDelay.toMillis().toDouble()
        repeat(attempt - 2) { millis *= multiplier }
        millis = min(millis, maxDelay.toMillis().toDouble())
        val spread = millis * jitter
        val jittered = millis - spread + random.nextDouble() * 2 * spread
        return Duration.ofMillis(jittered.toLong().coerceAtLeast(0))
    }

    companion object {
        /** Never retries. */
        val NONE = RetryPolicy(maxAttempts = 1)

        /** Network errors and the HTTP statuses that mean "try later". */
        fun isTransient(error: Throwable): Boolean = when (error) {
            is CancellationException -> false
            is HttpStatusException -> error.status == 429 || error.status in 500..599
            is IOException -> true
            else -> false
        }
    }
}

/** An HTTP call answered with a status that is not a success. */
class HttpStatusException(val status: Int, message: String) : IOException(message)

/** What happened to each attempt, for logs and metrics. */
sealed interface AttemptEvent {
    val attempt: Int

    data class Failed(override val attempt: Int, val error: Throwable, val nextDelay: Duration?) : AttemptEvent
    data class Succeeded(override val attempt: Int) : AttemptEvent
}

/** Thrown when every attempt failed; the attempts' errors are suppressed in it. */
class RetriesExhaustedException(
    val attempts: Int,
    cause: Throwable,
) : Exception("gave up after $attempts attempts: ${cause.message}", cause)

/**
 * Runs [block] until it succeeds or the policy gives up.
 *
 * A failure the policy does not retry is thrown as is; a cancellation is
 * never retried. When the last attempt fails, the errors of the earlier
 * attempts are attached to the exception as suppressed ones.
 */
suspend fun <T> retrying(
    policy: RetryPolicy,
    onEvent: (AttemptEvent) -> Unit = {},
    random: Random = Random.Default,
    block: suspend (attempt: Int) -> T,
): T {
    val errors = mutableListOf<Throwable>()
    for (attempt in 1..policy.maxAttempts) {
        try {
            val result = block(attempt)
            onEvent(AttemptEvent.Succeeded(attempt))
            return result
        } catch (e: CancellationException) {
            throw e
        } catch (e: Throwable) {
            if (!policy.retryOn(e)) throw e
            errors += e
            val last = attempt == policy.maxAttempts
            val wait = if (last) null else policy.delayBefore(attempt + 1, random)
            onEvent(AttemptEvent.Failed(attempt, e, wait))
            if (wait != null && !wait.isZero) delay(wait.toMillis())
        }
    }
    val last = errors.last()
    throw RetriesExhaustedException(policy.maxAttempts, last).apply {
        errors.dropLast(1).forEach(::addSuppressed)
    }
}

/** A fixed window of recent outcomes that trips when too many failed. */
class CircuitBreaker(
    private val window: Int = 20,
    private val failureRatio: Double = 0.5,
    private val coolDown: Duration = Duration.ofSeconds(30),
    private val clock: () -> Long = System::currentTimeMillis,
) {
    enum class State { CLOSED, OPEN, HALF_OPEN }

    private val outcomes = ArrayDeque<Boolean>()
    private var openedAt = 0L

    var state: State = State.CLOSED
        private set

    fun allow(): Boolean = when (state) {
        State.CLOSED, State.HALF_OPEN -> true
        State.OPEN -> if (clock() - openedAt >= coolDown.toMillis()) {
            state = State.HALF_OPEN
            true
        } else {
            false
        }
    }

    fun record(success: Boolean) {
        if (state == State.HALF_OPEN) {
            state = if (success) State.CLOSED else State.OPEN.also { openedAt = clock() }
            outcomes.clear()
            return
        }
        outcomes.addLast(success)
        if (outcomes.size > window) outcomes.removeFirst()
        val failures = outcomes.count { !it }
        if (outcomes.size == window && failures >= window * failureRatio) {
            state = State.OPEN
            openedAt = clock()
        }
    }
}

/** For idempotent HTTP calls: more attempts, and a longer wait between the last ones. */
val IDEMPOTENT_HTTP = RetryPolicy(maxAttempts = 6, maxDelay = Duration.ofSeconds(30))
