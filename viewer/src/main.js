// The page of `fmu3d view`: an animated glTF 2.0 binary (embedded in the page as base64) played
// with three.js, with an orbit camera, body names on hover and an optional plot of result columns.
//
// The page reads its data from `<script type="application/json" id="fmu3d-data">`:
//   { "glb": BASE64, "plot": { "time": [..], "series": [{ "name", "unit", "values": [..] }] } }
// and is scriptable, for tests and for links to a moment of a run:
//   page.html#t=1.25&paused   shows t = 1.25 s, paused (also on a later change of the hash);
//   <html data-state="ready" data-time="T"> once the frame of time T is on the screen;
//   page.html#follow=NAME     the camera follows the body NAME (its target stays on the body);
//   window.fmu3d.show(t) (a Promise, resolved once that frame is drawn), .play(), .pause(),
//   .duration, .bodies() (node names), .screenBox(name) (the body's rectangle on the screen,
//   in CSS pixels of the page), .matrix(name) (its pose in the world, 16 numbers),
//   .follow(name) (null: stop following).

import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";

const root = document.documentElement;
const data = JSON.parse(document.getElementById("fmu3d-data").textContent);
const $ = (id) => document.getElementById(id);

function fail(message) {
  root.dataset.state = "error";
  const box = $("message");
  box.textContent = message;
  box.hidden = false;
  console.error(message);
}

function decodeBase64(text) {
  const bytes = atob(text);
  const buffer = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) buffer[i] = bytes.charCodeAt(i);
  return buffer.buffer;
}

// --- The 3D view -------------------------------------------------------------------------

const view = $("view");
const renderer = new THREE.WebGLRenderer({ antialias: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
view.appendChild(renderer.domElement);

const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f5f7);
scene.add(new THREE.HemisphereLight(0xffffff, 0x8d8d8d, 2.0));
const sun = new THREE.DirectionalLight(0xffffff, 2.0);
sun.position.set(3, 10, 6);
scene.add(sun);

const camera = new THREE.PerspectiveCamera(40, 1, 0.001, 1000);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = false;
controls.addEventListener("change", () => requestDraw());

let mixer = null;
let actions = [];
let duration = 0;
let time = 0;
let playing = true;
let speed = 1;
let lastClock = null;
let pendingFrame = [];
let drawRequested = false;
let gltf = null;
const bodies = new Map(); // node name -> Object3D

function resize() {
  const width = Math.max(1, view.clientWidth);
  const height = Math.max(1, view.clientHeight);
  renderer.setSize(width, height, false);
  renderer.domElement.style.width = width + "px";
  renderer.domElement.style.height = height + "px";
  camera.aspect = width / height;
  camera.updateProjectionMatrix();
  requestDraw();
}
window.addEventListener("resize", resize);

// Poses the scene at time t: every clip sampled at t, held at its last key after its end.
function pose(t) {
  for (const action of actions) {
    action.enabled = true;
    action.paused = true;
    action.time = Math.min(Math.max(t, 0), action.getClip().duration);
  }
  if (mixer) mixer.update(0);
  keepFollowing();
}

// The body the camera follows, if any, and where it was when the camera last moved with it.
let followed = null;
const followedAt = new THREE.Vector3();

function bodyPosition(object) {
  object.updateWorldMatrix(true, false);
  return new THREE.Vector3().setFromMatrixPosition(object.matrixWorld);
}

// Moves the camera and its target by the followed body's displacement since the last frame,
// so that the view keeps its direction and distance while the body moves.
function keepFollowing() {
  if (!followed) return;
  const now = bodyPosition(followed);
  const shift = now.clone().sub(followedAt);
  camera.position.add(shift);
  controls.target.add(shift);
  followedAt.copy(now);
  controls.update();
}

function follow(name) {
  followed = name ? bodies.get(name) || null : null;
  if (followed) {
    followedAt.copy(bodyPosition(followed));
    // The target jumps onto the body; the camera keeps its offset from the target.
    const offset = camera.position.clone().sub(controls.target);
    controls.target.copy(followedAt);
    camera.position.copy(followedAt).add(offset);
    controls.update();
  }
  requestDraw();
  return followed !== null;
}

function setTime(t) {
  time = Math.min(Math.max(t, 0), duration);
  pose(time);
  requestDraw();
}

// Frames the scene as it starts: its bounding box at t = 0 (a part that falls or flies away
// later leaves the view; `#follow=NAME` keeps one in it).
function frameCamera() {
  const box = new THREE.Box3();
  pose(0);
  gltf.scene.updateMatrixWorld(true);
  box.expandByObject(gltf.scene);
  if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
  const center = box.getCenter(new THREE.Vector3());
  const radius = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 1e-3);
  const direction = new THREE.Vector3(0.9, 0.8, 1.3).normalize();
  // From the bounding sphere's distance closer, until the box's corners fill 85 % of the view.
  let distance = radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2));
  const corner = new THREE.Vector3();
  for (let iteration = 0; iteration < 4; iteration++) {
    camera.position.copy(center).addScaledVector(direction, distance);
    camera.near = distance / 100;
    camera.far = distance * 100;
    camera.lookAt(center);
    camera.updateMatrixWorld(true);
    camera.updateProjectionMatrix();
    let extent = 0;
    for (let i = 0; i < 8; i++) {
      corner.set(
        i & 1 ? box.max.x : box.min.x,
        i & 2 ? box.max.y : box.min.y,
        i & 4 ? box.max.z : box.min.z
      );
      const toCorner = corner.clone().sub(camera.position).dot(direction.clone().negate());
      if (toCorner <= camera.near) extent = Infinity;
      corner.project(camera);
      extent = Math.max(extent, Math.abs(corner.x), Math.abs(corner.y));
    }
    if (!Number.isFinite(extent)) break;
    distance *= Math.min(Math.max(extent / 0.85, 0.5), 2);
  }
  camera.position.copy(center).addScaledVector(direction, distance);
  camera.near = distance / 100;
  camera.far = distance * 100;
  camera.updateProjectionMatrix();
  controls.target.copy(center);
  controls.update();
}

