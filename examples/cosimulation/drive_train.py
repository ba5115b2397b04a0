"""A drive train as an FMI 2.0 Co-Simulation FMU, written with pythonfmu: a DC motor (armature
resistance R, inductance L, motor constant k, rotor inertia J_m) behind an ideal gearbox (ratio
i = motor speed / load speed), fed by a PI speed controller that follows a ramp to a set speed,
with the supply voltage limited to +-U_max. With the parameter `position_control` the same drive
is a position servo: an angle loop (P, gain Kv, with the commanded speed fed forward) in front of
the speed PI follows a point-to-point move of the load angle and holds its end.

    pythonfmu build -f drive_train.py -d .        # writes drive_train.fmu

Causality: torque-driven. The FMU takes the load's angular speed `w_load` (and, optionally, its
angular acceleration `a_load` and jerk `j_load`, used to extrapolate the speed inside a step:
pythonfmu's FMUs cannot interpolate their inputs, so the derivatives come as inputs of their own;
under position control also its angle `phi_load`, extrapolated alike) and returns the torque on
the load, `tau_load = i*k*current`. The motor's rotor inertia is NOT integrated here: it is
reflected through the gear (J_m*i^2, the calculated parameter `J_reflected`) and lumped into the
mechanism (`J_drive` of crank.m3d), so that the drive is a pure torque source whose output depends
on its state (the current) only: no algebraic loop, and the mechanism integrates one inertia.
`drive_train_motion.py` is the motion-driven variant of the same drive.

Equations (load side angle phi and speed w, motor speed i*w):

    w_ref = w_set * min(t / t_ramp, 1)                speed profile (speed control), or
    w_ref = dphi_ref/dt + Kv*(phi_ref - phi)          angle loop (position control), with
    phi_ref = phi_begin + (phi_end - phi_begin)*s(r), r = clamp((t - t_begin)/t_move, 0, 1),
    s(r) = 10 r^3 - 15 r^4 + 6 r^5                    (rest to rest, zero speed and acceleration
                                                       at both ends; held before and after)
    e = w_ref - w;  u_c = Kp*e + Ki*x;  u = clamp(u_c, -U_max, U_max)
    dx/dt = e + (u - u_c)/Kp                          PI integrator with back-calculation
    L di/dt = u - R*i - k*i_gear*w                    armature
    tau_load = i_gear*k*i

Under position control the speed integrator integrates w_ref - w = d(phi_ref - phi)/dt +
Kv*(phi_ref - phi) at rest: it holds a constant load torque (gravity) with zero angle error, and
the drive needs no model of the load.

The step is integrated with the classical Runge-Kutta method on sub-steps of at most
`max_substep`. Energy bookkeeping: `E_el` = integral of u*i (electrical energy in), `E_loss` =
integral of R*i^2 (resistive losses), `E_mag` = L*i^2/2 (magnetic energy stored).

Units (pythonfmu writes none): SI, given in each description.
"""

import math
from xml.etree.ElementTree import SubElement

from pythonfmu import Boolean, Fmi2Causality, Fmi2Slave, Fmi2Variability, Real
from pythonfmu.default_experiment import DefaultExperiment

#: Parameters: name, default, description. The defaults are those of the crank example.
PARAMETERS = [
    ("R", 0.5, "armature resistance [Ohm]"),
    ("L", 0.5e-3, "armature inductance [H]"),
    ("k", 0.05, "motor constant [N.m/A = V.s/rad]"),
    ("J_m", 2e-5, "rotor inertia of the motor [kg.m2]"),
    ("ratio", 10.0, "gear ratio: motor speed / load speed [1]"),
    ("U_max", 8.0, "supply voltage limit [V]"),
    ("Kp", 2.0, "proportional gain of the speed controller, on the load speed [V.s/rad]"),
    ("Ki", 20.0, "integral gain of the speed controller [V/rad]"),
    ("w_set", 4 * math.pi, "set speed of the load [rad/s]"),
    ("t_ramp", 0.2, "duration of the ramp from 0 to the set speed [s]"),
    ("max_substep", 1e-4, "largest internal Runge-Kutta step [s]"),
    ("Kv", 20.0, "position control: gain of the angle loop, speed per angle error [1/s]"),
    ("phi_begin", 0.0, "position control: commanded angle of the load before the move [rad]"),
    ("phi_end", 0.0, "position control: commanded angle of the load after the move [rad]"),
    ("t_begin", 0.0, "position control: start time of the move [s]"),
    ("t_move", 1.0, "position control: duration of the move [s]"),
]


