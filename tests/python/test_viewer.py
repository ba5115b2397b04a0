"""`fmu3d view` in a browser and `fmu3d plot`'s images.

The page of `fmu3d view` is opened from file:// in headless Chromium (Debian's `chromium`, which
`bash scripts/setup.sh --python` installs; WebGL on SwiftShader, no GPU) and driven through the
DevTools protocol (browser.py). The animation is a glTF 2.0 binary written here from scratch
(gltf_boxes.py): a box moved and turned by LINEAR channels and a box that stays. Asserted: the
page loads without console errors or exceptions, screenshots at two times differ where the
moving box was and agree where nothing moved, the body under the pointer is named, play
advances the time, and the plot pane draws the chosen columns with their units.

With an `fmu3d simulate --animation` the billiard break and the four-bar are animated, viewed
and photographed: those screenshots are the README's (docs/images/).
"""

import io
import json
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from browser import CHROMIUM, Browser
from conftest import FMU3D, MODELS, REPOSITORY, fmu3d, installed_tool
from gltf_boxes import write_boxes

needs_chromium = pytest.mark.skipif(
    shutil.which("chromium") is None and not Path(CHROMIUM).is_file(),
    reason="chromium is not installed (`bash scripts/setup.sh --python` installs it)",
)

IMAGES = REPOSITORY / "docs" / "images"
#: The Khronos glTF validator (`bash scripts/setup.sh --python` installs it, see test_animation.py).
VALIDATOR = REPOSITORY / ".tools" / "gltf-validator" / "node_modules" / "gltf-validator" / "package.json"
VALIDATE = REPOSITORY / "tests" / "gltf" / "validate.mjs"


