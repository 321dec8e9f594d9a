"""articula-run sweep: parameter addressing, sampling, failures, resuming and
the summary (docs/sweeps.md)."""
import csv
import os
import textwrap
import xml.etree.ElementTree as ET

import h5py
import numpy as np
import pytest

from conftest import run, same, scene


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


def export(tool, tmp_path, source, *params):
    out = tmp_path / "out.articula"
    args = []
    for p in params:
        args += ["--param", p]
    run(tool, "export", source, out, "--quiet", *args)
    return ET.parse(out).getroot()


def numbers(text):
    return [float(x) for x in text.split()]


# --- parameter addressing ------------------------------------------------------

def test_options(run_tool, tmp_path):
    root = export(run_tool, tmp_path, scene("servo_arm.articula"), "options.time-step=0.0025",
                  "options.gravity=1,2,-3", "options.gravity-z=-4.5", "options.solver=convex",
                  "options.integrator=rk4")
    options = root.find("options")
    assert float(options.get("time_step")) == 0.0025
    assert numbers(options.get("gravity")) == [1, 2, -4.5]
    assert options.get("integrator") == "rk4"
    assert options.find("solver").get("method") == "convex"


def test_bodies_and_links(run_tool, tmp_path):
    base = ET.parse(scene("servo_arm.articula")).getroot()
    upper = base.find("multibody/link[@name='upper']/inertia")
    root = export(run_tool, tmp_path, scene("servo_arm.articula"), "body:upper.mass=4",
                  "body:arm/fore.inertia-scale=3")
    new_upper = root.find("multibody/link[@name='upper']/inertia")
    assert float(new_upper.get("mass")) == 4
    # The rotational inertia scales with the mass (same shape, denser).
    np.testing.assert_allclose(numbers(new_upper.get("rotational")), 2 * np.array(numbers(upper.get("rotational"))),
                               rtol=1e-15)
    fore = base.find("multibody/link[@name='fore']/inertia")
    new_fore = root.find("multibody/link[@name='fore']/inertia")
    assert float(new_fore.get("mass")) == float(fore.get("mass"))
    np.testing.assert_allclose(numbers(new_fore.get("rotational")), 3 * np.array(numbers(fore.get("rotational"))),
                               rtol=1e-15)
    root = export(run_tool, tmp_path, scene("box_stack.articula"), "body:box1.mass=7", "body:box1.friction=0.25",
                  "body:box1.restitution=0.5")
    assert float(root.find("rigid_body[@name='box1']/inertia").get("mass")) == 7
    for shape in root.findall("shape[@owner='box1'][@kind='collision']"):
        assert float(shape.find("material").get("friction")) == 0.25
        assert float(shape.find("material").get("restitution")) == 0.5
    other = root.find("shape[@owner='box0'][@kind='collision']/material")
    assert float(other.get("friction")) != 0.25


def test_joints(run_tool, tmp_path):
    fields = {"damping": "damping", "friction": "friction", "stiffness": "stiffness", "armature": "armature",
              "rest": "rest", "lower": "lower", "upper": "upper", "effort": "effort_limit",
              "velocity-limit": "velocity_limit"}
    params = [f"joint:elbow.{field}={0.5 + k}" for k, field in enumerate(fields)]
    root = export(run_tool, tmp_path, scene("servo_arm.articula"), *params)
    elbow = root.find("multibody/link[@name='fore']/joint")
    for k, attribute in enumerate(fields.values()):
        assert numbers(elbow.get(attribute)) == [0.5 + k], attribute
    shoulder = root.find("multibody/link[@name='upper']/joint")
    assert numbers(shoulder.get("damping")) == [0.05]
    root = export(run_tool, tmp_path, scene("servo_arm.articula"), "joint:arm/shoulder.damping=0.125")
    assert numbers(root.find("multibody/link[@name='upper']/joint").get("damping")) == [0.125]


