"""A small persistent task queue backed by SQLite.

The queue stores jobs in a single table and hands them out to workers with
an optimistic lease: a worker claims a job by bumping its ``lease_until``
column, and a job whose lease expired is handed out again. This gives
at-least-once delivery without a broker process.

Example::

    queue = TaskQueue("jobs.db")

    @queue.task(retries=3)
    def send_email(to: str, subject: str) -> None:
        ...

    send_email.delay("bob@example.com", "hello")
    queue.run_worker()
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Dict, Iterator, List, Optional, TypeVar

__all__ = ["TaskQueue", "Job", "JobState", "TaskError"]

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

# The schema is created on first use. It is kept in one string so that the
# migration tool can diff it against the live database.
SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT    NOT NULL,
    payload      TEXT    NOT NULL,
    state        TEXT    NOT NULL DEFAULT 'pending',
    attempts     INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 1,
    run_after    REAL    NOT NULL,
    lease_until  REAL,
    last_error   TEXT,
    created_at   REAL    NOT NULL,
    updated_at   REAL    NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_ready ON jobs (state, run_after);
CREATE INDEX IF NOT EXISTS jobs_lease ON jobs (state, lease_until);
"""

DEFAULT_LEASE_SECONDS = 30.0
POLL_INTERVAL = 0.5


class JobState(str, Enum):
    """Lifecycle of a job row."""

    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class TaskError(RuntimeError):
    """Raised when a task is misconfigured or a job cannot be decoded."""


@dataclass(frozen=True)
class Job:
    """One row of the ``jobs`` table, as handed to a worker."""

    id: int
    name: str
    args: List[Any]
    kwargs: Dict[str, Any]
    attempts: int
    max_attempts: int
    state: JobState = JobState.PENDING
    last_error: Optional[str] = None

    @property
    def exhausted(self) -> bool:
        """True once the job used up all its attempts."""
        return self.attempts >= self.max_attempts

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "Job":
        try:
            payload = json.loads(row["payload"])
        except json.JSONDecodeError as exc:
            raise TaskError(f"job {row['id']}: bad payload: {exc}") from exc
        return cls(
            id=row["id"],
            name=row["name"],
            args=payload.get("args", []),
            kwargs=payload.get("kwargs", {}),
            attempts=row["attempts"],
            max_attempts=row["max_attempts"],
            state=JobState(row["state"]),
            last_error=row["last_error"],
        )


@dataclass
class _Registration:
    func: Callable[..., Any]
    retries: int = 0
    backoff: float = 2.0
    tags: List[str] = field(default_factory=list)


def _backoff_delay(attempt: int, base: float) -> float:
    # Exponential backoff, capped at ten minutes so that a flapping task
    # does not disappear for hours.
    return min(base ** attempt, 600.0)


