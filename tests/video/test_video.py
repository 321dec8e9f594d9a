"""articula-run render --video: videos of replays and runs through the ffmpeg
program, read back with ffprobe and ffmpeg (docs/viewer.md, "Videos")."""
import json
import os
import subprocess
import time

import numpy as np
import pytest
from PIL import Image

SOURCE = os.environ.get("ARTICULA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CAMERA = "3,-4,2:0,0,0.5"

FALLING_BALL = """<?xml version="1.0" encoding="UTF-8"?>
<articula version="3">
    <options gravity="0 0 -9.81" time_step="0.001" integrator="semi-implicit-euler"/>
    <rigid_body name="ball">
        <inertia mass="1" com="0 0 0" rotational="0.004 0 0 0 0.004 0 0 0 0.004"/>
        <state q="0 0 5 0 0 0 1" v="0 0 0 0 0 0" tau="0 0 0 0 0 0"/>
    </rigid_body>
    <shape name="ball_visual" kind="visual" owner="ball" color="1 0 0 1">
        <geometry type="sphere" radius="0.1"/>
        <pose translation="0 0 0" rotation="1 0 0 0 1 0 0 0 1"/>
    </shape>
</articula>
"""


@pytest.fixture
def tool():
    path = os.environ.get("ARTICULA_RUN")
    if not path or not os.path.exists(path):
        pytest.fail("ARTICULA_RUN does not name the articula-run of this build")
    return path


def run(tool, *args, expect=0, env=None):
    p = subprocess.run([tool, *map(str, args)], capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == expect, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    tool = os.environ["ARTICULA_RUN"]
    path = tmp_path_factory.mktemp("replay") / "stack.replay"
    run(tool, "run", os.path.join(SOURCE, "scenes", "box_stack.articula"), "--duration", "2", "--record", path,
        "--quiet")
    return path


def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                          "stream=codec_name,width,height,nb_read_frames,avg_frame_rate:format=duration", "-of",
                          "json", str(path)], capture_output=True, text=True, check=True).stdout
    info = json.loads(out)
    return info["streams"][0], float(info["format"]["duration"])


def frame(path, k, out):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(path), "-vf", f"select=eq(n\\,{k})", "-vframes", "1",
                    str(out)], check=True)
    return np.asarray(Image.open(out).convert("RGB"), float)


def changed(a, b):
    """The fraction of pixels that differ by more than 40 in some channel."""
    return float((np.abs(a - b).max(axis=2) > 40).mean())


def psnr(a, b):
    return 10 * np.log10(255.0 ** 2 / ((a - b) ** 2).mean())


@pytest.mark.parametrize("name,codec", [("stack.mp4", "h264"), ("stack.webm", "vp9")])
def test_frames_size_and_duration(tool, replay, tmp_path, name, codec):
    out = tmp_path / name
    run(tool, "render", "--replay", replay, "--video", out, "--fps", "30", "--size", "640x360", "--camera", CAMERA,
        "--quiet")
    stream, duration = probe(out)
    assert stream["codec_name"] == codec
    assert (stream["width"], stream["height"]) == (640, 360)
    assert int(stream["nb_read_frames"]) == 60
    assert stream["avg_frame_rate"] == "30/1"
    assert duration == pytest.approx(2.0, abs=0.04)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary file left


def test_frame_k_is_the_png_of_its_step(tool, replay, tmp_path):
    video = tmp_path / "stack.mp4"
    run(tool, "render", "--replay", replay, "--video", video, "--size", "640x360", "--camera", CAMERA, "--quiet")
    for k in (0, 30, 59):
        step = int(np.floor(k * 1000 / 30 + 1e-6))  # frame k shows t = k/30 s; dt = 1 ms
        png = tmp_path / f"p{k}.png"
        run(tool, "render", "--replay", replay, "--frame", step, "--out", png, "--size", "640x360", "--camera", CAMERA,
            "--quiet")
        expected = np.asarray(Image.open(png).convert("RGB"), float)
        got = frame(video, k, tmp_path / f"v{k}.png")
        value = psnr(expected, got)
        print(f"frame {k} (step {step}): PSNR {value:.1f} dB")
        assert value >= 35.0, f"frame {k}: PSNR {value:.1f} dB"


