"""The physics of every model, run in fmpy, against expectations that owe nothing to fmu3d: closed
forms (a free fall, the large-amplitude period of a pendulum, the position analysis of a four-bar
and of a slider-crank, a ball that slides and then rolls, a uniform rotation), conservation laws
(energy, angular momentum), energy balances whose dissipation (dampers, resistors) is integrated
here from the outputs, and symmetries the model files state. Masses come from the model files and
the material densities of docs/model-format.md, written here again.

Per model:

- `test_model_keeps_its_property`: its property on the default experiment;
- `test_parameter_set_through_fmpy_reaches_the_physics`: the same property with a parameter
  changed through fmpy's start values: it holds with the new value and fails with the declared
  one, so the value reached the physics (not only the variable);
- `test_energy_never_increases` (passive models: no input does work, dampers and restitution
  dissipate): kinetic + potential energy, computed from the outputs, never rises above an earlier
  value by more than the integrator's error.

Each check prints its error and its bound; the bounds are a few times the error measured when
they were set (the figures are in the comments).
"""

import math
import sys
from dataclasses import dataclass

import numpy as np
import pytest
from scipy.integrate import cumulative_simpson

from conftest import EXAMPLES, MODELS, declared_parameters, pendulum_period

sys.path.insert(0, str(EXAMPLES))

from mechanisms import world_to_body  # noqa: E402

G = 9.81  # the models' gravity [m/s2]
#: Densities of the shipped solid materials [kg/m3] (docs/model-format.md, "Solid materials").
STEEL, ALUMINIUM, BILLIARD_BALL = 7850.0, 2700.0, 1768.0
#: The shipped ball-table pair of the billiard models (cor 0, mu_k 0.6, mu_r 0.02).
BALL_TABLE = dict(mu_k=0.6, mu_r=0.02)


@dataclass
class Check:
    what: str
    error: float
    bound: float

    def __str__(self):
        return f"{self.what}: {self.error:.3e} (bound {self.bound:.1e})"

    @property
    def holds(self):
        return self.error <= self.bound


def worst(values):
    return float(np.max(np.abs(values)))


# --- Quantities from the outputs --------------------------------------------------------------

def vector(result, obj, quantity="r", n=3):
    """The output vector `obj.quantity[1..n]` over time, shape (n, samples)."""
    return np.array([result[f"{obj}.{quantity}[{k}]"] for k in range(1, n + 1)])


def to_world(result, obj, local):
    """A vector fixed in the frame `obj` (its coordinates `local`), in world coordinates."""
    return np.einsum("jin,j->in", world_to_body(vector(result, obj, "Q", 4)), np.asarray(local))


def rigid_body_energy(result, obj, mass, moments, g=G):
    """Kinetic + potential energy of a body whose center of mass is the origin of the output
    frame `obj`, with principal moments `moments` along the frame's axes."""
    v, w = vector(result, obj, "v"), vector(result, obj, "w")
    w_body = np.einsum("ijn,jn->in", world_to_body(vector(result, obj, "Q", 4)), w)
    rotation = sum(moment * w_body[k] ** 2 for k, moment in enumerate(moments))
    return 0.5 * mass * np.sum(v * v, axis=0) + 0.5 * rotation + mass * g * vector(result, obj)[1]


def sphere(density, radius):
    """Mass and principal moments of a solid sphere."""
    mass = density * 4 / 3 * math.pi * radius**3
    return mass, [0.4 * mass * radius**2] * 3


def integral(values, t):
    """The running integral of sampled values (Simpson's rule)."""
    return cumulative_simpson(values, x=t, initial=0.0)


def planar(angle):
    """Unit vectors along an angle about z, and their normals, shape (2, samples) each."""
    return np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle), np.cos(angle)])


def pendulum_energy(result, mass, center, inertia):
    """A body on the revolute joint `rev` about z, its center of mass `center` along its x axis
    (horizontal at phi = 0), the moment `inertia` about its center of mass."""
    phi, w = result["rev.phi"], result["rev.w"]
    return 0.5 * (inertia + mass * center**2) * w**2 + mass * G * center * np.sin(phi)


def ball_on_table(t, v0, mu_k, mu_r, spin0=0.0, g=G):
    """A ball on a table, at t = 0 moving along +x at v0 with the spin w_z*r = spin0 (forward
    spin is negative; rolling is spin0 = -v0). While its contact point slips, the friction
    mu_k*m*g against the slip changes the speed by mu_k*g per second and w_z*r by 5/2 of that
    (a solid sphere: m r^2 / I = 5/2), and the rolling resistance torque mu_r*r*m*g slows the
    forward spin; once the contact point is at rest the ball rolls, slowed by 5/7 mu_r g
    ([NO19b] Figs. 6-7, the contact law of docs/model-format.md). Returns (distance, speed,
    w_z*r) at the times t."""
    slip = np.sign(v0 + spin0)
    dv = -slip * mu_k * g
    dspin = -slip * 2.5 * mu_k * g + 2.5 * mu_r * g
    slide_end = -(v0 + spin0) / (dv + dspin)
    rolling = 5 / 7 * mu_r * g
    ts, tr = np.minimum(t, slide_end), np.maximum(t - slide_end, 0.0)
    v_end = v0 + dv * slide_end
    x = v0 * ts + 0.5 * dv * ts**2 + v_end * tr - 0.5 * rolling * tr**2
    v = np.where(t < slide_end, v0 + dv * t, v_end - rolling * tr)
    spin = np.where(t < slide_end, spin0 + dspin * t, -v)
    return x, v, spin


# --- Energies of the passive models -----------------------------------------------------------

def chain_angles(result, p):
    """Absolute angles and angular speeds of the chain's links."""
    n = int(p["N"])
    phi = np.cumsum([result[f"rev[{i}].phi"] for i in range(1, n + 1)], axis=0)
    w = np.cumsum([result[f"rev[{i}].w"] for i in range(1, n + 1)], axis=0)
    return phi, w


def chain_energy(result, p):
    """Links of length L and mass m, each a rod about its middle (m*L^2/12), one below the other."""
    phi, w = chain_angles(result, p)
    L, m = p["L"], p["m"]
    joint, joint_v = np.zeros((2, len(result))), np.zeros((2, len(result)))
    energy = 0.0
    for angle, speed in zip(phi, w):
        e, n = planar(angle)
        center_v = joint_v + L / 2 * speed * n
        energy = energy + 0.5 * m * np.sum(center_v**2, axis=0) + 0.5 * m * L**2 / 12 * speed**2 \
            + m * G * (joint[1] + L / 2 * e[1])
        joint, joint_v = joint + L * e, joint_v + L * speed * n
    return energy