def test_actuators(run_tool, tmp_path):
    root = export(run_tool, tmp_path, scene("servo_arm.articula"), "actuator:shoulder_servo.kp=123",
                  "actuator:shoulder_servo.kd=4.5", "actuator:elbow_pid.ki=77",
                  "actuator:shoulder_servo.gear=2", "actuator:shoulder_servo.ctrl-min=-1",
                  "actuator:shoulder_servo.ctrl-max=1.25", "actuator:shoulder_servo.force-min=-30",
                  "actuator:shoulder_servo.force-max=31", "actuator:shoulder_servo.control=0.5")
    servo = root.find("actuator[@name='shoulder_servo']")
    assert float(servo.get("kp")) == 123 and float(servo.get("kd")) == 4.5
    assert float(servo.get("gear")) == 2
    assert numbers(servo.get("control_range")) == [-1, 1.25]
    assert numbers(servo.get("force_range")) == [-30, 31]
    assert float(servo.get("control")) == 0.5
    assert float(root.find("actuator[@name='elbow_pid']").get("ki")) == 77


def test_shapes_and_materials(run_tool, tmp_path):
    root = export(run_tool, tmp_path, scene("box_stack.articula"), "material.friction=0.3",
                  "material.restitution=0.1", "shape:ground.friction=0.9")
    materials = {s.get("name"): s.find("material") for s in root.findall("shape[@kind='collision']")}
    assert len(materials) > 2
    for name, m in materials.items():
        assert float(m.get("friction")) == (0.9 if name == "ground" else 0.3)
        assert float(m.get("restitution")) == 0.1


def test_initial_coordinates(run_tool, tmp_path):
    root = export(run_tool, tmp_path, scene("servo_arm.articula"), "q:elbow=0.7", "v:shoulder=-1.5")
    assert numbers(root.find("multibody/link[@name='fore']/state").get("q")) == [0.7]
    assert numbers(root.find("multibody/link[@name='upper']/state").get("v")) == [-1.5]
    root = export(run_tool, tmp_path, scene("box_stack.articula"), "q:box0:2=0.75", "v:box0:5=2")
    state = root.find("rigid_body[@name='box0']/state")
    assert numbers(state.get("q"))[2] == 0.75
    assert numbers(state.get("v"))[5] == 2


@pytest.mark.parametrize("param,message", [
    ("joint:knee.damping=1", "no joint named 'knee' (the scene has: shoulder, elbow)"),
    ("joint:elbow.spin=1", "unknown field 'spin'"),
    ("joint:elbow.damping=-1", "must be >= 0"),
    ("joint:elbow.damping=abc", "'abc' is not a number"),
    ("body:nosuch.mass=1", "no rigid body or link named 'nosuch'"),
    ("actuator:nosuch.kp=1", "no actuator named 'nosuch' (the scene has: shoulder_servo, elbow_pid)"),
    ("actuator:shoulder_servo.kv=1", "is a position actuator, which has no kv"),
    ("actuator:shoulder_servo.ki=1", "is a position actuator, which has no ki"),
    ("shape:nosuch.friction=1", "no collision shape named 'nosuch'"),
    ("material.restitution=2", "in [0, 1]"),
    ("options.solver=magic", "unknown solver 'magic'"),
    ("options.time-step=50", "is outside"),
    ("colour.red=1", "unknown parameter"),
    ("q:nosuch=1", "no joint or body with coordinates named 'nosuch'"),
    ("v:nosuch=1", "no velocity coordinate named 'nosuch'"),
])
def test_bad_parameters(run_tool, tmp_path, param, message):
    p = run(run_tool, "run", scene("servo_arm.articula"), "--param", param, "--steps", "1", expect=2)
    assert message in p.stderr