// --- Controls ----------------------------------------------------------------------------

const playButton = $("play");
const slider = $("slider");
const clock = $("clock");
const speedSelect = $("speed");

function updateControls() {
  playButton.textContent = playing ? "Pause" : "Play";
  playButton.setAttribute("aria-pressed", String(playing));
  slider.value = String(time);
  clock.textContent = `t = ${time.toFixed(3)} s / ${duration.toFixed(3)} s`;
}

function play() {
  if (time >= duration) setTime(0);
  playing = true;
  lastClock = null;
  requestDraw();
}

function pause() {
  playing = false;
  requestDraw();
}

playButton.addEventListener("click", () => (playing ? pause() : play()));
slider.addEventListener("input", () => {
  pause();
  setTime(parseFloat(slider.value));
});
speedSelect.addEventListener("change", () => {
  speed = parseFloat(speedSelect.value);
});
window.addEventListener("keydown", (event) => {
  if (event.key === " " && event.target === document.body) {
    event.preventDefault();
    playing ? pause() : play();
  }
});

// --- Body names on hover -------------------------------------------------------------------

const tooltip = $("tooltip");
const raycaster = new THREE.Raycaster();
const pointer = new THREE.Vector2();

// The name to show for a mesh: that of the nearest node above it that the animation moves (the
// body, when its shapes are child nodes), else that of the nearest named node.
function nodeName(object) {
  const animated = new Set();
  for (const animation of gltf.parser.json.animations || []) {
    for (const channel of animation.channels || []) {
      if (channel.target && channel.target.node !== undefined) animated.add(channel.target.node);
    }
  }
  let nearest = null;
  for (let o = object; o; o = o.parent) {
    const association = gltf.parser.associations.get(o);
    if (association && association.nodes !== undefined) {
      const node = gltf.parser.json.nodes[association.nodes];
      if (node && node.name) {
        if (animated.has(association.nodes)) return node.name;
        if (nearest === null) nearest = node.name;
      }
    }
  }
  return nearest;
}