class DriveTrain(Fmi2Slave):
    """DC motor, ideal gear, PI speed controller: torque out, load speed in."""

    author = "fmu3d examples"
    description = "DC motor with ideal gearbox and PI speed controller (torque-driven coupling)"
    default_experiment = DefaultExperiment(start_time=0.0, stop_time=2.0, step_size=1e-3)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.modelName = "drive_train"
        for name, value, text in PARAMETERS:
            setattr(self, name, value)
            self.register_variable(
                Real(name, causality=Fmi2Causality.parameter,
                     variability=Fmi2Variability.fixed, description=text)
            )
        self.position_control = False
        self.register_variable(
            Boolean("position_control", causality=Fmi2Causality.parameter,
                    variability=Fmi2Variability.fixed,
                    description="false: follow the speed ramp to w_set; true: follow the move of "
                    "the load angle from phi_begin to phi_end (input phi_load)")
        )
        self.register_variable(
            Real("J_reflected", causality=Fmi2Causality.calculatedParameter,
                 variability=Fmi2Variability.fixed,
                 description="motor inertia seen from the load, J_m*ratio^2 [kg.m2]",
                 getter=lambda: self.J_m * self.ratio**2)
        )
        # Continuous state: armature current, controller integrator, energy integrals.
        self.current = 0.0
        self.x = 0.0
        self.E_el = 0.0
        self.E_loss = 0.0
        self.time = 0.0
        self.register_ports()
        outputs = [
            ("current", "armature current [A]", None),
            ("voltage", "armature voltage after the supply limit [V]", lambda: self.voltage()),
            ("w_ref", "speed reference of the load [rad/s]",
             lambda: self.speed_reference(self.time, self.load_angle(0.0))),
            ("phi_ref", "position control: commanded angle of the load [rad]",
             lambda: self.angle_reference(self.time)[0]),
            ("P_el", "electrical power in, voltage*current [W]",
             lambda: self.voltage() * self.current),
            ("E_el", "electrical energy in since the start [J]", None),
            ("E_loss", "energy lost in the armature resistance since the start [J]", None),
            ("E_mag", "magnetic energy stored in the inductance, L*current^2/2 [J]",
             lambda: 0.5 * self.L * self.current**2),
        ]
        for name, text, getter in outputs:
            self.register_variable(
                Real(name, causality=Fmi2Causality.output, description=text, getter=getter)
            )

    def to_xml(self, model_options=dict()):
        # pythonfmu 0.7 writes ModelStructure/Outputs only; FMI 2.0 also requires the outputs
        # and calculated parameters whose start values are computed in initialization mode to
        # be listed as InitialUnknowns (without `dependencies`: they may depend on everything).
        root = super().to_xml(model_options)
        structure = root.find("ModelStructure")
        unknowns = SubElement(structure, "InitialUnknowns")
        for index, variable in enumerate(self.vars.values(), start=1):
            if variable.causality in (Fmi2Causality.output, Fmi2Causality.calculatedParameter):
                SubElement(unknowns, "Unknown", attrib=dict(index=str(index)))
        return root

    # --- the ports of this causality (overridden by the motion-driven variant) -------------

    def register_ports(self):
        self.phi_load = 0.0
        self.w_load = 0.0
        self.a_load = 0.0
        self.register_variable(
            Real("phi_load", causality=Fmi2Causality.input, start=0.0,
                 description="angle of the load (the mechanism's joint), read under position "
                 "control only [rad]")
        )
        self.register_variable(
            Real("w_load", causality=Fmi2Causality.input, start=0.0,
                 description="angular speed of the load (the mechanism's joint) [rad/s]")
        )
        self.register_variable(
            Real("a_load", causality=Fmi2Causality.input, start=0.0,
                 description="angular acceleration of the load, extrapolates w_load inside "
                 "the step; leave unconnected (0) to hold w_load [rad/s2]")
        )
        self.j_load = 0.0
        self.register_variable(
            Real("j_load", causality=Fmi2Causality.input, start=0.0,
                 description="angular jerk of the load, d(a_load)/dt: extrapolates w_load to "
                 "the second order; leave unconnected (0) for a linear extrapolation [rad/s3]")
        )
        self.register_variable(
            Real("tau_load", causality=Fmi2Causality.output,
                 description="torque of the gear on the load, ratio*k*current [N.m]",
                 getter=lambda: self.ratio * self.k * self.current)
        )
        self.register_variable(
            Real("dtau_load", causality=Fmi2Causality.output,
                 description="time derivative of tau_load, for a master that interpolates "
                 "its inputs [N.m/s]",
                 getter=lambda: self.ratio * self.k * self.di_dt(
                 self.time, self.current, self.x, self.w_load, self.phi_load)[0])
        )

    def state(self):
        return [self.current, self.x, self.E_el, self.E_loss]

    def set_state(self, y):
        self.current, self.x, self.E_el, self.E_loss = y

    def load_speed(self, s, y=None):
        """Load speed s seconds into the step: the input, extrapolated with a_load and j_load."""
        return self.w_load + self.a_load * s + 0.5 * self.j_load * s * s

    def load_angle(self, s, y=None):
        """Load angle s seconds into the step: the input, extrapolated with w_load, a_load and
        j_load (the integral of load_speed)."""
        return self.phi_load + (self.w_load + (self.a_load / 2 + self.j_load * s / 6) * s) * s

    def derivatives(self, s, y):
        t = self.time + s
        current, x = y[0], y[1]
        di, dx, u = self.di_dt(t, current, x, self.load_speed(s, y), self.load_angle(s, y))
        return [di, dx, u * current, self.R * current**2]

    # --- the drive's equations -----------------------------------------------------------

    def speed_profile(self, t):
        return self.w_set * min(t / self.t_ramp, 1.0) if self.t_ramp > 0 else self.w_set

    def angle_reference(self, t):
        """Commanded angle and its rate: the rest-to-rest move from phi_begin to phi_end."""
        if self.t_move <= 0:
            return (self.phi_end if t >= self.t_begin else self.phi_begin), 0.0
        r = min(max((t - self.t_begin) / self.t_move, 0.0), 1.0)
        distance = self.phi_end - self.phi_begin
        shape = r**3 * (10 - 15 * r + 6 * r**2)
        rate = 30 * r**2 * (1 - r) ** 2 / self.t_move
        return self.phi_begin + distance * shape, distance * rate

    def speed_reference(self, t, phi):
        """The speed the PI controller follows, at time t and load angle phi."""
        if not self.position_control:
            return self.speed_profile(t)
        phi_ref, w_feedforward = self.angle_reference(t)
        return w_feedforward + self.Kv * (phi_ref - phi)

    def controller(self, t, w, phi, x=None):
        """Voltage after the limit and before it, and the speed reference, at time t, load
        speed w and load angle phi."""
        x = self.x if x is None else x
        w_ref = self.speed_reference(t, phi)
        u_c = self.Kp * (w_ref - w) + self.Ki * x
        return min(max(u_c, -self.U_max), self.U_max), u_c, w_ref

    def voltage(self):
        return self.controller(self.time, self.load_speed(0.0), self.load_angle(0.0))[0]

    def di_dt(self, t, current, x, w, phi):
        """d(current)/dt, d(integrator)/dt and the voltage."""
        u, u_c, w_ref = self.controller(t, w, phi, x)
        di = (u - self.R * current - self.k * self.ratio * w) / self.L
        dx = w_ref - w + (u - u_c) / self.Kp
        return di, dx, u

    # --- FMI ---------------------------------------------------------------------------

    def setup_experiment(self, start_time, stop_time, tolerance):
        self.time = start_time

    def do_step(self, current_time, step_size):
        self.time = current_time
        self.before_step()
        n = max(1, math.ceil(step_size / self.max_substep - 1e-9))
        dt = step_size / n
        y = self.state()
        for j in range(n):
            s = j * dt
            k1 = self.derivatives(s, y)
            k2 = self.derivatives(s + dt / 2, [a + dt / 2 * b for a, b in zip(y, k1)])
            k3 = self.derivatives(s + dt / 2, [a + dt / 2 * b for a, b in zip(y, k2)])
            k4 = self.derivatives(s + dt, [a + dt * b for a, b in zip(y, k3)])
            y = [a + dt / 6 * (b1 + 2 * b2 + 2 * b3 + b4)
                 for a, b1, b2, b3, b4 in zip(y, k1, k2, k3, k4)]
        self.set_state(y)
        self.time = current_time + step_size
        self.after_step(step_size)
        return True

    def before_step(self):
        pass

    def after_step(self, step_size):
        # The input angle, speed and acceleration are held (or extrapolated) up to the next
        # communication point, where the master sets them anew; until then, outputs use the
        # extrapolated values. The angle first: it extrapolates from the values at the start.
        self.phi_load = self.load_angle(step_size)
        self.w_load = self.load_speed(step_size)
        self.a_load += self.j_load * step_size
