"""A real single-node Slurm cluster on localhost, confined to one folder.

    with SlurmCluster(tmp_path) as cluster:
        job = cluster.submit(script)
        cluster.wait(job, timeout=60)

munged, slurmctld and slurmd run as root with every file they write (key,
sockets, state, spool, pid and log files, slurm.conf) under the given folder,
and nothing under /etc or /run is read or changed. Client commands find the
cluster through ``cluster.env`` (SLURM_CONF); slurm.conf names the munge socket
(AuthInfo), so no munge variable is needed.

Written for Slurm 22.05 (Debian 12, slurm-wlm) and munge 0.5.
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

# Longest path a Unix socket address can hold (sun_path is 108 bytes with the NUL).
_MAX_SOCKET_PATH = 107

# Inherited variables that would steer the client commands or leak into jobs
# (e.g. when the tests themselves run inside a Slurm job).
_SLURM_PREFIXES = ("SLURM_", "SBATCH_", "SALLOC_", "SRUN_", "SQUEUE_", "SINFO_", "SCONTROL_", "SCANCEL_")


def require_root():
    """Skip the calling test unless we are root; under CI a missing root fails instead."""
    if os.geteuid() == 0:
        return
    if os.environ.get("CI"):
        pytest.fail("the Slurm tests need root to start slurmd (CI is set, so this is not skipped)")
    pytest.skip("needs root to start slurmd")


@pytest.fixture
def slurm_cluster(tmp_path):
    """A started SlurmCluster in tmp_path/slurm, stopped after the test."""
    require_root()
    with SlurmCluster(tmp_path / "slurm") as cluster:
        yield cluster


class SlurmError(RuntimeError):
    """The cluster did not start, or a job did not finish in time."""


def _free_ports(count):
    """COUNT distinct TCP ports the kernel considers free right now."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _tail(path, lines=25):
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return f"--- {path}: (missing)"
    return f"--- {path} (last {lines} lines):\n" + "\n".join(text.splitlines()[-lines:])