def test_run_applies_parameters_and_replay_rebuilds_them(run_tool, tmp_path):
    # Damping slows the pendulum: the parameter reaches the run.
    slow = run(run_tool, "run", "--scene", "double-pendulum", "--steps", "300", "--param", "joint:shoulder.damping=5",
               "--record", tmp_path / "a.replay", "--csv", tmp_path / "a.csv", "--quiet")
    fast = run(run_tool, "run", "--scene", "double-pendulum", "--steps", "300", "--csv", tmp_path / "b.csv", "--quiet")
    a = list(csv.reader(open(tmp_path / "a.csv")))
    b = list(csv.reader(open(tmp_path / "b.csv")))
    assert abs(float(a[-1][3])) < abs(float(b[-1][3]))
    assert slow.stdout != fast.stdout
    # The replay checks its frames against a world rebuilt with the parameter.
    run(run_tool, "replay", tmp_path / "a.replay", "--csv", tmp_path / "c.csv", "--quiet")
    assert open(tmp_path / "c.csv").read() == open(tmp_path / "a.csv").read()


# --- sweep files ---------------------------------------------------------------

def list_runs(tool, path):
    out = run(tool, "sweep", path, "--list").stdout.strip().splitlines()
    return [line.split(",") for line in out]


def test_grid_range_and_zip(run_tool, tmp_path):
    f = write(tmp_path / "s.yaml", """\
        scene: builtin:double-pendulum
        parameters:
          joint:shoulder.damping: [0, 0.5]
          options.time-step: {from: 0.001, to: 0.003, count: 3}
          joint:elbow.friction: {from: 0.1, to: 0.35, step: 0.1}
        """)
    rows = list_runs(run_tool, f)
    assert rows[0] == ["run", "joint:shoulder.damping", "options.time-step", "joint:elbow.friction"]
    assert len(rows) == 1 + 2 * 3 * 3
    assert rows[1][1:] == ["0", "0.001", "0.1"]
    assert rows[2][1:] == ["0", "0.001", "0.2"]  # the last parameter varies fastest
    assert rows[4][1:] == ["0", "0.002", "0.1"]
    assert rows[-1][1:] == ["0.5", "0.003", "0.30000000000000004"]
    f = write(tmp_path / "z.yaml", """\
        scene: builtin:double-pendulum
        sampling: zip
        parameters:
          joint:shoulder.damping: [0, 0.5, 1]
          options.time-step: [0.001, 0.002, 0.004]
        """)
    assert [r[1:] for r in list_runs(run_tool, f)[1:]] == [["0", "0.001"], ["0.5", "0.002"], ["1", "0.004"]]


def random_sweep(tmp_path, seed, samples=400):
    return write(tmp_path / f"r{seed}.yaml", f"""\
        scene: builtin:double-pendulum
        sampling: random
        samples: {samples}
        seed: {seed}
        parameters:
          joint:shoulder.damping: {{uniform: [0.5, 1.5]}}
          body:upper.mass: {{log-uniform: [0.1, 10]}}
          options.time-step: [0.001, 0.002]
          joint:elbow.rest: {{normal: [1, 0.5]}}
        """)


def test_random_sampling_is_reproducible(run_tool, tmp_path):
    a = list_runs(run_tool, random_sweep(tmp_path, 7))
    b = list_runs(run_tool, random_sweep(tmp_path / ".." / tmp_path.name, 7))
    c = list_runs(run_tool, random_sweep(tmp_path, 8))
    assert a == b and a != c
    # A run's values depend on the seed and the run only: fewer samples give the same first runs.
    assert list_runs(run_tool, random_sweep(tmp_path, 7, samples=5)) == a[:6]
    values = np.array([[float(x) for x in r[1:]] for r in a[1:]])
    assert values[:, 0].min() >= 0.5 and values[:, 0].max() < 1.5
    assert values[:, 1].min() >= 0.1 and values[:, 1].max() < 10
    assert set(values[:, 2]) == {0.001, 0.002}
    n = len(values)
    # Means within 4.5 standard errors: uniform (sd 1/sqrt(12)), log-uniform in log space, normal.
    assert abs(values[:, 0].mean() - 1.0) < 4.5 * (1 / 12 ** 0.5) / n ** 0.5
    assert abs(np.log(values[:, 1]).mean()) < 4.5 * (np.log(100) / 12 ** 0.5) / n ** 0.5
    assert abs(values[:, 3].mean() - 1.0) < 4.5 * 0.5 / n ** 0.5
    assert abs(values[:, 3].std() - 0.5) < 0.1