class TaskQueue:
    """A queue of jobs stored in a SQLite database file."""

    def __init__(self, path: str, *, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> None:
        self.path = path
        self.lease_seconds = lease_seconds
        self._tasks: Dict[str, _Registration] = {}
        self._local = threading.local()
        self._stopping = threading.Event()
        with self._connect() as conn:
            conn.executescript(SCHEMA)

    # -- connection handling -------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            self._local.conn = conn
        return conn

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    # -- registration ----------------------------------------------------

    def task(self, *, retries: int = 0, backoff: float = 2.0, name: Optional[str] = None,
             tags: Optional[List[str]] = None) -> Callable[[F], F]:
        """Register a function as a task.

        The decorated function keeps working as a plain function; it gains
        a ``delay`` attribute that enqueues a call instead of making it.
        """

        def decorator(func: F) -> F:
            task_name = name or f"{func.__module__}.{func.__qualname__}"
            if task_name in self._tasks:
                raise TaskError(f"task {task_name!r} registered twice")
            self._tasks[task_name] = _Registration(func, retries, backoff, list(tags or []))

            @functools.wraps(func)
            def delay(*args: Any, **kwargs: Any) -> int:
                return self.enqueue(task_name, *args, **kwargs)

            func.delay = delay  # type: ignore[attr-defined]
            return func

        return decorator

    def enqueue(self, task_name: str, *args: Any, run_after: float = 0.0, **kwargs: Any) -> int:
        """Store a job and return its id."""
        reg = self._tasks.get(task_name)
        if reg is None:
            raise TaskError(f"unknown task {task_name!r}")
        now = time.time()
        payload = json.dumps({"args": list(args), "kwargs": kwargs}, sort_keys=True)
        with self._connect() as conn:
            cur = conn.execute(
                "INSERT INTO jobs (name, payload, max_attempts, run_after, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (task_name, payload, reg.retries + 1, now + run_after, now, now),
            )
            return int(cur.lastrowid)

    # -- claiming and completing -----------------------------------------

    def claim(self) -> Optional[Job]:
        """Lease the oldest ready job, or return None when there is none."""
        now = time.time()
        with self._connect() as conn:
            row = conn.execute(
                """
                SELECT * FROM jobs
                WHERE (state = 'pending' AND run_after <= ?)
                   OR (state = 'running' AND lease_until < ?)
                ORDER BY run_after, id
                LIMIT 1
                """,
                (now, now),
            ).fetchone()
            if row is None:
                return None
            conn.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1,"
                " lease_until = ?, updated_at = ? WHERE id = ?",
                (now + self.lease_seconds, now, row["id"]),
            )
        job = Job.from_row(row)
        return Job(**{**job.__dict__, "attempts": job.attempts + 1, "state": JobState.RUNNING})

    def complete(self, job: Job) -> None:
        with self._connect() as conn:
            conn.execute(
                "UPDATE jobs SET state = 'done', lease_until = NULL, updated_at = ? WHERE id = ?",
                (time.time(), job.id),
            )

    def fail(self, job: Job, error: BaseException) -> None:
        """Record a failure; reschedule the job unless it is exhausted."""
        reg = self._tasks.get(job.name)
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        now = time.time()
        if job.exhausted or reg is None:
            state, run_after = JobState.FAILED, now
        else:
            state, run_after = JobState.PENDING, now + _backoff_delay(job.attempts, reg.backoff)
        with self._connect() as conn:
            conn.execute(
                "UPDATE jobs SET state = ?, run_after = ?, lease_until = NULL,"
                " last_error = ?, updated_at = ? WHERE id = ?",
                (state.value, run_after, text[-4000:], now, job.id),
            )
        log.warning("job %d (%s) failed: %s", job.id, job.name, error)

    # -- worker loop -------------------------------------------------------

    def run_worker(self, *, max_jobs: Optional[int] = None, idle_exit: bool = False) -> int:
        """Run jobs until stopped; return how many ran."""
        done = 0
        while not self._stopping.is_set():
            job = self.claim()
            if job is None:
                if idle_exit:
                    break
                self._stopping.wait(POLL_INTERVAL)
                continue
            self._run_one(job)
            done += 1
            if max_jobs is not None and done >= max_jobs:
                break
        return done

    def _run_one(self, job: Job) -> None:
        reg = self._tasks.get(job.name)
        if reg is None:
            self.fail(job, TaskError(f"no handler for {job.name!r}"))
            return
        started = time.monotonic()
        try:
            reg.func(*job.args, **job.kwargs)
        except Exception as exc:  # noqa: BLE001 - any task error is recorded
            self.fail(job, exc)
        else:
            self.complete(job)
        finally:
            log.debug("job %d took %.3fs", job.id, time.monotonic() - started)

    def stop(self) -> None:
        self._stopping.set()

    # -- inspection ----------------------------------------------------------

    def stats(self) -> Dict[str, int]:
        conn = self._connection()
        rows = conn.execute("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state").fetchall()
        counts = {state.value: 0 for state in JobState}
        counts.update({row["state"]: row["n"] for row in rows})
        return counts

    def failed_jobs(self, limit: int = 50) -> List[Job]:
        conn = self._connection()
        rows = conn.execute(
            "SELECT * FROM jobs WHERE state = 'failed' ORDER BY updated_at DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [Job.from_row(row) for row in rows]

    def purge(self, older_than: float) -> int:
        """Delete finished jobs older than ``older_than`` seconds."""
        cutoff = time.time() - older_than
        with self._connect() as conn:
            cur = conn.execute(
                "DELETE FROM jobs WHERE state IN ('done', 'failed') AND updated_at < ?",
                (cutoff,),
            )
            return cur.rowcount


def periodic(queue: TaskQueue, every: float) -> Callable[[F], F]:
    """Run a task every ``every`` seconds in a daemon thread."""

    def decorator(func: F) -> F:
        registered = queue.task(name=f"periodic.{func.__name__}")(func)

        def loop() -> None:
            while not queue._stopping.wait(every):
                try:
                    registered.delay()  # type: ignore[attr-defined]
                except TaskError:
                    log.exception("could not enqueue %s", func.__name__)

        threading.Thread(target=loop, name=f"periodic-{func.__name__}", daemon=True).start()
        return registered

    return decorator


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    q = TaskQueue(":memory:")

    @q.task(retries=2)
    def hello(who: str) -> None:
        print(f"hello, {who}")

    hello.delay("world")  # type: ignore[attr-defined]
    print(q.run_worker(idle_exit=True), "job(s) ran")