def cradle_energy(result, p):
    """Five steel balls of radius R, their centers L below their pivots."""
    mass, (moment, _, _) = sphere(STEEL, p["R"])
    return sum(0.5 * (moment + mass * p["L"] ** 2) * result[f"swing[{i}].w"] ** 2
               - mass * G * p["L"] * np.cos(result[f"swing[{i}].phi"]) for i in range(1, 6))


def spring_hook(result, p):
    """The spring's length and its rate: anchor at [0, 1, 0], hook on the body at [a/4, a/2, 0]."""
    arm = to_world(result, "body", [p["a"] / 4, p["a"] / 2, 0.0])
    hook = vector(result, "body") + arm
    hook_v = vector(result, "body", "v") + np.cross(vector(result, "body", "w"), arm, axis=0)
    spring = hook - np.array([[0.0], [1.0], [0.0]])
    length = np.linalg.norm(spring, axis=0)
    return length, np.sum(spring * hook_v, axis=0) / length


def spring_body_energy(result, p):
    mass = STEEL * p["a"] ** 3
    length, _ = spring_hook(result, p)
    return rigid_body_energy(result, "body", mass, [mass * p["a"] ** 2 / 6] * 3) \
        + 0.5 * p["c"] * (length - p["L0"]) ** 2


def balls_energy(*balls, density=BILLIARD_BALL, radius):
    def energy(result, p):
        mass, moments = sphere(density, radius(p))
        return sum(rigid_body_energy(result, ball, mass, moments) for ball in balls)
    return energy


BILLIARD_BALLS = ["cue"] + [f"ball[{n}]" for n in range(1, 16)]


def box_energy(result, p):
    mass = ALUMINIUM * p["edge"] ** 3
    return rigid_body_energy(result, "box", mass, [mass * p["edge"] ** 2 / 6] * 3)


#: The crank pin of each cylinder of engine.m3d: at +r (1 and 4) or -r (2 and 3) on the crankshaft.
CYLINDER_SIDES = {1: 1.0, 2: -1.0, 3: -1.0, 4: 1.0}


def engine_energy(result, p):
    """Crankshaft (0.002 kg.m2 about its axis, its center of mass on the axis), per cylinder a
    piston (0.6 kg, moving along x at y = 0) and a rod (0.4 kg, 1e-3 kg.m2 about its center of
    mass, l/2 from the crank pin), the pins at +-r on the crankshaft."""
    theta, w = result["crank.phi"], result["crank.w"]
    energy = 0.5 * 0.002 * w**2
    for k, side in CYLINDER_SIDES.items():
        e, n = planar(theta)
        pin, pin_v = side * p["r"] * e, side * p["r"] * w * n
        rod_angle, rod_w = theta + result[f"cyl{k}.rod_rev.phi"], w + result[f"cyl{k}.rod_rev.w"]
        rod_e, rod_n = planar(rod_angle)
        center = pin + p["l"] / 2 * rod_e
        center_v = pin_v + p["l"] / 2 * rod_w * rod_n
        energy = energy + 0.5 * 0.6 * result[f"cyl{k}.slide.v"] ** 2 \
            + 0.5 * 0.4 * np.sum(center_v**2, axis=0) + 0.5 * 1e-3 * rod_w**2 + 0.4 * G * center[1]
    return energy


def slider_crank_energy(result, p):
    return (rigid_body_energy(result, "crank_cm", p["m1"], [p["J1"]] * 3)
            + rigid_body_energy(result, "rod_cm", p["m2"], [p["J2"]] * 3)
            + rigid_body_energy(result, "piston", p["m3"], [0.001] * 3))


def fourbar_prismatic_energy(result, p):
    bodies = [("b1_cm", p["m1"], p["J1"]), ("b3_cm", p["m3"], p["J3"]), ("b2", p["ms"], p["Js"]),
              ("b2_cm", p["m2"], p["J2"])] + [(f"cross{k}", p["m0"], p["J0"]) for k in (1, 2, 3)]
    return sum(rigid_body_energy(result, obj, m, [J] * 3) for obj, m, J in bodies)


def clock_energy(result, p):
    """The hand (20 g, its center of mass L/2 from the pivot, 1e-5 kg.m2 about it) turning about
    the dial's normal; no gravity."""
    return 0.5 * (1e-5 + 0.02 * (p["L"] / 2) ** 2) * result["spin.w"] ** 2


def gearbox_energy(result, p):
    """Rotor (1e-5 kg.m2), aluminium pulley (60 mm x 20 mm) and its 5 g balance mark on the rim,
    turning about the vertical: no height changes."""
    pulley = ALUMINIUM * math.pi * 0.03**2 * 0.02
    inertia = 1e-5 + 0.5 * pulley * 0.03**2 + 5e-3 * 0.03**2
    return 0.5 * inertia * result["motor.spin.w"] ** 2


#: Kinetic + potential (+ spring) energy of every passive model, from its outputs and parameters.
ENERGY = {
    "pendulum": lambda r, p: pendulum_energy(r, p["m"], 0.5, 0.001),
    "late_start": lambda r, p: pendulum_energy(r, p["m"], 0.4, 0.002),
    # Its inputs left at zero: no torque on the pendulum, the slider held still.
    "drives": lambda r, p: pendulum_energy(r, p["m"], p["L"], 0.001)
    + 0.5 * p["ms"] * r["slider.v[1]"] ** 2,
    "double_pendulum": lambda r, p: rigid_body_energy(r, "bob1", p["m1"], [1e-6] * 3)
    + rigid_body_energy(r, "bob2", p["m2"], [1e-6] * 3),
    "chain": chain_energy,
    "newtons_cradle": cradle_energy,
    "tumbling_body": lambda r, p: rigid_body_energy(r, "body", 1.0, [1.0, 2.0, 3.0], g=0.0),
    "spring_body": spring_body_energy,
    "bouncing_ball": balls_energy("ball", density=STEEL, radius=lambda p: p["diameter"] / 2),
    "bouncing_box": box_energy,
    "rolling_ball": balls_energy("ball", radius=lambda p: p["r"]),
    "two_balls": balls_energy("striker", "target", radius=lambda p: p["r"]),
    "billiard16": balls_energy(*BILLIARD_BALLS, radius=lambda p: p["r"]),
    "engine": engine_energy,
    "slider_crank": slider_crank_energy,
    "fourbar_prismatic": fourbar_prismatic_energy,
    "clock": clock_energy,
    "gearbox_mount": gearbox_energy,
}


# --- The property of each model ---------------------------------------------------------------
# Each returns its checks for a result and the parameter values it ran with. The bounds are a
# few times the larger error of the two runs (declared and changed parameter), measured when they
# were set: "measured A / B" in the comments.

#: Kinematics the engine computes in closed form (a frame on a rigid body, a joint's motion
#: expression, a uniform rotation): agreement to round-off.
ROUND_OFF = 1e-12