renderer.domElement.addEventListener("pointermove", (event) => {
  if (!gltf) return;
  const rect = renderer.domElement.getBoundingClientRect();
  pointer.x = ((event.clientX - rect.left) / rect.width) * 2 - 1;
  pointer.y = -((event.clientY - rect.top) / rect.height) * 2 + 1;
  raycaster.setFromCamera(pointer, camera);
  const hit = raycaster.intersectObject(gltf.scene, true).find((h) => nodeName(h.object));
  if (hit) {
    tooltip.textContent = nodeName(hit.object);
    tooltip.style.left = event.clientX - rect.left + 12 + "px";
    tooltip.style.top = event.clientY - rect.top + 12 + "px";
    tooltip.hidden = false;
  } else {
    tooltip.hidden = true;
  }
});
renderer.domElement.addEventListener("pointerleave", () => (tooltip.hidden = true));

// --- The plot pane ---------------------------------------------------------------------------

const plot = data.plot;
const plotCanvas = $("plot");
const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"];

function niceTicks(low, high, count) {
  const span = high - low || Math.abs(high) || 1;
  const raw = span / count;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw) || 10 * power;
  const ticks = [];
  for (let v = Math.ceil(low / step) * step; v <= high + step * 1e-9; v += step) {
    ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  }
  return ticks;
}

function drawPlot() {
  if (!plot) return;
  const ratio = window.devicePixelRatio || 1;
  const width = plotCanvas.clientWidth;
  const height = plotCanvas.clientHeight;
  if (plotCanvas.width !== Math.round(width * ratio)) plotCanvas.width = Math.round(width * ratio);
  if (plotCanvas.height !== Math.round(height * ratio)) plotCanvas.height = Math.round(height * ratio);
  const g = plotCanvas.getContext("2d");
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  g.font = "12px sans-serif";
  const t = plot.time;
  let low = Infinity;
  let high = -Infinity;
  for (const s of plot.series) {
    for (const v of s.values) {
      if (Number.isFinite(v)) {
        low = Math.min(low, v);
        high = Math.max(high, v);
      }
    }
  }
  if (!Number.isFinite(low)) (low = 0), (high = 1);
  if (high - low < 1e-12 * Math.max(1, Math.abs(high))) (low -= 0.5), (high += 0.5);
  const t0 = t[0];
  const t1 = t[t.length - 1] > t0 ? t[t.length - 1] : t0 + 1;
  const left = 64, right = 12, top = 10, bottom = 40;
  const x = (v) => left + ((v - t0) / (t1 - t0)) * (width - left - right);
  const y = (v) => top + ((high - v) / (high - low)) * (height - top - bottom);
  g.strokeStyle = "#ccc";
  g.fillStyle = "#333";
  g.lineWidth = 1;
  g.textAlign = "right";
  g.textBaseline = "middle";
  for (const v of niceTicks(low, high, 4)) {
    g.beginPath();
    g.moveTo(left, y(v));
    g.lineTo(width - right, y(v));
    g.stroke();
    g.fillText(String(+v.toPrecision(6)), left - 6, y(v));
  }
  g.textAlign = "center";
  g.textBaseline = "top";
  for (const v of niceTicks(t0, t1, 6)) {
    g.fillText(String(+v.toPrecision(6)), x(v), height - bottom + 4);
  }
  g.fillText("time [s]", (left + width - right) / 2, height - 16);
  plot.series.forEach((s, i) => {
    g.strokeStyle = COLOURS[i % COLOURS.length];
    g.lineWidth = 1.5;
    g.beginPath();
    let pen = false;
    s.values.forEach((v, k) => {
      if (!Number.isFinite(v)) {
        pen = false;
        return;
      }
      if (pen) g.lineTo(x(t[k]), y(v));
      else g.moveTo(x(t[k]), y(v));
      pen = true;
    });
    g.stroke();
  });
  g.strokeStyle = "#000";
  g.lineWidth = 1;
  g.beginPath();
  g.moveTo(x(time), top);
  g.lineTo(x(time), height - bottom);
  g.stroke();
}

function buildLegend() {
  if (!plot) return;
  const legend = $("legend");
  plot.series.forEach((s, i) => {
    const item = document.createElement("span");
    item.style.color = COLOURS[i % COLOURS.length];
    item.textContent = s.unit ? `${s.name} [${s.unit}]` : s.name;
    legend.appendChild(item);
  });
  $("plotpane").hidden = false;
  plotCanvas.addEventListener("click", (event) => {
    const rect = plotCanvas.getBoundingClientRect();
    const t = plot.time;
    const t1 = t[t.length - 1];
    const fraction = (event.clientX - rect.left - 64) / (rect.width - 64 - 12);
    pause();
    setTime(t[0] + fraction * (t1 - t[0]));
  });
}

