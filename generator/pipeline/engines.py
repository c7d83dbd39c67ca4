"""Where the render stage's tasks run: the local process pool (``fanout.WorkerPool``, the default), threads of the
build process (the same pool's ``threads``: ``build --engine threads``) or Dask distributed (``DaskPool``: ``build
--engine dask --scheduler ADDRESS``).

On Dask, each task of ``work.tasks`` (a listing route whole, or a shard of a detail route's resources) is one Dask
task running ``fanout.run_task`` on a worker: it opens the validated tables read-only in their database file in the
staging folder's scratch space (once per worker thread), writes its pages straight into the staging folder and
answers with what it wrote (paths, digests and sizes, never the bytes). The staging folder must therefore be the
same path on every worker: a shared filesystem (NFS, a cluster's scratch volume, one machine's disk for a
``LocalCluster``). Validation, the exports, the documents, the digest manifest and the commit stay in the build
process, once. The bytes are the local build's: every file belongs to exactly one task, whatever runs it.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import Executor
from typing import Any

from generator.output.staged import OutputError

ENGINES = ("local", "threads", "dask")
"""``local``: the worker processes (``fanout.WorkerPool``); ``threads``: as many threads of the build process, the
processes only validating; ``dask``: ``DaskPool``."""


class DaskPool:
    """A client of an existing Dask scheduler for one build: ``executor`` submits tasks to its workers; on leaving,
    pending tasks are cancelled, each worker closes the databases its tasks opened, and the client disconnects."""

    local = False
    """The workers are not this build's processes: the tables are validated in the build process."""
    threads = False

    def __init__(self, scheduler: str) -> None:
        self.scheduler = scheduler
        self.executor: Executor | None = None
        self._client: Any = None

    def __enter__(self) -> DaskPool:
        try:
            from distributed import Client
        except ImportError as error:  # the optional extra
            raise OutputError("--engine dask needs Dask distributed: pip install 'company-ipo-api[dask]'") from error
        self._client = Client(self.scheduler, set_as_default=False)
        self.executor = self._client.get_executor(pure=False)
        return self

    def render(self) -> Executor | None:
        """The render stage's executor: the scheduler's workers."""
        return self.executor

    def workers(self) -> int:
        return len(self._client.scheduler_info().get("workers", {})) if self._client is not None else 0

    def close(self) -> None:
        """Nothing to stop: the workers are the scheduler's."""

    def __exit__(self, failed: type[BaseException] | None, *_: object) -> None:
        if self._client is None:
            return
        from generator.pipeline import fanout

        try:
            if self.executor is not None:
                self.executor.shutdown(wait=False)  # cancels the pending tasks
            # After a failure the workers' running tasks are interrupted; an error doing so must not hide the failure.
            with contextlib.suppress(Exception) if failed is not None else contextlib.nullcontext():
                self._client.run(fanout.close_connections)
        finally:
            self._client.close()
            self._client = None