def energy_conserved(name, bound):
    """Undamped, no input: the energy stays at its start value."""
    def checks(result, p):
        energy = ENERGY[name](result, p)
        return [Check("max |E - E(start)| [J]", worst(energy - energy[0]), bound)]
    return checks


def damped_pendulum(center, inertia, bound):
    """The energy the joint's damper took, the integral of d*w^2, is the energy the body lost."""
    def checks(result, p):
        energy = pendulum_energy(result, p["m"], center, inertia)
        lost = integral(p["d"] * result["rev.w"] ** 2, result["time"])
        return [Check("max |E(start) - E - integral of d w^2| [J]",
                      worst(energy[0] - energy - lost), bound)]
    return checks


def boom_barrier(result, p):
    """The boom let go at phi0 falls freely (energy 1/2 J w^2 + m g (L/2) sin(phi) kept, J = m L^2/3)
    until it reaches its end stop at 0, and comes to rest pressing it by the deflection of
    statics, c delta = m g (L/2) cos(delta)."""
    weight = p["m"] * G * p["L"] / 2
    delta = weight / p["c"]
    for _ in range(5):
        delta = weight * math.cos(delta) / p["c"]
    phi, w = result["hinge.phi"], result["hinge.w"]
    free = np.arange(len(phi)) < np.argmax(phi <= 0)
    energy = 0.5 * p["m"] * p["L"] ** 2 / 3 * w[free] ** 2 + weight * np.sin(phi[free])
    # measured 7.7e-5 / 7.7e-5 J (of 38.6 J, at the tolerance 1e-6) and 5.3e-11 / 6.0e-11 rad
    return [Check("falling: max |E - E(start)| [J]", worst(energy - energy[0]), 2e-4),
            Check(f"rest angle {phi[-1]:.9f} rad against -delta = {-delta:.9f}",
                  abs(phi[-1] + delta), 2e-10)]


def released_pendulum(result, p):
    """drives.m3d with its inputs at zero: the pendulum, released horizontally, swings through
    90 degrees to either side of the lowest point, with the period of that amplitude; after one
    period it is back at the start, at rest."""
    period = pendulum_period(0.001 + p["m"] * p["L"] ** 2, p["m"], p["L"], math.pi / 2)
    t, w = result["time"], result["rev.w"]
    back = np.flatnonzero((w[:-1] > 0) & (w[1:] <= 0))[0]
    measured = t[back] + w[back] * (t[back + 1] - t[back]) / (w[back] - w[back + 1])
    return [Check(f"period {measured:.9f} s against {period:.9f} s, relative error",
                  abs(measured / period - 1), 1e-7)]  # measured 1.6e-8 / 1.5e-8


def double_pendulum(result, p):
    e1, _ = planar(result["rev1.phi"])
    e2, _ = planar(result["rev1.phi"] + result["rev2.phi"])
    bob2 = p["L1"] * e1 + p["L2"] * e2
    # The chaotic swing from 90 degrees at tolerance 1e-6: measured 6.2e-4 / 1.9e-3 J of 18.6 J.
    return energy_conserved("double_pendulum", 5e-3)(result, p) + [
        Check("bob2 off L1 e(phi1) + L2 e(phi1 + phi2) [m]",
              worst(vector(result, "bob2")[:2] - bob2), ROUND_OFF)]


def chain(result, p):
    """The output frame link[N] sits at the tip of link N-1: the links' lengths along the
    absolute angles of the joints, added up."""
    phi, _ = chain_angles(result, p)
    tip = p["L"] * sum(planar(angle)[0] for angle in phi[:-1])
    n = int(p["N"])
    return energy_conserved("chain", 2e-3)(result, p) + [  # measured 2.7e-4 / 4.2e-4 J
        Check(f"link[{n}] off the tip of link {n - 1} [m]",
              worst(vector(result, f"link[{n}]")[:2] - tip), ROUND_OFF)]


def newtons_cradle(result, p):
    """Elastic, binary impacts pass the first ball's swing on to the last one: the last ball
    swings out to the release angle, the three in the middle stay nearly at rest."""
    theta0 = p["theta0"]
    middle = max(worst(result[f"swing[{i}].phi"]) for i in (2, 3, 4))
    return energy_conserved("newtons_cradle", 2e-7)(result, p) + [  # measured 3.1e-8 / 1.2e-8 J
        Check("the last ball's swing against the release angle, relative",
              abs(np.max(result["swing[5].phi"]) / theta0 - 1), 2e-4),  # measured 1.7e-5 / 3.6e-5
        Check("the middle balls' largest swing, relative to the release angle",
              middle / theta0, 0.03)]  # measured 8.4e-3 / 1.2e-2


def tumbling_body(result, p):
    """No gravity, no contact: the angular momentum R I R^T w stays that of the start, I diag(1,
    2, 3) times [eps, w0, 0] (the body's axes are the world's at the start), and so does the
    momentum, zero."""
    body = world_to_body(vector(result, "body", "Q", 4))
    w_body = np.einsum("ijn,jn->in", body, vector(result, "body", "w"))
    momentum = np.einsum("jin,jn->in", body, np.array([[1.0], [2.0], [3.0]]) * w_body)
    expected = np.array([[p["eps"]], [2 * p["w0"]], [0.0]])
    return [Check("max |L - I w(start)| [kg.m2/s]", worst(momentum - expected),
                  2e-5),  # measured 4.1e-6 / 1.9e-6
            Check("max |v| [m/s]", worst(vector(result, "body", "v")), ROUND_OFF)]


def spring_body(result, p):
    """The energy the spring-damper's damper took, the integral of d*(dl/dt)^2, is the energy
    the body and the spring lost."""
    energy = spring_body_energy(result, p)
    _, rate = spring_hook(result, p)
    lost = integral(p["d"] * rate**2, result["time"])
    return [Check("max |E(start) - E - integral of d (dl/dt)^2| [J]",
                  worst(energy[0] - energy - lost), 1e-5)]  # measured 1.4e-6 / 3.6e-6


def bouncing_ball(result, p):
    """Free fall y = height - g t^2/2 until the first touch at sqrt(2 (height - r)/g); each
    rebound rises to cor^2 = 0.49 of the height before (steel on dry wood: cor 0.7), its apex
    taken from any point of the flight (y - r + v^2/(2 g)); the contact output's distance is
    the sphere's, y - r."""
    t, y, vy = result["time"], result["ball.r[2]"], result["ball.v[2]"]
    r = p["diameter"] / 2
    falling = t < math.sqrt(2 * (p["height"] - r) / G)
    # A flight ends where the ball touches or where its upward speed grew (a touch between two
    # samples: gravity alone only lowers it).
    apart = np.flatnonzero(y > r)
    ends = (np.diff(apart) > 1) | (np.diff(vy[apart]) > 0)
    flights = np.split(apart, np.flatnonzero(ends) + 1)[:4]
    apex = [np.median(y[f] - r + vy[f] ** 2 / (2 * G)) for f in flights]
    ratios = np.array(apex[1:]) / np.array(apex[:-1])
    return [
        Check("free fall: max |y - (height - g t^2/2)| [m]",
              worst(y[falling] - (p["height"] - G * t[falling] ** 2 / 2)),
              1e-10),  # measured 5.5e-12 / 5.5e-12
        # Gravity acts during the contact too, and takes a little of the rebound (more at lower
        # speeds): measured 1.1e-3 / 7.4e-4.
        Check(f"rebound heights over the one before {np.round(ratios, 4)} against 0.49",
              worst(ratios - 0.49), 5e-3),
        Check("max |impact.distance - (y - r)| [m]", worst(result["impact.distance"] - (y - r)),
              ROUND_OFF)]