def test_speed_and_range(tool, replay, tmp_path):
    out = tmp_path / "fast.mp4"
    run(tool, "render", "--replay", replay, "--video", out, "--speed", "2", "--size", "320x180", "--quiet")
    stream, duration = probe(out)
    assert int(stream["nb_read_frames"]) == 30  # 2 s of simulated time at 2x: 1 s of video
    assert duration == pytest.approx(1.0, abs=0.04)
    out = tmp_path / "late.mp4"
    run(tool, "render", "--replay", replay, "--video", out, "--from", "1", "--size", "320x180", "--quiet")
    stream, duration = probe(out)
    assert int(stream["nb_read_frames"]) == 30


def red_centroid(image):
    red = (image[:, :, 0] > 150) & (image[:, :, 1] < 80) & (image[:, :, 2] < 80)
    if red.sum() < 5:
        return None
    ys, xs = np.nonzero(red)
    return xs.mean(), ys.mean()


def test_follow_keeps_a_falling_body_centred(tool, tmp_path):
    scene = tmp_path / "ball.articula"
    scene.write_text(FALLING_BALL)
    for follow in (True, False):
        out = tmp_path / f"ball-{follow}.mp4"
        args = ["render", scene, "--video", out, "--duration", "1", "--size", "320x240", "--camera",
                "0,-3,5:0,0,5", "--quiet"]
        if follow:
            args += ["--follow", "ball"]
        run(tool, *args)
        last = frame(out, 29, tmp_path / f"last-{follow}.png")
        centre = red_centroid(last)
        if follow:
            # The ball fell 4.9 m; the camera kept it within 10 % of the image size of the centre.
            assert centre is not None
            assert abs(centre[0] - 160) < 32 and abs(centre[1] - 120) < 24, centre
        else:
            assert centre is None or abs(centre[1] - 120) > 60  # a fixed camera lost it


def test_orbit_turns_the_camera_about_a_still_scene(tool, tmp_path):
    scene = os.path.join(SOURCE, "scenes", "box_stack.articula")
    out = tmp_path / "orbit.mp4"
    # 90 degrees per second for 2 s of a resting stack: the last frame looks at it from half a turn away.
    run(tool, "render", scene, "--video", out, "--duration", "2", "--orbit", "90", "--fps", "10",
        "--size", "320x240", "--camera", CAMERA, "--quiet")
    first = frame(out, 0, tmp_path / "o0.png")
    eighth = frame(out, 5, tmp_path / "o5.png")
    half = frame(out, 19, tmp_path / "o19.png")
    # (A quarter turn of the square grid looks much like no turn: an eighth and a half are compared.)
    print(f"\norbit: {changed(first, eighth):.3f} and {changed(first, half):.3f} of the pixels changed")
    assert changed(first, eighth) > 0.05 and changed(first, half) > 0.05
    # Without --orbit the camera stays: the frames agree.
    still = tmp_path / "still.mp4"
    run(tool, "render", scene, "--video", still, "--duration", "2", "--fps", "10", "--size", "320x240",
        "--camera", CAMERA, "--quiet")
    steady = changed(frame(still, 0, tmp_path / "s0.png"), frame(still, 19, tmp_path / "s19.png"))
    print(f"fixed camera: {steady:.4f} of the pixels changed")
    assert steady < 0.005


def test_errors_are_clear_and_leave_the_previous_file(tool, replay, tmp_path):
    target = tmp_path / "v.mp4"
    target.write_bytes(b"previous")
    p = run(tool, "render", "--replay", replay, "--video", tmp_path / "v.avi", expect=2)
    assert "unknown format '.avi' (.mp4 for H.264, .webm for VP9)" in p.stderr
    p = run(tool, "render", "--replay", replay, "--video", target, "--codec", "h265", expect=2)
    assert "unknown codec 'h265' (h264 or vp9)" in p.stderr
    p = run(tool, "render", "--replay", replay, "--video", target, "--size", "641x360", expect=2)
    assert "even width and height" in p.stderr
    env = dict(os.environ, PATH="/nonexistent")
    p = run(tool, "render", "--replay", replay, "--video", target, expect=2, env=env)
    assert "ffmpeg was not found on PATH" in p.stderr
    assert target.read_bytes() == b"previous"


def test_encoding_speed_at_720p(tool, replay, tmp_path):
    out = tmp_path / "hd.mp4"
    t0 = time.perf_counter()
    run(tool, "render", "--replay", replay, "--video", out, "--size", "1280x720", "--camera", CAMERA, "--quiet")
    elapsed = time.perf_counter() - t0
    stream, _ = probe(out)
    frames = int(stream["nb_read_frames"])
    print(f"\n1280x720 H.264: {frames} frames in {elapsed:.2f} s = {frames / elapsed:.1f} frames/s "
          "(render, read back and encode)")
    assert frames == 60
