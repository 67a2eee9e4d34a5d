"""A throwaway PostgreSQL server for tests: ``initdb`` + ``pg_ctl`` in a temporary folder.

::

    cluster = Cluster.start_new()     # or Unavailable(reason) when no server can be started
    url = cluster.new_database()      # postgresql://neurocanvas@127.0.0.1:PORT/db_1
    cluster.stop(); cluster.start()   # the same data, the same port
    cluster.remove()

The server listens on 127.0.0.1 on a free port and on a Unix socket in its own folder, trusts
local connections and keeps nothing after ``remove``. PostgreSQL refuses to run as root (as CI
does here): then ``initdb`` and the server run as the ``postgres`` user that Debian's package
creates (or ``nobody``), in a folder that user owns.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

USER = "neurocanvas"  # the database role the tests connect as (a superuser, trusted)


class Unavailable(RuntimeError):
    """No server can be started here; the message says why (the tests skip with it)."""


def _binaries() -> Path:
    """The folder of initdb and pg_ctl: on PATH, or Debian's /usr/lib/postgresql/<N>/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(folder, "initdb").is_file() and Path(folder, "pg_ctl").is_file():
            return Path(folder)
    raise Unavailable("PostgreSQL is not installed (no initdb/pg_ctl; .ci/run installs it)")


def _run_as() -> pwd.struct_passwd | None:
    """The unprivileged user the server runs as when the tests run as root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise Unavailable("running as root with no 'postgres' or 'nobody' user to run PostgreSQL")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, bin_dir: Path, folder: Path, user: pwd.struct_passwd | None) -> None:
        self.bin_dir = bin_dir
        self.folder = folder
        self.data = folder / "data"
        self.user = user
        self.port = _free_port()
        self._databases = 0

    @classmethod
    def start_new(cls) -> Cluster:
        try:
            import psycopg  # noqa: F401 - SQLAlchemy's postgresql:// driver
        except ImportError:
            raise Unavailable("psycopg is not installed (pip install -e '.[test]')") from None
        bin_dir, user = _binaries(), _run_as()
        # /tmp when the server runs as another user: TMPDIR may be a folder only root can enter.
        parent = "/tmp" if user is not None and os.path.isdir("/tmp") else None
        folder = Path(tempfile.mkdtemp(prefix="neurocanvas-pg-", dir=parent))
        if user is not None:
            os.chown(folder, user.pw_uid, user.pw_gid)
        cluster = cls(bin_dir, folder, user)
        try:
            cluster._pg("initdb", "-D", cluster.data, "-U", USER, "--auth=trust", "-E", "UTF8",
                        "--no-sync", "--no-instructions")  # fmt: skip
            cluster.start()
        except Unavailable:
            cluster.remove()
            raise
        return cluster

    def _pg(self, tool: str, *args: object) -> str:
        kwargs = {}
        if self.user is not None:
            kwargs = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        try:
            done = subprocess.run([str(self.bin_dir / tool), *map(str, args)], cwd=self.folder,
                                  capture_output=True, text=True, timeout=120,
                                  **kwargs)  # fmt: skip
        except (OSError, subprocess.SubprocessError) as exc:
            raise Unavailable(f"{tool}: {exc}") from None
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
            raise Unavailable(f"{tool} failed: {lines[-1]}")
        return done.stdout

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")  # fmt: skip
        self._pg("pg_ctl", "-D", self.data, "-l", self.folder / "server.log", "-o", options,
                 "-w", "-t", "60", "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._pg("pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "60", "stop")

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        self._databases += 1
        name = f"db_{self._databases}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def remove(self) -> None:
        if (self.data / "postmaster.pid").exists():
            try:
                self.stop("immediate")  # its data goes: no checkpoint to wait for
            except Unavailable:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)