def bouncing_box(result, p):
    """At the end the cube rests on a face: its center edge/2 above the floor (less the
    contacts' static penetration), a body axis vertical, no motion left."""
    up = world_to_body(vector(result, "box", "Q", 4)[:, -1]) @ np.array([0.0, 1.0, 0.0])
    return [Check("rest height - edge/2 [m]", abs(result["box.r[2]"][-1] - p["edge"] / 2),
                  5e-5),  # measured 5.8e-6 / 1.3e-5
            # At rest on four equal contacts: flat and still to round-off (measured 0 and 1e-13
            # m/s); a box still rocking is far above 1e-9.
            Check("1 - |cos| of the body axis nearest the vertical", 1 - np.max(np.abs(up)), 1e-9),
            Check("speed at the end [m/s]", np.linalg.norm(vector(result, "box", "v")[:, -1]),
                  1e-9)]


def parts_drop(result, p):
    """At the end both CAD parts rest on a face (models/meshes/parts.py gives their geometry):
    the bracket's lowest corners on the table, at least three of them (a face, not an edge),
    the nut's centre half its thickness (6.5 mm in the file) or half its width across flats (13
    mm) above it, at the nut's scale; no motion left."""
    up = world_to_body(vector(result, "bracket", "Q", 4)[:, -1])[:, 1]
    mm = 1e-3
    corners = np.array([[x, y, z] for lo, hi in (((0, 0, -20), (60, 5, 20)), ((0, 5, -20), (5, 60, 20)))
                        for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]) * mm
    heights = result["bracket.r[2]"][-1] + corners @ up
    lowest = np.min(heights)
    on_table = int(np.sum(heights < lowest + 1e-4))
    nut = result["nut.r[2]"][-1]
    speed = max(np.linalg.norm(vector(result, body, "v")[:, -1]) for body in ("bracket", "nut"))
    return [Check("bracket's lowest corner above the table [m]", abs(lowest), 5e-5),  # measured 2e-6
            Check("bracket corners on the table, fewer than 3 counts 1", float(on_table < 3), 0.5),
            Check("nut centre - half its thickness or width [m]",
                  min(abs(nut - 3.25 * p["nut_scale"]), abs(nut - 6.5 * p["nut_scale"])), 5e-5),
            Check("speed at the end [m/s]", speed, 1e-6)]


def stack(result, p):
    """Ten boxes put exactly on each other stand: each stays over the one below (no sliding,
    no tipping: its centre moves less than 0.1 mm sideways) and sits at (i - 1/2) h, less what the
    corner contacts below it sink under the weight above (a few um per contact)."""
    checks = []
    sideways = max(worst(np.hypot(result[f"box[{i}].r[1]"], result[f"box[{i}].r[3]"]))
                   for i in range(1, int(p["n"]) + 1))
    checks.append(Check("max sideways offset of a box [m]", sideways, 1e-4))
    sinking = max(worst(result[f"box[{i}].r[2]"] - (i - 0.5) * p["h"])
                  for i in range(1, int(p["n"]) + 1))
    checks.append(Check("max |height - (i - 1/2) h| [m]", sinking, 1e-4))
    return checks


def hertz_impact_depth(radius, speed):
    """The deepest penetration of a steel ball of `radius` striking dry wood at `speed` under
    fmu3d's contact law, from the energy balance (1 + chi) k delta^2.5 / 2.5 = m v^2 / 2 with
    Hertz's k = E* 4/3 sqrt(R) ([NO19b] eq. 2 and Table 1's geometry) and the shipped materials
    (steel E = 200 GPa, nu = 0.3, 7 850 kg/m3; dry wood 11 GPa, 0.4; cor 0.7, chi = (1 - cor^2) /
    (1 + cor^2) while approaching)."""
    e_star = 1.0 / ((1 - 0.3 ** 2) / 2.0e11 + (1 - 0.4 ** 2) / 1.1e10)
    k = e_star * 4.0 / 3.0 * math.sqrt(radius)
    mass = 7850.0 * 4.0 / 3.0 * math.pi * radius ** 3
    chi = (1 - 0.7 ** 2) / (1 + 0.7 ** 2)
    return (2.5 * 0.5 * mass * speed ** 2 / ((1 + chi) * k)) ** 0.4