// --- The loop ------------------------------------------------------------------------------

function requestDraw() {
  if (!drawRequested) {
    drawRequested = true;
    requestAnimationFrame(frame);
  }
}

function frame(now) {
  drawRequested = false;
  if (!gltf) return;
  if (playing) {
    if (lastClock !== null) {
      time += ((now - lastClock) / 1000) * speed;
      if (time >= duration) time = duration > 0 ? time % duration : 0;
    }
    lastClock = now;
    pose(time);
  } else {
    lastClock = null;
  }
  renderer.render(scene, camera);
  updateControls();
  drawPlot();
  root.dataset.time = String(time);
  root.dataset.state = "ready";
  const waiting = pendingFrame;
  pendingFrame = [];
  waiting.forEach((resolve) => resolve(time));
  if (playing) requestDraw();
}

function show(t) {
  pause();
  setTime(t);
  return new Promise((resolve) => {
    pendingFrame.push(resolve);
    requestDraw();
  });
}

function applyHash() {
  const fields = new URLSearchParams(location.hash.replace(/^#/, ""));
  if (fields.has("paused")) pause();
  if (fields.has("follow")) follow(fields.get("follow"));
  if (fields.has("t")) {
    const t = parseFloat(fields.get("t"));
    if (Number.isFinite(t)) {
      root.dataset.state = "loading";
      setTime(t);
    }
  }
}
window.addEventListener("hashchange", applyHash);

function screenBox(name) {
  const object = bodies.get(name);
  if (!object) return null;
  object.updateWorldMatrix(true, true);
  const box = new THREE.Box3().setFromObject(object);
  if (box.isEmpty()) return null;
  const rect = renderer.domElement.getBoundingClientRect();
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i < 8; i++) {
    const p = new THREE.Vector3(
      i & 1 ? box.max.x : box.min.x,
      i & 2 ? box.max.y : box.min.y,
      i & 4 ? box.max.z : box.min.z
    ).project(camera);
    const px = rect.left + ((p.x + 1) / 2) * rect.width;
    const py = rect.top + ((1 - p.y) / 2) * rect.height;
    x0 = Math.min(x0, px), y0 = Math.min(y0, py), x1 = Math.max(x1, px), y1 = Math.max(y1, py);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

window.fmu3d = {
  show,
  play,
  pause,
  get time() {
    return time;
  },
  get duration() {
    return duration;
  },
  bodies: () => [...bodies.keys()],
  follow,
  screenBox,
  matrix: (name) => {
    const object = bodies.get(name);
    if (!object) return null;
    object.updateWorldMatrix(true, false);
    return object.matrixWorld.toArray();
  },
};

function start(loaded) {
  gltf = loaded;
  scene.add(gltf.scene);
  gltf.scene.traverse((object) => {
    const association = gltf.parser.associations.get(object);
    if (association && association.nodes !== undefined) {
      const node = gltf.parser.json.nodes[association.nodes];
      if (node && node.name && !bodies.has(node.name)) bodies.set(node.name, object);
    }
  });
  mixer = new THREE.AnimationMixer(gltf.scene);
  for (const clip of gltf.animations) {
    duration = Math.max(duration, clip.duration);
    const action = mixer.clipAction(clip);
    action.clampWhenFinished = true;
    action.setLoop(THREE.LoopOnce, 1);
    action.play();
    actions.push(action);
  }
  if (plot && plot.time.length) duration = Math.max(duration, plot.time[plot.time.length - 1]);
  slider.max = String(duration);
  slider.step = String(duration / 1000 || 0.001);
  resize();
  frameCamera();
  setTime(0);
  buildLegend();
  applyHash();
  resize();
}

try {
  const buffer = decodeBase64(data.glb);
  new GLTFLoader().parse(buffer, "", start, (error) =>
    fail(`the animation could not be read: ${error && error.message ? error.message : error}`)
  );
} catch (error) {
  fail(`the animation could not be read: ${error.message}`);
}