def pid_alive(pid):
    """Whether PID runs; a zombie (left unreaped where PID 1 does not reap) counts as gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            # The state follows the parenthesised command name, which may contain spaces.
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class SlurmCluster:
    """munged + slurmctld + slurmd on this host, all files under DIRECTORY (created if needed)."""

    DAEMONS = ("munged", "slurmctld", "slurmd")

    def __init__(self, directory, start_timeout=60.0):
        self.dir = Path(directory).resolve()
        self.start_timeout = start_timeout
        self.host = socket.gethostname().split(".")[0]  # hostname -s: slurmd finds its node by it
        self.cpus = len(os.sched_getaffinity(0))
        self.conf = self.dir / "slurm.conf"
        self.env = None
        self._pids = {}  # daemon name -> pid, filled as each one writes its pid file
        self._socket_dir = None  # a short private folder for the sockets (munge's, slurmstepd's)
        self.munge_socket = self.dir / "munge.socket"

    # -- life cycle ---------------------------------------------------------

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        # Socket paths hold at most 107 bytes: slurmd's spool (where slurmstepd puts
        # a socket per job step, "NODE_JOBID.STEPID") and munge's socket live in a
        # short private folder, whatever the depth of self.dir.
        self._socket_dir = Path(tempfile.mkdtemp(prefix="slurm-"))
        self.munge_socket = self._socket_dir / "munge.socket"
        self.spool = self._socket_dir / "spool"
        assert len(str(self.spool / f"{self.host}_4294967295.4294967295")) <= _MAX_SOCKET_PATH
        self.env = self._environment()
        self._start_munged()
        self._write_config()
        for daemon in ("slurmctld", "slurmd"):
            self._launch(daemon, [daemon, "-f", str(self.conf)])
        self._wait_idle()

    def stop(self):
        """Cancel the jobs left, then stop slurmd, slurmctld and munged; safe after a partial start."""
        if "slurmctld" in self._pids and pid_alive(self._pids["slurmctld"]):
            self._cancel_all()
        for daemon in reversed(self.DAEMONS):
            pid = self._pids.get(daemon) or self._read_pid(daemon)
            if pid is not None:
                self._terminate(pid)
            self._pids.pop(daemon, None)
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None

    @property
    def pids(self):
        """Daemon name -> pid of the daemons started so far."""
        return dict(self._pids)

    # -- jobs ---------------------------------------------------------------

    def submit(self, script, *args, options=()):
        """sbatch OPTIONS SCRIPT ARGS; returns the job id (of the whole array for an array job)."""
        result = self._run(["sbatch", "--parsable", *options, str(script), *map(str, args)])
        if result.returncode != 0:
            raise SlurmError(f"sbatch {script} failed:\n{result.stderr}\n{self.log_tails()}")
        return result.stdout.strip().split(";")[0]  # "id" or "id;cluster"

    def wait(self, job_id, timeout=60.0, poll=0.2):
        """Wait until squeue no longer lists JOB_ID (all of its array tasks left the queue).

        Without accounting there is no sacct: a job that left squeue has ended,
        whatever its exit status (check its output).
        """
        deadline = time.monotonic() + timeout
        last_error = ""
        while True:
            result = self._run(["squeue", "-h", f"--jobs={job_id}"])
            if result.returncode == 0 and not result.stdout.strip():
                return
            if result.returncode != 0:
                # Once the job record is purged (MinJobAge), squeue rejects the id.
                if "Invalid job id" in result.stderr:
                    return
                last_error = result.stderr.strip()
            if time.monotonic() > deadline:
                listing = result.stdout.strip() or last_error
                raise SlurmError(f"job {job_id} still queued after {timeout:.0f} s:\n{listing}\n{self.log_tails()}")
            time.sleep(poll)

    def log_tails(self, lines=25):
        """The last LINES of every daemon log, for error messages."""
        return "\n".join(_tail(self.dir / f"{name}.log", lines) for name in self.DAEMONS)

    # -- internals ----------------------------------------------------------

    def _environment(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith(_SLURM_PREFIXES)}
        env["SLURM_CONF"] = str(self.conf)
        return env

    def _run(self, argv, timeout=30):
        # cwd: sbatch's default output (slurm-%j.out) and the job's working folder stay in the cluster folder.
        return subprocess.run(argv, env=self.env, cwd=self.dir, capture_output=True, text=True, timeout=timeout)

    def _start_munged(self):
        # munged.log shows "Unauthorized credential for client UID=0" once per job
        # start and twice at registration: harmless, the jobs run.
        key = self.dir / "munge.key"
        # munged wants a key of at least 32 bytes readable by its own user only.
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self._launch("munged", [
            "munged",
            f"--key-file={key}",
            f"--socket={self.munge_socket}",
            f"--pid-file={self.dir / 'munged.pid'}",
            f"--log-file={self.dir / 'munged.log'}",
            f"--seed-file={self.dir / 'munge.seed'}",
            # munged refuses a socket in a folder that not everyone may enter, and
            # pytest's temporary folders are 0700; --force makes that a warning
            # (every client here is root).
            "--force",
        ])

    def _write_config(self):
        ctld_port, slurmd_port = _free_ports(2)
        d = self.dir
        (d / "state").mkdir(exist_ok=True)
        self.spool.mkdir(exist_ok=True)
        lines = [
            "ClusterName=testcluster",
            # The explicit address spares a name lookup of the host, which may not resolve.
            f"SlurmctldHost={self.host}(127.0.0.1)",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"SlurmctldPort={ctld_port}",
            f"SlurmdPort={slurmd_port}",
            "AuthType=auth/munge",
            f"AuthInfo=socket={self.munge_socket}",
            # Slurm 22.05 name of the former CryptoType=crypto/munge (still accepted as an alias).
            "CredType=cred/munge",
            f"StateSaveLocation={d / 'state'}",
            f"SlurmdSpoolDir={self.spool}",
            f"SlurmctldPidFile={d / 'slurmctld.pid'}",
            f"SlurmdPidFile={d / 'slurmd.pid'}",
            f"SlurmctldLogFile={d / 'slurmctld.log'}",
            f"SlurmdLogFile={d / 'slurmd.log'}",
            # No cgroup plugin anywhere: those need a cgroup.conf and a writable cgroup tree.
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "ReturnToService=2",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "MpiDefault=none",
            # The default /bin/mail is usually missing, which slurmctld logs as an error.
            "MailProg=/bin/true",
            # Start pending batch jobs (and the next array tasks) at the next scheduler
            # pass, about 1 s, instead of waiting up to 3 s to gather more of them.
            "SchedulerParameters=batch_sched_delay=0",
            # Cancelled jobs get SIGKILL 5 s after SIGTERM (default 30 s), so stop() is quick.
            "KillWait=5",
            # PlugStackConfig defaults to plugstack.conf beside this file: absent, so no SPANK plugins.
            f"NodeName={self.host} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN",
            f"PartitionName=debug Nodes={self.host} Default=YES MaxTime=INFINITE State=UP",
        ]
        self.conf.write_text("\n".join(lines) + "\n")

    def _launch(self, daemon, argv):
        """Run a self-daemonizing ARGV and wait for the pid file of its daemon."""
        # A file, not a pipe, for the output: the daemon could keep a pipe open and block us.
        with open(self.dir / f"{daemon}.stderr", "w") as out:
            returncode = subprocess.run(argv, env=self.env, cwd=self.dir, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=subprocess.STDOUT, timeout=30).returncode
        # slurmctld and slurmd fork at once and write the pid file later, so poll for it.
        deadline = time.monotonic() + 15
        while True:
            pid = self._read_pid(daemon)
            if pid is not None:
                self._pids[daemon] = pid
                return
            if returncode != 0 or time.monotonic() > deadline:
                output = (self.dir / f"{daemon}.stderr").read_text(errors="replace")
                raise SlurmError(f"{daemon} did not start (exit status {returncode}, no pid file):\n"
                                 f"{output}\n{self.log_tails()}")
            time.sleep(0.05)

    def _read_pid(self, daemon):
        """The pid in DAEMON's pid file if that process is alive and is ours (its command line names our folder)."""
        try:
            pid = int((self.dir / f"{daemon}.pid").read_text().split()[0])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                ours = str(self.dir).encode() in f.read()
        except (OSError, ValueError, IndexError):
            return None
        return pid if ours and pid_alive(pid) else None

    def _wait_idle(self):
        """Wait until sinfo reports the node idle; fail early if a daemon died."""
        deadline = time.monotonic() + self.start_timeout
        while True:
            result = self._run(["sinfo", "-h", "-o", "%t"], timeout=15)
            state = result.stdout.strip() or result.stderr.strip()
            if result.returncode == 0 and state == "idle":
                return
            dead = [name for name, pid in self._pids.items() if not pid_alive(pid)]
            if dead or time.monotonic() > deadline:
                why = f"{', '.join(dead)} exited" if dead else f"not idle after {self.start_timeout:.0f} s"
                raise SlurmError(f"Slurm node {self.host}: {why} (sinfo: {state!r})\n{self.log_tails()}")
            time.sleep(0.2)

    def _cancel_all(self):
        """Cancel every job still queued or running so that no slurmstepd outlives the cluster."""
        try:
            self._run(["scancel", "--partition=debug"], timeout=15)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                result = self._run(["squeue", "-h"], timeout=15)
                if result.returncode != 0 or not result.stdout.strip():
                    return
                time.sleep(0.2)
        except subprocess.TimeoutExpired:
            pass

    @staticmethod
    def _terminate(pid, grace=10.0):
        """SIGTERM PID, then SIGKILL if it is still there after GRACE seconds."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                if not pid_alive(pid):
                    return
                time.sleep(0.05)
