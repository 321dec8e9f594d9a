"""A sweep as a Slurm job array on a real one-node cluster started by the test
(slurm_cluster.py): the merged summary equals the local sweep's bit for bit."""
import os
import subprocess
import textwrap
import time

from conftest import run
from slurm_cluster import SlurmCluster, require_root

SWEEP = """\
    scene: builtin:double-pendulum
    duration: 0.3
    every: 10
    parameters:
      joint:shoulder.damping: [0, 0.1, 0.2, 0.4, 0.8]
      options.time-step: [0.001, 0.002, 0.004, 0.5]
    metrics: [final:q:shoulder, max:v:elbow, energy-drift, diverged, steps]
    """


def sweep(tool, *args, env=None):
    t0 = time.monotonic()
    p = subprocess.run([tool, "sweep", *map(str, args)], capture_output=True, text=True, env=env, timeout=900)
    assert p.returncode == 0, f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p, time.monotonic() - t0


def test_slurm_job_array_equals_local_sweep(run_tool, tmp_path):
    require_root()
    f = tmp_path / "s.yaml"
    f.write_text(textwrap.dedent(SWEEP))
    local, local_time = sweep(run_tool, f, "--out", tmp_path / "local", "--jobs", "2", "--quiet")
    assert "runs=20 ran=20 ok=15 diverged=5 failed=0" in local.stdout
    with SlurmCluster(tmp_path / "slurm") as cluster:
        # One run per array task: 20 tasks, at most 2 at once on this node's 2 CPUs.
        remote, remote_time = sweep(run_tool, f, "--out", tmp_path / "cluster", "--slurm", "--chunk", "1",
                                    "--time", "00:10:00", "--partition", "debug", env=cluster.env)
        assert "runs=20 ran=20 ok=15 diverged=5 failed=0" in remote.stdout, remote.stderr
        script = (tmp_path / "cluster" / "slurm" / "sweep.sbatch").read_text()
        assert "#SBATCH --array=0-19" in script and "#SBATCH --time=00:10:00" in script
        # --no-wait, then collect: a chunk of 7 runs per task (3 tasks), --array-limit.
        submitted, _ = sweep(run_tool, f, "--out", tmp_path / "later", "--slurm", "--chunk", "7", "--array-limit", "2",
                             "--no-wait", env=cluster.env)
        job = submitted.stdout.split("job=")[1].split()[0]
        assert "tasks=3" in submitted.stdout
        # While the job is queued or running: no early merge, no second submission into the folder.
        early = subprocess.run([run_tool, "sweep", "collect", str(f), "--out", str(tmp_path / "later")],
                               capture_output=True, text=True, env=cluster.env)
        assert early.returncode == 2 and f"job {job} is still queued or running" in early.stderr, early.stderr
        again = subprocess.run([run_tool, "sweep", str(f), "--out", str(tmp_path / "later"), "--slurm"],
                               capture_output=True, text=True, env=cluster.env)
        assert again.returncode == 2 and "of an earlier submission" in again.stderr, again.stderr
        cluster.wait(job, timeout=300)
        sweep(run_tool, "collect", f, "--out", tmp_path / "later", env=cluster.env)
    for out in ("cluster", "later"):
        for name in ("summary.csv", "summary.h5"):
            assert (tmp_path / out / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), (out, name)
    tasks = sorted((tmp_path / "cluster" / "slurm").glob("task-*.out"))
    assert len(tasks) == 20
    print(f"\nlocal sweep (--jobs 2): {local_time:.2f} s; Slurm job array of 20 tasks: {remote_time:.2f} s;"
          f" overhead per array task {(remote_time - local_time) / 20:.2f} s")


def test_slurm_without_sbatch_is_a_clear_error(run_tool, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(textwrap.dedent(SWEEP))
    env = dict(os.environ, PATH="/nonexistent")
    p = subprocess.run([run_tool, "sweep", str(f), "--slurm", "--quiet"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "sbatch was not found" in p.stderr
    # The runs do not depend on the tool: a local run of the same folder resumes it.
    run(run_tool, "sweep", f, "--quiet")