def pixels(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def region(image, box, margin=2):
    """The pixels of a screen rectangle {x, y, width, height} (CSS pixels = image pixels)."""
    height, width = image.shape[:2]
    x0 = max(0, int(box["x"]) - margin)
    y0 = max(0, int(box["y"]) - margin)
    x1 = min(width, int(box["x"] + box["width"]) + 1 + margin)
    y1 = min(height, int(box["y"] + box["height"]) + 1 + margin)
    assert x1 - x0 > 4 and y1 - y0 > 4, f"{box} is not on the screen"
    return image[y0:y1, x0:x1]


def changed(a, b):
    """The fraction of pixels whose colour differs by more than a little."""
    return float(np.mean(np.abs(a - b).max(axis=2) > 8))


def overlap(a, b):
    return not (a["x"] + a["width"] < b["x"] or b["x"] + b["width"] < a["x"]
                or a["y"] + a["height"] < b["y"] or b["y"] + b["height"] < a["y"])


def show(browser, page, t):
    """Opens (or moves) the page to `#t=T&paused` and waits for that frame to be drawn."""
    browser.open(f"{page.as_uri()}#t={t}&paused")
    browser.wait_for(
        "document.documentElement.dataset.state === 'ready'"
        f" && Number(document.documentElement.dataset.time) === {float(t)}"
    )


@pytest.fixture
def boxes(tmp_path):
    """boxes.glb: `mover` slides along x and turns about y over 2 s, `still` stays."""
    path = tmp_path / "boxes.glb"
    times = [0.0, 0.5, 1.0, 1.5, 2.0]
    s = 0.5 ** 0.5
    write_boxes(path, [
        dict(name="mover", size=(0.5, 0.5, 0.5), colour=(0.85, 0.25, 0.2),
             translations=[(-1.5 + 1.5 * t, 0.0, 0.0) for t in times],
             rotations=[(0, 0, 0, 1), (0, 0.3826834, 0, 0.9238795), (0, s, 0, s),
                        (0, 0.9238795, 0, 0.3826834), (0, 1, 0, 0)]),
        dict(name="still", size=(0.6, 0.3, 0.6), colour=(0.2, 0.4, 0.85), translation=(0.0, 1.5, -1.0)),
    ], times)
    return path


def test_the_test_animation_is_valid_gltf(boxes):
    """The boxes of these tests are a glTF 2.0 file as the Khronos validator reads it (no errors,
    no warnings), so the viewer is tested on a standard file, not on one only it understands."""
    installed_tool(VALIDATOR)
    run = subprocess.run(["node", str(VALIDATE), str(boxes)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    (report,) = json.loads(run.stdout)
    assert (report["numErrors"], report["numWarnings"]) == (0, 0), report["messages"]


def test_the_page_is_one_file_that_fetches_nothing(boxes, tmp_path):
    page = tmp_path / "page.html"
    run = fmu3d("view", boxes, "-o", page)
    assert f"wrote {page}" in run.stdout
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "<script src" not in html and "<link" not in html
    assert html.count("<script") == 2  # the data, the page script


@needs_chromium
def test_the_page_plays_the_animation_in_a_browser(boxes, tmp_path):
    page = tmp_path / "page.html"
    fmu3d("view", boxes, "-o", page)
    with Browser() as browser:
        show(browser, page, 0)
        assert browser.evaluate("fmu3d.duration") == 2.0
        assert sorted(browser.evaluate("fmu3d.bodies()")) == ["mover", "still"]
        first = pixels(browser.screenshot(tmp_path / "t0.png"))
        mover0 = browser.evaluate("fmu3d.screenBox('mover')")
        still0 = browser.evaluate("fmu3d.screenBox('still')")

        show(browser, page, 1.5)
        second = pixels(browser.screenshot(tmp_path / "t1.5.png"))
        mover1 = browser.evaluate("fmu3d.screenBox('mover')")
        still1 = browser.evaluate("fmu3d.screenBox('still')")
        assert still0 == still1
        assert not overlap(mover0, still0) and not overlap(mover1, still0), (mover0, mover1, still0)

        # Where the moving box was at t = 0 and is at t = 1.5: different pictures.
        assert changed(region(first, mover0), region(second, mover0)) > 0.3
        assert changed(region(first, mover1), region(second, mover1)) > 0.3
        # Where nothing moved: the same pixels (the box that stays, and a corner of the view).
        assert changed(region(first, still0), region(second, still0)) == 0.0
        assert np.array_equal(first[:80, :80], second[:80, :80])
        # The box that stays is drawn (not background): its pixels are not all one colour.
        assert len(np.unique(region(first, still0, margin=0).reshape(-1, 3), axis=0)) > 3

        # The body under the pointer is named.
        for name, box in (("still", still1), ("mover", mover1)):
            browser.move_mouse(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            browser.wait_for(f"document.getElementById('tooltip').textContent === '{name}'"
                             " && !document.getElementById('tooltip').hidden", timeout=10)
        browser.move_mouse(5, 5)
        browser.wait_for("document.getElementById('tooltip').hidden", timeout=10)

        # Play runs the time on (the slider and the clock with it), pause holds it.
        browser.evaluate("fmu3d.show(0)")
        browser.evaluate("document.getElementById('play').click()")
        browser.wait_for("fmu3d.time > 0.2", timeout=20)
        browser.evaluate("document.getElementById('play').click()")
        held = browser.evaluate("fmu3d.time")
        assert browser.evaluate("new Promise(r => setTimeout(() => r(fmu3d.time), 300))") == held
        assert float(browser.evaluate("document.getElementById('slider').value")) == pytest.approx(held, abs=0.005)  # the step

        assert browser.errors() == []
        # Nothing but the page itself was loaded.
        loaded = {e["params"]["request"]["url"].split("#")[0] for e in browser.events
                  if e["method"] == "Network.requestWillBeSent"}
        assert loaded == {page.as_uri()}, loaded


@needs_chromium
def test_the_first_view_frames_the_start_and_the_camera_follows_a_body(boxes, tmp_path):
    """The first view holds every body as the run starts; with `#follow=mover` the camera
    moves with the mover: it stays where it was on the screen (to a pixel) while it travels
    3 m, and the box that stays drifts across the view instead."""
    page = tmp_path / "page.html"
    fmu3d("view", boxes, "-o", page)
    with Browser() as browser:
        show(browser, page, 0)
        width = browser.evaluate("window.innerWidth")
        height = browser.evaluate("window.innerHeight")
        for name in ("mover", "still"):
            box = browser.evaluate(f"fmu3d.screenBox('{name}')")
            assert box["x"] >= 0 and box["y"] >= 0, (name, box)
            assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, (name, box)

        browser.open(f"{page.as_uri()}#t=0&paused&follow=mover")
        browser.wait_for("document.documentElement.dataset.state === 'ready'")
        assert browser.evaluate("fmu3d.follow('mover')") is True
        browser.evaluate("fmu3d.show(0)")
        start = browser.evaluate("fmu3d.screenBox('mover')")
        still_start = browser.evaluate("fmu3d.screenBox('still')")
        x0 = browser.evaluate("fmu3d.matrix('mover')")[12]
        browser.evaluate("fmu3d.show(2)")
        end = browser.evaluate("fmu3d.screenBox('mover')")
        still_end = browser.evaluate("fmu3d.screenBox('still')")
        x2 = browser.evaluate("fmu3d.matrix('mover')")[12]
        assert x2 - x0 == pytest.approx(3.0)
        centre = lambda b: (b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
        (sx, sy), (ex, ey) = centre(start), centre(end)
        # The mover turned by 180° about y: its rectangle may change, its centre stays.
        assert abs(sx - ex) < 1.0 and abs(sy - ey) < 1.0, (start, end)
        assert abs(centre(still_start)[0] - centre(still_end)[0]) > 20, (still_start, still_end)
        assert browser.evaluate("fmu3d.follow(null)") is False
        assert browser.errors() == []


@needs_chromium
def test_the_plot_pane_draws_the_chosen_columns_with_a_cursor(boxes, tmp_path):
    csv = tmp_path / "pendulum.csv"
    fmu3d("simulate", MODELS["pendulum"], "--stop-time", "2", "-o", csv)
    page = tmp_path / "page.html"
    fmu3d("view", boxes, "-o", page, "--csv", csv, "--plot", "rev.phi", "rev.w",
          "--model", MODELS["pendulum"])
    with Browser() as browser:
        show(browser, page, 0.25)
        legend = browser.evaluate("document.getElementById('legend').textContent")
        assert legend == "rev.phi [rad]rev.w [rad/s]"
        pane = json.loads(browser.evaluate(
            "JSON.stringify(document.getElementById('plot').getBoundingClientRect())"))
        first = region(pixels(browser.screenshot()), pane, margin=0)
        show(browser, page, 1.75)
        second = region(pixels(browser.screenshot()), pane, margin=0)
        # The two curves: pixels of both series' colours.
        for colour in ((31, 119, 180), (214, 39, 40)):
            assert np.sum(np.all(np.abs(first - colour) < 40, axis=2)) > 100, colour
        # The cursor moved: the plot differs, but only in a few columns of pixels.
        columns = np.flatnonzero(np.abs(first - second).max(axis=(0, 2)) > 8)
        assert 0 < len(columns) < 10, columns
        assert browser.errors() == []


@needs_chromium
def test_a_broken_animation_is_reported_on_the_page(tmp_path):
    """A file with the glTF binary header but no valid content gets past `fmu3d view` (which
    reads the header only) and is reported by the page: a message and the state `error`."""
    broken = tmp_path / "broken.glb"
    text = b'{"asset": {"version": "2.0"}, "nodes": [' + b" " * 3
    broken.write_bytes(struct.pack("<4sII", b"glTF", 2, 20 + len(text))
                       + struct.pack("<I4s", len(text), b"JSON") + text)
    page = tmp_path / "broken.html"
    fmu3d("view", broken, "-o", page)
    with Browser() as browser:
        browser.open(page.as_uri())
        browser.wait_for("document.documentElement.dataset.state === 'error'")
        message = browser.evaluate("document.getElementById('message').textContent")
        assert message.startswith("the animation could not be read"), message
        assert browser.evaluate("!document.getElementById('message').hidden")
        assert any("the animation could not be read" in e for e in browser.errors())


def test_view_refuses_what_is_not_a_gltf_binary(tmp_path):
    fake = tmp_path / "fake.glb"
    fake.write_text('{"asset": {"version": "2.0"}}')
    run = subprocess.run([str(FMU3D), "view", str(fake), "-o", str(tmp_path / "x.html")],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.startswith(f"{fake}: not a glTF binary (.glb)")
    assert not (tmp_path / "x.html").exists()


# --- fmu3d plot ---------------------------------------------------------------------------------

def colour_rows(image, colour, tolerance=30):
    """The rows of the image where a pixel has this colour (a curve's pixels)."""
    mask = np.all(np.abs(image - np.array(colour)) < tolerance, axis=2)
    return np.flatnonzero(mask.any(axis=1)), mask


def test_plot_writes_a_png_of_the_columns(tmp_path):
    csv = tmp_path / "r.csv"
    t = np.linspace(0, 2, 201)
    rows = ["time,wave,flat"] + [f"{a},{np.sin(np.pi * a)},{0.25}" for a in t]
    csv.write_text("\n".join(rows) + "\n")
    wave, flat = tmp_path / "wave.png", tmp_path / "flat.png"
    fmu3d("plot", csv, "wave", "-o", wave, "--width", "640", "--height", "400")
    fmu3d("plot", csv, "flat", "-o", flat, "--width", "640", "--height", "400")
    blue = (31, 119, 180)
    for path in (wave, flat):
        image = Image.open(path)
        assert image.format == "PNG" and image.size == (640, 400)
    wave_rows, _ = colour_rows(np.asarray(Image.open(wave).convert("RGB"), dtype=np.int16), blue)
    flat_rows, flat_mask = colour_rows(np.asarray(Image.open(flat).convert("RGB"), dtype=np.int16), blue)
    # A sine over a period spans most of the height; a constant is a horizontal line (its
    # legend sample aside, a few rows), across most of the width.
    assert wave_rows.max() - wave_rows.min() > 200
    curve = flat_mask[:, :500]  # left of the legend
    assert np.ptp(np.flatnonzero(curve.any(axis=1))) <= 3
    assert curve.any(axis=0).sum() > 400


def test_plot_labels_the_axes_with_the_models_units(tmp_path):
    csv = tmp_path / "pendulum.csv"
    fmu3d("simulate", MODELS["pendulum"], "--stop-time", "1", "-o", csv)
    fmu = tmp_path / "pendulum.fmu"
    fmu3d("build", MODELS["pendulum"], "-o", fmu)
    plain, from_model, from_fmu = (tmp_path / f"{n}.png" for n in ("plain", "model", "fmu"))
    fmu3d("plot", csv, "rev.phi", "-o", plain)
    fmu3d("plot", csv, "rev.phi", "-o", from_model, "--model", MODELS["pendulum"])
    fmu3d("plot", csv, "rev.phi", "-o", from_fmu, "--fmu", fmu)
    images = [np.asarray(Image.open(p).convert("RGB"), dtype=np.int16) for p in (plain, from_model, from_fmu)]
    # The unit `[rad]` lengthens the vertical axis's label: only the label strip differs.
    difference = np.abs(images[0] - images[1]).max(axis=2) > 0
    assert difference.any()
    assert not difference[:, 40:].any()
    # The model file and its FMU give the same unit.
    assert np.array_equal(images[1], images[2])


def test_plot_names_an_unknown_column(tmp_path):
    csv = tmp_path / "pendulum.csv"
    fmu3d("simulate", MODELS["pendulum"], "--stop-time", "0.1", "-o", csv)
    run = subprocess.run([str(FMU3D), "plot", str(csv), "rev.ph", "-o", str(tmp_path / "x.png")],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.strip() == f"{csv}: there is no column `rev.ph`: did you mean `rev.phi`?"
    assert not (tmp_path / "x.png").exists()


# --- The README's pictures: the billiard break and the four-bar ----------------------------------

def animation_available():
    help = subprocess.run([str(FMU3D), "simulate", "--help"], capture_output=True, text=True).stdout
    return "--animation" in help


def poses(browser):
    """{body: (its world matrix, its rectangle on the screen)} of every node of the page."""
    return json.loads(browser.evaluate(
        "JSON.stringify(Object.fromEntries(fmu3d.bodies().map("
        "n => [n, [fmu3d.matrix(n), fmu3d.screenBox(n)]])))"))


@needs_chromium
@pytest.mark.parametrize("model, t, plot, hover", [
    ("billiard16", 0.6, [], "cue"),
    ("fourbar", 0.5, ["rev1.phi", "rev1.w"], None),
])
def test_the_readme_pictures_of_real_runs(model, t, plot, hover, tmp_path):
    """`fmu3d simulate --animation`, `fmu3d view`, a browser: the README's pictures
    (docs/images/MODEL.png, at time t), written anew by every run."""
    if not animation_available():
        pytest.skip("fmu3d simulate has no --animation in this build")
    glb = tmp_path / f"{model}.glb"
    csv = tmp_path / f"{model}.csv"
    fmu3d("simulate", MODELS[model], "-o", csv, "--animation", glb)
    page = tmp_path / f"{model}.html"
    if plot:
        fmu3d("view", glb, "-o", page, "--csv", csv, "--plot", *plot, "--model", MODELS[model])
    else:
        fmu3d("view", glb, "-o", page)
    with Browser(width=960, height=600) as browser:
        show(browser, page, 0)
        first = pixels(browser.screenshot())
        before = poses(browser)
        show(browser, page, t)
        IMAGES.mkdir(parents=True, exist_ok=True)
        second = pixels(browser.screenshot(IMAGES / f"{model}.png"))
        after = poses(browser)
        view = json.loads(browser.evaluate(
            "JSON.stringify(document.getElementById('view').getBoundingClientRect())"))
        if hover:
            # The pointer on a body's shape names the body (the node the animation moves).
            box = after[hover][1]
            browser.move_mouse(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            browser.wait_for(f"document.getElementById('tooltip').textContent === '{hover}'",
                             timeout=10)
            browser.move_mouse(1, 1)
            browser.wait_for("document.getElementById('tooltip').hidden", timeout=10)
        assert browser.errors() == []
    # The 3D view (the controls below it show the time, which changed).
    first, second = (region(image, view, margin=0) for image in (first, second))
    moved = [name for name in before
             if not np.allclose(before[name][0], after[name][0], atol=1e-6) and before[name][1]]
    assert moved, "no body moved"
    # Where the moved bodies were and are (their rectangles, a few pixels wider), the picture
    # changed; everywhere else it is the same, pixel for pixel.
    mask = np.zeros(first.shape[:2], dtype=bool)
    height, width = mask.shape
    for name in moved:
        for box in (before[name][1], after[name][1]):
            x0, y0 = max(0, int(box["x"]) - 3), max(0, int(box["y"]) - 3)
            x1 = min(width, int(box["x"] + box["width"]) + 4)
            y1 = min(height, int(box["y"] + box["height"]) + 4)
            mask[y0:y1, x0:x1] = True
    difference = np.abs(first - second).max(axis=2) > 8
    assert difference[mask].mean() > 0.01
    assert not difference[~mask].any(), np.argwhere(difference & ~mask)[:5]
    assert (~mask).mean() > 0.3, "the moving bodies cover most of the picture"


def test_fmu3d_needs_no_font_library():
    """The plots' font is compiled in: `fmu3d` links no fontconfig or freetype."""
    run = subprocess.run(["readelf", "-d", str(FMU3D)], capture_output=True, text=True, check=True)
    needed = [line for line in run.stdout.splitlines() if "(NEEDED)" in line]
    assert needed and not [line for line in needed if "font" in line or "freetype" in line], needed