@pytest.mark.parametrize("body,line,message", [
    ("parameters:\n  joint:knee.damping: [1]\n", 3, "no joint named 'knee'"),
    ("parameters:\n  joint:elbow.damping: [1]\nmetrics:\n  - final:q:wrist\n", 5, "no column 'q:wrist'"),
    ("parameters:\n  joint:elbow.damping: [1]\nmetrics:\n  - median:q:elbow\n", 5, "unknown metric"),
    ("parameters:\n  joint:elbow.damping: {uniform: [0, 1]}\n", 3, "needs sampling: random"),
    ("parameters:\n  joint:elbow.damping: [1]\ncolour: red\n", 4, "unknown key 'colour'"),
    ("parameters:\n  joint:elbow.damping: [1, 2]\n  q:elbow: [1]\nsampling: zip\n", 4, "one length"),
    ("parameters:\n  joint:elbow.damping: [1]\nsampling: random\n", 4, "needs samples"),
    ("parameters:\n  joint:elbow.damping: {from: 0, to: 1}\n", 3, "count or step"),
    ("parameters:\n  joint:elbow.damping: [1\n", 4, "not YAML"),
    ("options:\n  csv: x.csv\nparameters:\n  joint:elbow.damping: [1]\n", 3, "set by the sweep itself"),
])
def test_bad_sweep_files_fail_before_any_run(run_tool, tmp_path, body, line, message):
    f = tmp_path / "bad.yaml"
    f.write_text("scene: builtin:double-pendulum\n" + body)
    p = run(run_tool, "sweep", f, expect=2)
    assert f"{f}:{line}: " in p.stderr and message in p.stderr, p.stderr
    assert not (tmp_path / "bad.sweep").exists()


def failing_sweep(tmp_path):
    return write(tmp_path / "s.yaml", """\
        scene: builtin:double-pendulum
        duration: 1
        every: 5
        parameters:
          joint:shoulder.damping: [0.1, -1, 0.2]
          options.time-step: [0.001, 0.5]
        metrics: [final:q:shoulder, max:v:elbow, min:q:elbow, mean:energy:total, energy-drift, max-residual,
                  diverged, steps, unconverged-solves]
        """)