def pour(result, p):
    """Balls released on a grid (lowest row at h0) fall into the walled box and settle: each
    starts where the grid puts it, stays inside the box the whole time (less what a contact
    presses in: at most Hertz's depth for a ball falling from the top row onto the floor, the
    fastest impact the fall allows a single ball), the lowest layer ends on the floor (centres at
    R), and the kinetic energy left at the end is a vanishing part of the potential energy the
    fall released. (The upper balls land on the ones below, an equilibrium that round-off can tip
    later: their resting place is not asserted.)"""
    nx, ny, nz, R, pitch = int(p["nx"]), int(p["ny"]), int(p["nz"]), p["R"], p["p"]
    top_drop = p["h0"] + (ny - 1) * pitch - R
    deepest = hertz_impact_depth(R, math.sqrt(2 * G * top_drop))
    count = nx * ny * nz
    layer = nx * nz
    start = max(abs(result[f"ball[{i}].r[2]"][0] - (p["h0"] + ((i - 1) // layer) * pitch))
                for i in range(1, count + 1))
    inside = max(max(np.max(np.abs(result[f"ball[{i}].r[1]"])) + R - nx * pitch / 2,
                     np.max(np.abs(result[f"ball[{i}].r[3]"])) + R - nz * pitch / 2,
                     np.max(R - result[f"ball[{i}].r[2]"]))
                 for i in range(1, count + 1))
    floor = max(abs(result[f"ball[{i}].r[2]"][-1] - R) for i in range(1, layer + 1))
    # Per unit mass (all balls alike): 1/2 v^2 + 1/5 R^2 w^2 against g times the drop.
    kinetic = sum(0.5 * np.sum(vector(result, f"ball[{i}]", "v")[:, -1] ** 2)
                  + 0.2 * R ** 2 * np.sum(vector(result, f"ball[{i}]", "w")[:, -1] ** 2)
                  for i in range(1, count + 1))
    released = G * sum(result[f"ball[{i}].r[2]"][0] - result[f"ball[{i}].r[2]"][-1]
                       for i in range(1, count + 1))
    return [Check("max |start height - grid height| [m]", start, 1e-12),
            # measured 4.4e-5 (bound 5.6e-5); 1.6e-5 (6.8e-5) at h0 = 8 cm, sampled at 0.1 ms
            Check("max reach into a wall or the floor [m]", inside, deepest),
            Check("max |final height - R| of the lowest layer [m]", floor, 1e-5),  # 6.4e-7
            Check("final kinetic / released potential energy", kinetic / released,
                  1e-4)]  # measured 7e-12, 4e-6 at h0 = 8 cm


def block_on_ramp(result, p):
    """Coulomb's law on the ramp (steel on steel, mu_s 0.5, mu_k 0.4): below the friction angle
    the block stays where it was put (within the elastic offset of its stuck corners, 10 um);
    above it, it slides down the slope with a = g (sin theta - mu_k cos theta) from rest."""
    theta, t = p["theta"], result["time"]
    down = np.array([-np.cos(theta), -np.sin(theta)])
    along = (result["block.r[1]"] - result["block.r[1]"][0]) * down[0] \
        + (result["block.r[2]"] - result["block.r[2]"][0]) * down[1]
    if np.tan(theta) <= 0.5:
        return [Check("max travel along the slope [m]", worst(along), 2e-5)]
    a = G * (np.sin(theta) - 0.4 * np.cos(theta))
    # From rest the sliding law takes a few ms to reach mu_k (below v_small it is viscous),
    # which shifts the parabola a little: compare the acceleration of the later motion, while
    # the block is on the ramp (it leaves it after s0 + 1 m of travel).
    late = (t >= 0.2) & (along < p["s0"] + 0.9)
    fitted = 2 * np.polyfit(t[late], along[late], 2)[0]
    # measured 1.5e-9 at 30° (the model's tolerance is 1e-6; 6e-12 with the difference-quotient
    # Jacobian, whose Newton iterations happened to land closer)
    return [Check("|fitted acceleration / Coulomb's - 1|", abs(fitted / a - 1), 1e-8)]


def ball_on_ramp(result, p):
    """A steel ball on rubber (mu_s 1.0, mu_r 0.01): while tan theta < mu_r the rolling
    resistance holds it where it was put (within the elastic offset of its stuck contact,
    1e-5 m tan theta (1/mu_s + 1/mu_r)); above, it rolls down without slipping at
    a = 5/7 g (sin theta - mu_r cos theta) from rest."""
    theta, t = p["theta"], result["time"]
    down = np.array([-np.cos(theta), -np.sin(theta)])
    along = (result["ball.r[1]"] - result["ball.r[1]"][0]) * down[0] \
        + (result["ball.r[2]"] - result["ball.r[2]"][0]) * down[1]
    if np.tan(theta) <= 0.01:
        # measured 5.3e-6: the elastic offset itself, 1e-5 m tan theta (1/1.0 + 1/0.01)
        return [Check("max travel along the slope [m]", worst(along), 1e-5)]
    a = 5 / 7 * G * (np.sin(theta) - 0.01 * np.cos(theta))
    # Fit the motion once the ball turns faster than w_small (the full rolling resistance
    # acts), while it is on the ramp (it leaves it after s0 + 1 m of travel).
    late = (t >= 0.5) & (along < p["s0"] + 0.9)
    fitted = 2 * np.polyfit(t[late], along[late], 2)[0]
    # measured 8.2e-4: the contact point lies r - delta/2 from the centre (delta = 51 um)
    return [Check("|fitted acceleration / closed form - 1|", abs(fitted / a - 1), 2e-3)]


def gripper(result, p):
    """Without inputs the fingers touch the box but do not squeeze it: no friction holds it, so
    it falls freely, y = -g t^2 / 2, and the fingers stay on their rails at x = -+(a + t)/2."""
    time = result["time"]
    return [Check("max |box y + g t^2/2| [m]", worst(result["box.r[2]"] + 0.5 * G * time**2),
                  1e-6),
            Check("max |finger x -+ (a + t)/2| [m]",
                  max(worst(result["left_finger.r[1]"] + (p["a"] + p["t"]) / 2),
                      worst(result["right_finger.r[1]"] - (p["a"] + p["t"]) / 2)), 1e-9)]


def rolling_ball(result, p):
    """It starts at x = -1.5 m; the friction's regularization below v_small smooths the change
    from sliding to rolling, where the largest differences are."""
    x, v, spin = ball_on_table(result["time"], p["v0"], mu_k=p["mu_k"], mu_r=p["mu_r"])
    return [Check("max |x - closed form| [m]", worst(result["ball.r[1]"] + 1.5 - x),
                  1e-4),  # measured 6.2e-6 / 2.8e-5
            Check("max |v - closed form| [m/s]", worst(result["ball.v[1]"] - v),
                  2e-3),  # measured 2.2e-4 / 5.0e-4
            Check("max |w r - closed form| [m/s]", worst(result["ball.w[3]"] * p["r"] - spin),
                  5e-3)]  # measured 5.8e-4 / 1.3e-3


def impact_time(t_end, v0, distance):
    """When a ball put on the billiard table at v0 without spin has covered the distance, and
    its speed then."""
    t = np.linspace(0.0, t_end, 200_001)
    x, v, _ = ball_on_table(t, v0, **BALL_TABLE)
    hit = float(np.interp(distance, x, t))
    return hit, float(np.interp(hit, t, v))


def two_balls(result, p):
    """The striker slides, then rolls, until it touches the target (centers 2r apart). The
    impact, elastic and frictionless between equal balls, gives the target the striker's speed
    V without spin and leaves the striker its spin alone; from then on both follow the closed
    form of a ball on the table again, from (V, 0) and from (0, -V)."""
    t = result["time"]
    hit, V = impact_time(t[-1], p["v0"], p["gap"] - 2 * p["r"])
    before, after = t < hit, t > hit + 2e-3
    x, v, _ = ball_on_table(t[before], p["v0"], **BALL_TABLE)
    _, target, _ = ball_on_table(t[after] - hit, V, **BALL_TABLE)
    _, striker, _ = ball_on_table(t[after] - hit, 0.0, spin0=-V, **BALL_TABLE)
    # The closed form exchanges the speeds at once; the Hertz contact takes 0.4 ms, during which
    # the table's friction holds both balls back by mu_k g 0.4 ms = 2.4e-3 m/s (measured 2.2e-3
    # / 2.6e-3 m/s after the impact).
    return [
        Check("striker before the impact: max |x - closed form| [m]",
              worst(result["striker.r[1]"][before] + p["gap"] - x), 5e-5),  # 4.4e-6 / 8.3e-6
        Check("striker before the impact: max |v - closed form| [m/s]",
              worst(result["striker.v[1]"][before] - v), 1e-3),  # 9.8e-5 / 1.6e-4
        Check(f"target after the impact (V = {V:.4f} m/s): max |v - closed form| [m/s]",
              worst(result["target.v[1]"][after] - target), 1e-2),
        Check("striker after the impact: max |v - closed form| [m/s]",
              worst(result["striker.v[1]"][after] - striker), 1e-2)]


def billiard16(result, p):
    """The break stays mirror-symmetric about the cue line z = 0: ball n of row k, place j is the
    mirror image of ball n + k - 2j, and the cue ball stays on the line. Until it touches the
    apex ball (at x = L/4 - 2r) the cue ball slides, then rolls, as the closed form says."""
    asymmetry = worst(result["cue.r[3]"])
    for k in range(5):
        for j in range(k + 1):
            ball = k * (k + 1) // 2 + j + 1
            a, b = vector(result, f"ball[{ball}]"), vector(result, f"ball[{ball + k - 2 * j}]")
            asymmetry = max(asymmetry, worst(a[:2] - b[:2]), worst(a[2] + b[2]))
    t = result["time"]
    hit, _ = impact_time(t[-1], p["v_cue"], p["L"] / 2 - 2 * p["r"])
    before = t < hit
    x, v, _ = ball_on_table(t[before], p["v_cue"], **BALL_TABLE)
    # Round-off, amplified by some 200 collisions and the resting balls' 30 stick-slip events,
    # breaks the symmetry: with the exact Jacobian by 1.5e-7 m at the declared 4 m/s, 7.5e-7 m
    # at 3 m/s and 1.2e-7 m at 5 m/s (block LU; with the dense LU 5.0e-8, 1.1e-6 and 1.5e-7 m);
    # with the difference quotients it was 2.8e-7 m at 4 m/s and 1e-9 to 1.4e-7 m at 3 and 5
    # m/s. The residual itself is mirror-exact (tests/tests/billiard16.rs); the LU's pivoting
    # and elimination order are not, and the break's chaos amplifies their last bits. A broken
    # symmetry is millimetres.
    return [Check("largest asymmetry of a mirror pair [m]", asymmetry, 2e-6),
            Check("cue ball before the impact: max |x - closed form| [m]",
                  worst(result["cue.r[1]"][before] + p["L"] / 4 - x), 2e-5),  # 1.1e-6 / 3.8e-6
            Check("cue ball before the impact: max |v - closed form| [m/s]",
                  worst(result["cue.v[1]"][before] - v), 2e-4)]  # 1.4e-5 / 3.9e-5


def piston_position(theta, side, r, l):
    """A piston on the x axis, its rod of length l hinged to a crank pin at side*r along the
    crank angle theta: the position analysis of the slider-crank."""
    return side * r * np.cos(theta) + np.sqrt(l**2 - (r * np.sin(theta)) ** 2)


def engine(result, p):
    closure = max(worst(result[f"cyl{k}.slide.s"]
                        - piston_position(result["crank.phi"], side, p["r"], p["l"]))
                  for k, side in CYLINDER_SIDES.items())
    return energy_conserved("engine", 1e-3)(result, p) + [  # measured 1.1e-4 / 1.7e-4 J
        Check("max |piston - position analysis| over the cylinders [m]", closure,
              1e-7)]  # measured 1.3e-8 / 2.7e-8 (outputs interpolated between steps, tol 1e-6)


def coincident(result, *pairs):
    """The largest distance between frames that a joint puts on one point."""
    return max(worst(vector(result, a) - vector(result, b)) for a, b in pairs)


def slider_crank(result, p):
    s = piston_position(result["crank_rev.phi"], 1.0, p["r"], p["l"])
    joints = max(coincident(result, ("crank_pin", "rod"), ("rod_end", "piston")),
                 worst(vector(result, "piston")[1:]))
    return energy_conserved("slider_crank", 2e-4)(result, p) + [  # measured 2.8e-5 / 2.3e-5 J
        # The outputs are interpolated between the integrator's steps: the loop holds there to
        # the tolerance (1e-8), at the steps to the Newton iteration's (1e-10).
        Check("max |piston - position analysis| [m]", worst(result["slide.s"] - s),
              5e-8),  # measured 9.6e-9 / 2.1e-9
        Check("loop joints apart [m]", joints, 5e-8)]  # measured 9.7e-9 / 2.3e-9


def fourbar(result, p):
    """The crank follows its motion expression; the rocker's pin is where the circles of the
    coupler (about the crank pin) and of the rocker (about its ground pivot) meet, on the
    assembly's branch; the joints of the loop hold their frames together."""
    t = result["time"]
    phi = p["phi1"] + p["w1"] * t + p["A"] * np.sin(2 * math.pi * t / p["T"])
    crank_pin = p["a"] * planar(phi)[0]
    to_pivot = np.array([[p["d"]], [0.0]]) - crank_pin
    distance = np.linalg.norm(to_pivot, axis=0)
    along = (distance**2 + p["b"] ** 2 - p["c"] ** 2) / (2 * distance)
    u = to_pivot / distance
    rocker_pin = crank_pin + along * u + np.sqrt(p["b"] ** 2 - along**2) * np.array([-u[1], u[0]])
    joints = max(worst(vector(result, "bar3.obj1") - np.array([[p["d"]], [0.0], [0.0]])),
                 coincident(result, ("bar1.obj2", "bar2.obj1"), ("bar2.obj2", "bar3.obj2")))
    return [
        Check("max |rev1.phi - motion expression| [rad]", worst(result["rev1.phi"] - phi),
              ROUND_OFF),
        Check("max |rocker pin - position analysis| [m]",
              worst(vector(result, "bar3.obj2")[:2] - rocker_pin), 3e-9),  # 3.6e-10 / 6.2e-10
        # Interpolated between steps: the loop holds to the tolerance (1e-8) there.
        Check("loop joints apart [m]", joints, 5e-9)]  # measured 5.1e-10 / 1.0e-9


def fourbar_prismatic(result, p):
    """The joints of the spatial loop hold their frames together: the spherical triple at the
    crank's tip, the universal pair at the coupler's far end, the slider on its x axis; the crank
    turns about x."""
    joints = max(coincident(result, ("b1_tip", "cross1"), ("cross1", "cross2"), ("cross2", "b3"),
                            ("b3_a", "cross3"), ("b2_b", "cross3")),
                 worst(vector(result, "b2")[1:]))
    tip = vector(result, "b1_tip")
    crank = max(worst(tip[0]), worst(np.hypot(tip[1], tip[2]) - math.sqrt(0.26)))
    return energy_conserved("fourbar_prismatic", 1e-4)(result, p) + [  # 8.4e-6 / 2.0e-5 J
        Check("loop joints apart [m]", joints, 8e-9),  # measured 1.5e-9 / 1.6e-9, interpolated
        Check("crank tip off its circle about x [m]", crank, ROUND_OFF)]


def clock(result, p):
    """No gravity, no damping: the hand turns uniformly at w0, clockwise seen from the viewer
    (+z), from 12 o'clock: its tip at the dial's center [0, 1, 0.005] + L [sin(-w0 t),
    cos(-w0 t), 0]."""
    angle = -p["w0"] * result["time"]
    tip = np.array([p["L"] * np.sin(angle), 1.0 + p["L"] * np.cos(angle), 0.005 + 0 * angle])
    return [Check("max |tip - uniform rotation| [m]", worst(vector(result, "hand_tip") - tip),
                  ROUND_OFF)]


def gearbox_mount(result, p):
    """Where the mates put the parts, from the parts' dimensions: the housing's center L/2 = 60
    mm above the plate's top face (0.5 m + t/2), the pulley's center Ls + width/2 = 50 mm above
    the bearing at the housing's top (L = 120 mm); the spin axis vertical through the plate's
    center, so gravity does not act on the spin: the balance mark, d/2 = 30 mm off the axis,
    turns at w0 about +y."""
    top = 0.5 + p["t"] / 2
    housing = np.array([[0.0], [top + 0.06], [0.0]])
    mark = vector(result, "pulley.balance_mark")
    angle = np.unwrap(np.arctan2(-mark[2], mark[0]))
    t = result["time"]
    return [Check("housing off its mated place [m]",
                  worst(vector(result, "motor.housing") - housing), ROUND_OFF),
            Check("balance mark off its height and radius [m]",
                  max(worst(mark[1] - (top + 0.12 + 0.05)), worst(np.hypot(mark[0], mark[2]) - 0.03)),
                  ROUND_OFF),
            Check("max |mark angle - w0 t| [rad]", worst(angle - angle[0] - p["w0"] * (t - t[0])),
                  ROUND_OFF)]


def electric_drive(bound):
    """The electrical energy in (the integral of motor.P_el) is the mechanical energy gained
    (flywheel J_fw, the eccentric mass m_e at r_e, the rotor J_m geared up by ratio; the
    eccentric mass's height) + the armature's magnetic energy L i^2/2 + the resistive losses
    (the integral of R i^2)."""
    def checks(result, p):
        t, i = result["time"], result["motor.i"]
        inertia = p["J_fw"] + p["m_e"] * p["r_e"] ** 2 + p["J_m"] * p["ratio"] ** 2
        mechanical = 0.5 * inertia * result["crank.w"] ** 2 + p["m_e"] * G * result["weight.r[2]"]
        supplied = integral(result["motor.P_el"], t)
        balance = supplied - (mechanical - mechanical[0]) - 0.5 * p["L"] * i**2 \
            - integral(p["R"] * i**2, t)
        return [Check(f"max |energy balance| [J] ({supplied[-1]:.3f} J supplied)", worst(balance),
                      bound)]
    return checks


def cardan_shaft(result, p):
    """The output shaft of the Cardan joint turns at w2 = w1 cos(beta) / (1 - sin^2(beta)
    sin^2(phi1)), phi1 = w1 t counted from the input yoke normal to the shafts' plane."""
    beta, w1 = p["beta"], p["w1"]
    phi1 = w1 * result["time"]
    w2 = w1 * math.cos(beta) / (1 - (math.sin(beta) * np.sin(phi1)) ** 2)
    return [Check("max |output.w - closed form| [rad/s]", worst(result["output.w"] - w2),
                  1e-6)]  # measured 9e-8 / 7e-8 rad/s


def cylindrical_slide(result, p):
    """With its inputs at zero the sleeve falls along the vertical shaft from its start speed
    and keeps its spin, although its centre of mass is off the axis."""
    t = result["time"]
    return [Check("max |cyl.s - (v0 t - g t^2/2)| [m]",
                  worst(result["cyl.s"] - (p["v0"] * t - G * t**2 / 2)), 1e-9),
            Check("max |cyl.phi - w0 t| [rad]", worst(result["cyl.phi"] - p["w0"] * t),
                  1e-9)]  # both measured at round-off, 1e-14


def planar_slider(result, p):
    """In the plane tilted by alpha: down the slope with g sin(alpha), across it at constant
    speed, the spin kept."""
    t, a = result["time"], G * math.sin(p["alpha"])
    return [Check("max |planar coordinates - closed form|",
                  max(worst(result["slider.s_x"] - (p["v_x0"] * t - a * t**2 / 2)),
                      worst(result["slider.s_y"] - p["v_y0"] * t),
                      worst(result["slider.phi"] - p["w0"] * t)), 1e-9)]  # round-off, 1e-15


PROPERTIES = {
    "cardan_shaft": cardan_shaft,
    "cylindrical_slide": cylindrical_slide,
    "planar_slider": planar_slider,
    "pendulum": damped_pendulum(0.5, 0.001, bound=5e-4),  # measured 1.3e-4 / 5.0e-5 J
    "late_start": damped_pendulum(0.4, 0.002, bound=1e-4),  # measured 1.0e-5 / 2.8e-5 J
    "drives": released_pendulum,
    "boom_barrier": boom_barrier,
    "double_pendulum": double_pendulum,
    "chain": chain,
    "newtons_cradle": newtons_cradle,
    "tumbling_body": tumbling_body,
    "spring_body": spring_body,
    "bouncing_ball": bouncing_ball,
    "bouncing_box": bouncing_box,
    "rolling_ball": rolling_ball,
    "gripper": gripper,
    "ball_on_ramp": ball_on_ramp,
    "stack": stack,
    "parts_drop": parts_drop,
    "pour": pour,
    "block_on_ramp": block_on_ramp,
    "two_balls": two_balls,
    "billiard16": billiard16,
    "engine": engine,
    "slider_crank": slider_crank,
    "fourbar": fourbar,
    "fourbar_prismatic": fourbar_prismatic,
    "clock": clock,
    "gearbox_mount": gearbox_mount,
    "crank_drive": electric_drive(bound=5e-4),  # measured 5.3e-5 / 7.5e-6 J
    "crank_drive_pi": electric_drive(bound=1e-3),  # measured 1.8e-4 / 1.4e-4 J
}

#: Runs other than the default experiment. The spring body's fast spin (11 rad/s) leaves a
#: global error of 1.3e-3 J in the energy at the model's tolerance 1e-6, as much as a damper
#: 1 % off would; at 1e-8 it is 1.4e-6 J.
RUN_OPTIONS = {"spring_body": dict(relative_tolerance=1e-8)}

#: One parameter per model, set through fmpy's start values, that its property depends on.
CHANGED = {
    "cardan_shaft": {"beta": math.radians(20)},
    "cylindrical_slide": {"w0": 3.0},
    "planar_slider": {"alpha": math.radians(30)},
    "pendulum": {"d": 0.3},
    "late_start": {"m": 2.0},
    "drives": {"L": 0.3},
    "boom_barrier": {"c": 1e4},
    "double_pendulum": {"m2": 1.5},
    "chain": {"L": 0.4},
    "newtons_cradle": {"theta0": math.radians(20)},
    "tumbling_body": {"w0": 3.0},
    "spring_body": {"c": 800.0},
    "bouncing_ball": {"height": 2.0},
    "bouncing_box": {"edge": 0.15},
    "rolling_ball": {"mu_k": 0.3},
    "gripper": {"a": 0.12},
    "stack": {"h": 0.06},
    "parts_drop": {"nut_scale": 0.0015},
    "pour": {"h0": 0.08},
    "block_on_ramp": {"theta": math.radians(30)},
    "ball_on_ramp": {"theta": math.radians(3)},
    "two_balls": {"v0": 1.5},
    "billiard16": {"v_cue": 3.0},
    "engine": {"l": 0.2},
    "slider_crank": {"l": 0.35},
    "fourbar": {"A": math.radians(30)},
    "fourbar_prismatic": {"m3": 3.0},
    "clock": {"w0": math.radians(-12)},
    "gearbox_mount": {"t": 0.02},
    "crank_drive": {"R": 1.0},
    "crank_drive_pi": {"J_fw": 0.02},
}


def parameters(name, changed=None):
    """The model's parameter values in SI units, from the model file, with `changed` applied."""
    values = {k: v for k, (v, _) in declared_parameters(name).items() if v is not None}
    return values | (changed or {})


def failures(what, checks):
    """Prints every check; the ones that fail, as text."""
    for check in checks:
        print(f"{what}: {check}")
    return [str(check) for check in checks if not check.holds]


def test_every_model_has_a_property_and_a_parameter_to_change():
    assert sorted(PROPERTIES) == sorted(MODELS)
    assert sorted(CHANGED) == sorted(MODELS)


@pytest.mark.parametrize("name", MODELS)
def test_model_keeps_its_property(simulation, name):
    result = simulation(name, **RUN_OPTIONS.get(name, {}))
    failed = failures(name, PROPERTIES[name](result, parameters(name)))
    assert not failed, f"{name}: " + "; ".join(failed)


@pytest.mark.parametrize("name", MODELS)
def test_parameter_set_through_fmpy_reaches_the_physics(simulation, name):
    changed = CHANGED[name]
    result = simulation(name, start_values=changed, **RUN_OPTIONS.get(name, {}))
    what = f"{name} with {changed}"
    failed = failures(what, PROPERTIES[name](result, parameters(name, changed)))
    assert not failed, f"{what}: " + "; ".join(failed)
    # The same run judged with the declared value fails: the property does see the parameter.
    stale = PROPERTIES[name](result, parameters(name))
    assert not all(check.holds for check in stale), \
        f"{what}: the property holds with the declared value too: " + "; ".join(map(str, stale))


# --- Passive models: the energy never increases -----------------------------------------------
# An impact stores kinetic energy in the contact's elastic deformation, which the energy from
# the outputs does not count: a sample during one shows less energy than the bodies have, so it
# may not serve as the earlier value that later ones are compared with. NO_IMPACT tells the
# samples without an impact under way, from the bodies' positions (resting and rolling contacts
# store a constant amount).

def billiard_apart(result, p):
    r = p["r"]
    positions = [vector(result, ball) for ball in BILLIARD_BALLS]
    apart = np.ones(len(result), dtype=bool)
    for i, a in enumerate(positions):
        apart &= (np.abs(a[0]) < p["L"] / 2 - r) & (np.abs(a[2]) < p["W"] / 2 - r)
        for b in positions[i + 1:]:
            apart &= np.linalg.norm(a - b, axis=0) > 2 * r
    return apart


def box_apart(result, p):
    """The cube's lowest point above the floor: its corner spheres (1 mm, the default smoothing)
    sit at the corners of the core cube, edge/2 - 1 mm from the center along each axis."""
    core = p["edge"] / 2 - 1e-3
    axes_up = world_to_body(vector(result, "box", "Q", 4))[:, 1, :]
    return result["box.r[2]"] - core * np.sum(np.abs(axes_up), axis=0) - 1e-3 > 0


def balls_apart(*pairs, radius):
    def apart(result, p):
        return np.all([np.linalg.norm(vector(result, a) - vector(result, b), axis=0)
                       > 2 * radius(p) for a, b in pairs], axis=0)
    return apart


NO_IMPACT = {
    "bouncing_ball": lambda r, p: r["ball.r[2]"] > p["diameter"] / 2,
    "bouncing_box": box_apart,
    "two_balls": balls_apart(("striker", "target"), radius=lambda p: p["r"]),
    "billiard16": billiard_apart,
    "newtons_cradle": balls_apart(*((f"ball[{i}]", f"ball[{i + 1}]") for i in range(1, 5)),
                                  radius=lambda p: p["R"]),
}

#: The largest rise of the energy above an earlier value allowed [J], about ten times the one
#: measured at the models' tolerances. Where dampers, friction or restitution take energy at
#: every output interval the energy never rose (measured 0, or round-off at rest: 1e-12 J), and
#: 1e-9 J leaves round-off room only.
ENERGY_RISE = {name: 1e-9 for name in ENERGY} | {
    "double_pendulum": 5e-3,  # measured 1.0e-3 J of 18.6 J, chaotic
    "chain": 2e-3,  # measured 2.9e-4 J
    "engine": 3e-4,  # measured 3.2e-5 J
    "fourbar_prismatic": 5e-5,  # measured 8.3e-6 J
    "spring_body": 5e-5,  # measured 6.9e-6 J
    "tumbling_body": 3e-5,  # measured 4.4e-6 J
    "slider_crank": 2e-5,  # measured 2.1e-6 J
    "drives": 5e-6,  # measured 8.0e-7 J
    "newtons_cradle": 2e-9,  # measured 2.9e-10 J
}


@pytest.mark.parametrize("name", ENERGY)
def test_energy_never_increases(simulation, name):
    result, p = simulation(name), parameters(name)
    energy = ENERGY[name](result, p)
    apart = NO_IMPACT.get(name, lambda r, p: np.ones(len(r), dtype=bool))(result, p)
    lowest_before = np.minimum.accumulate(np.where(apart, energy, np.inf))[:-1]
    rise = max(float(np.max(energy[1:] - lowest_before)), 0.0)
    print(f"{name}: largest rise of the energy {rise:.3e} J (allowed {ENERGY_RISE[name]:.1e} J), "
          f"{energy[0]:.6g} J at the start, {energy[-1]:.6g} J at the end")
    assert rise <= ENERGY_RISE[name]
