"""Self-test of the single-node Slurm cluster of slurm_cluster.py (needs root, munge and slurm-wlm)."""
import subprocess
import time

from slurm_cluster import SlurmCluster, pid_alive, require_root, slurm_cluster  # noqa: F401 (fixture)

ARRAY_SCRIPT = """\
#!/bin/sh
#SBATCH --array=0-5
#SBATCH --output={folder}/out_%a.txt
echo "$SLURM_ARRAY_TASK_ID"
"""


def leftovers(cluster, pids):
    """Processes still alive among PIDS, or whose command line names the cluster folder."""
    listing = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True, check=True).stdout
    stray = [line.strip() for line in listing.splitlines() if str(cluster.dir) in line]
    return stray + [f"{pid} (pid file)" for pid in pids if pid_alive(pid)]


def test_job_array(tmp_path):
    """Start a cluster, run a 6-task job array, stop; every task writes its own output."""
    require_root()
    script = tmp_path / "array.sh"
    t0 = time.monotonic()
    with SlurmCluster(tmp_path / "slurm") as cluster:
        t1 = time.monotonic()
        script.write_text(ARRAY_SCRIPT.format(folder=cluster.dir))
        job = cluster.submit(script)
        cluster.wait(job, timeout=60)
        t2 = time.monotonic()
        pids = cluster.pids.values()
    t3 = time.monotonic()
    print(f"\nslurm cluster: start {t1 - t0:.1f} s, 6-task array {t2 - t1:.1f} s, stop {t3 - t2:.1f} s,"
          f" total {t3 - t0:.1f} s")
    outputs = {i: (cluster.dir / f"out_{i}.txt") for i in range(6)}
    missing = [str(path) for path in outputs.values() if not path.exists()]
    assert not missing, f"missing array outputs: {missing}\n{cluster.log_tails()}"
    assert {i: path.read_text().strip() for i, path in outputs.items()} == {i: str(i) for i in range(6)}
    assert not leftovers(cluster, pids)


def test_clusters_in_sequence(tmp_path):
    """A second cluster in the same process starts on fresh ports once the first one is gone."""
    require_root()
    for n in range(2):
        with SlurmCluster(tmp_path / f"slurm{n}") as cluster:
            out = cluster.dir / "job.txt"
            script = tmp_path / f"job{n}.sh"
            script.write_text(f"#!/bin/sh\n#SBATCH --output={out}\necho cluster {n}\n")
            cluster.wait(cluster.submit(script), timeout=60)
            pids = cluster.pids.values()
        assert out.read_text().strip() == f"cluster {n}"
        assert not leftovers(cluster, pids)


def test_fixture(slurm_cluster):  # noqa: F811 (the fixture)
    """The slurm_cluster fixture hands over a started cluster; script arguments reach the job."""
    script = slurm_cluster.dir / "args.sh"
    out = slurm_cluster.dir / "args.txt"
    script.write_text(f"#!/bin/sh\n#SBATCH --output={out}\necho \"$@\"\n")
    slurm_cluster.wait(slurm_cluster.submit(script, "a", 2), timeout=60)
    assert out.read_text().strip() == "a 2"