def read_summary(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_failures_are_recorded_and_the_sweep_goes_on(run_tool, tmp_path):
    f = failing_sweep(tmp_path)
    p = run(run_tool, "sweep", f, "--jobs", "2")
    assert "runs=6 ran=6 ok=2 diverged=2 failed=2" in p.stdout
    rows = read_summary(tmp_path / "s.sweep" / "summary.csv")
    assert [r["status"] for r in rows] == ["ok", "diverged", "failed", "failed", "ok", "diverged"]
    assert [r["exit_code"] for r in rows] == ["0", "3", "2", "2", "0", "3"]
    assert "must be >= 0" in rows[2]["message"]
    assert "energy" in rows[1]["message"]
    assert rows[2]["final:q:shoulder"] == "nan"
    manifest = (tmp_path / "s.sweep" / "manifest.yaml").read_text()
    assert manifest.count("status: ok") == 2 and manifest.count("status: failed") == 2
    assert manifest.count("status: diverged") == 2 and "pending" not in manifest
    assert "scene: builtin:double-pendulum" in manifest
    assert rows[0]["steps"] == "1000" and rows[0]["diverged"] == "0" and rows[1]["diverged"] == "1"
    # Each run's metrics are those of its own HDF5 log.
    for r in rows:
        log = tmp_path / "s.sweep" / "runs" / f"{int(r['run']):05d}.h5"
        if r["status"] == "failed":
            continue
        with h5py.File(log, "r") as h:
            names = [str(n) for n in h["q"].attrs["columns"]]
            q = h["q"][:, names.index("q:shoulder")]
            e = h["energy"][:, 2]
            v = h["v"][:, [str(n) for n in h["v"].attrs["columns"]].index("v:elbow")]
            assert same(float(r["final:q:shoulder"]), float(q[-1]))
            assert same(float(r["max:v:elbow"]), float(v.max()))
            assert same(float(r["energy-drift"]), float(np.abs(e - e[0]).max()))
            assert float(r["mean:energy:total"]) == pytest.approx(e.mean(), rel=1e-14)


def test_resume_skips_finished_runs(run_tool, tmp_path):
    f = failing_sweep(tmp_path)
    run(run_tool, "sweep", f)
    runs = tmp_path / "s.sweep" / "runs"
    before = {p.name: p.stat().st_mtime_ns for p in runs.glob("*.yaml")}
    summary = (tmp_path / "s.sweep" / "summary.csv").read_bytes()
    (runs / "00004.yaml").unlink()
    p = run(run_tool, "sweep", f)
    assert "ran=1 " in p.stdout and "5 of 6 runs have results already" in p.stderr
    after = {p.name: p.stat().st_mtime_ns for p in runs.glob("*.yaml")}
    assert all(after[n] == t for n, t in before.items() if n != "00004.yaml")
    assert (tmp_path / "s.sweep" / "summary.csv").read_bytes() == summary
    p = run(run_tool, "sweep", f, "--retry-failed")
    assert "ran=2 " in p.stdout
    # Another version of the sweep file does not mix with these results.
    f.write_text(f.read_text().replace("duration: 1", "duration: 1.5"))
    p = run(run_tool, "sweep", f, expect=2)
    assert "another version" in p.stderr and "--restart" in p.stderr
    p = run(run_tool, "sweep", f, "--restart")
    assert "ran=6 " in p.stdout


def test_summary_h5_equals_summary_csv(run_tool, tmp_path):
    f = failing_sweep(tmp_path)
    run(run_tool, "sweep", f)
    rows = read_summary(tmp_path / "s.sweep" / "summary.csv")
    with h5py.File(tmp_path / "s.sweep" / "summary.h5", "r") as h:
        metrics = [str(n) for n in h["metrics"].attrs["columns"]]
        params = [str(n) for n in h["parameters"].attrs["columns"]]
        assert params == ["joint:shoulder.damping", "options.time-step"]
        np.testing.assert_array_equal(h["run"][...], np.arange(6))
        for i, r in enumerate(rows):
            assert h["status"][i].decode() == r["status"]
            assert int(h["exit_code"][i]) == int(r["exit_code"])
            assert h["message"][i].decode() == r["message"]
            for k, name in enumerate(params):
                assert h["parameter_values"][i, k].decode() == r[name]
                assert h["parameters"][i, k] == float(r[name])
            for k, name in enumerate(metrics):
                assert same(float(h["metrics"][i, k]), float(r[name]))


def test_sweep_of_a_scene_file_with_options(run_tool, tmp_path):
    f = write(tmp_path / "s.yaml", f"""\
        scene: {scene("servo_arm.articula")}
        options: {{dt: 0.002, hold: false, set: {{elbow: 0.3}}, log: "controls,energies"}}
        steps: 100
        parameters:
          actuator:shoulder_servo.kp: [100, 800]
        metrics: [max:force:shoulder_servo, final:q:elbow]
        """)
    p = run(run_tool, "sweep", f, "--out", tmp_path / "out", "--quiet")
    assert "runs=2 ran=2 ok=2" in p.stdout
    rows = read_summary(tmp_path / "out" / "summary.csv")
    assert rows[0]["max:force:shoulder_servo"] != rows[1]["max:force:shoulder_servo"]
    with h5py.File(tmp_path / "out" / "runs" / "00000.h5", "r") as h:
        assert h["t"].shape == (101,)
        assert h["q"][0, 1] == 0.3
        assert "--param actuator:shoulder_servo.kp=100" not in h.attrs["command_line"]
        assert "--worker 0" in h.attrs["command_line"]


def test_example_sweep_and_reader(run_tool, tmp_path):
    import subprocess
    import sys
    from conftest import SOURCE_DIR
    example = SOURCE_DIR / "examples" / "sweeps"
    p = run(run_tool, "sweep", example / "arm_gains.yaml", "--out", tmp_path / "arm", "--quiet")
    assert "runs=20 ran=20 ok=20" in p.stdout
    out = subprocess.run([sys.executable, str(example / "read_results.py"), str(tmp_path / "arm"), "--plot",
                          str(tmp_path / "arm.png")], capture_output=True, text=True, check=True,
                         env=dict(os.environ, MPLBACKEND="Agg")).stdout
    assert "actuator:shoulder_servo.kp" in out and "run 0: 201 rows" in out
    assert (tmp_path / "arm.png").stat().st_size > 10000
    rows = read_summary(tmp_path / "arm" / "summary.csv")
    # A stiffer servo tracks its target closer: at t = 2 s the shoulder's target is 0.
    finals = {r["actuator:shoulder_servo.kp"]: abs(float(r["final:q:shoulder"])) for r in rows}
    assert finals["800"] < finals["400"] < finals["200"] < finals["100"]


def test_option_errors_name_their_line(run_tool, tmp_path):
    f = write(tmp_path / "s.yaml", """\
        scene: builtin:double-pendulum
        options:
          integrator: euler-ish
        parameters:
          joint:elbow.damping: [1]
        """)
    p = run(run_tool, "sweep", f, expect=2)
    assert f"{f}:3: " in p.stderr and "unknown integrator" in p.stderr
    f.write_text("scene: builtin:double-pendulum\nduration: -1\nparameters:\n  joint:elbow.damping: [1]\n")
    p = run(run_tool, "sweep", f, expect=2)
    assert f"{f}:2: " in p.stderr and "--duration must be positive" in p.stderr
    p = run(run_tool, "sweep", f, "--bogus", expect=2)
    assert "articula-run sweep --help" in p.stderr


def test_hold_servos_are_parameters_too(run_tool, tmp_path):
    # --hold adds a servo per joint; the parameters apply after it, so its gains can be swept.
    f = write(tmp_path / "s.yaml", """\
        scene: builtin:double-pendulum
        options: {hold: true, param: {"v:elbow": 2}}
        steps: 50
        every: 7
        parameters:
          actuator:double_pendulum_elbow_hold.kp: [10, 1000]
        metrics: [final:q:elbow, steps]
        """)
    p = run(run_tool, "sweep", f, "--quiet")
    assert "ok=2" in p.stdout, p.stdout
    rows = read_summary(tmp_path / "s.sweep" / "summary.csv")
    assert rows[0]["final:q:elbow"] != rows[1]["final:q:elbow"]
    # final: is the last state even when --every skipped it (50 is not a multiple of 7).
    with h5py.File(tmp_path / "s.sweep" / "runs" / "00000.h5", "r") as h:
        assert h["t"].shape == (8,)
    csv_run = run(run_tool, "run", "--scene", "double-pendulum", "--hold", "--steps", "50", "--param", "v:elbow=2",
                  "--param", "actuator:double_pendulum_elbow_hold.kp=10", "--csv", tmp_path / "a.csv", "--quiet")
    assert csv_run.returncode == 0
    last = list(csv.DictReader(open(tmp_path / "a.csv")))[-1]
    assert float(rows[0]["final:q:elbow"]) == float(last["q:elbow"])


def test_one_sweep_per_folder_and_changed_files(run_tool, tmp_path):
    import fcntl
    f = failing_sweep(tmp_path)
    run(run_tool, "sweep", f, "--quiet")
    with open(tmp_path / "s.sweep" / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        p = run(run_tool, "sweep", f, expect=2)
        assert "another 'articula-run sweep' is working in" in p.stderr
    # A worker started after the sweep file changed refuses to run.
    f.write_text(f.read_text().replace("every: 5", "every: 4"))
    p = run(run_tool, "sweep", f, "--out", tmp_path / "s.sweep", "--worker", "0", expect=2)
    assert "changed after the sweep" in p.stderr
