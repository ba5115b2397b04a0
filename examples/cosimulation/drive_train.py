"""A drive train as an FMI 2.0 Co-Simulation FMU, written with pythonfmu: a DC motor (armature
resistance R, inductance L, motor constant k, rotor inertia J_m) behind an ideal gearbox (ratio
i = motor speed / load speed), fed by a PI speed controller that follows a ramp to a set speed,
with the supply voltage limited to +-U_max.

    pythonfmu build -f drive_train.py -d .        # writes drive_train.fmu

Causality: torque-driven. The FMU takes the load's angular speed `w_load` (and, optionally, its
angular acceleration `a_load` and jerk `j_load`, used to extrapolate the speed inside a step:
pythonfmu's FMUs cannot interpolate their inputs, so the derivatives come as inputs of their own)
and returns the torque
on the load, `tau_load = i*k*current`. The motor's rotor inertia is NOT integrated here: it is
reflected through the gear (J_m*i^2, the calculated parameter `J_reflected`) and lumped into the
mechanism (`J_drive` of crank.m3d), so that the drive is a pure torque source whose output depends
on its state (the current) only: no algebraic loop, and the mechanism integrates one inertia.
`drive_train_motion.py` is the motion-driven variant of the same drive.

Equations (load side speed w, motor speed i*w):

    w_ref = w_set * min(t / t_ramp, 1)                speed profile
    e = w_ref - w;  u_c = Kp*e + Ki*x;  u = clamp(u_c, -U_max, U_max)
    dx/dt = e + (u - u_c)/Kp                          PI integrator with back-calculation
    L di/dt = u - R*i - k*i_gear*w                    armature
    tau_load = i_gear*k*i

The step is integrated with the classical Runge-Kutta method on sub-steps of at most
`max_substep`. Energy bookkeeping: `E_el` = integral of u*i (electrical energy in), `E_loss` =
integral of R*i^2 (resistive losses), `E_mag` = L*i^2/2 (magnetic energy stored).

Units (pythonfmu writes none): SI, given in each description.
"""

import math
from xml.etree.ElementTree import SubElement

from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Real
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
            ("voltage", "armature voltage after the supply limit [V]",
             lambda: self.controller(self.time, self.load_speed(0.0))[0]),
            ("w_ref", "speed reference of the load [rad/s]", lambda: self.reference(self.time)),
            ("P_el", "electrical power in, voltage*current [W]",
             lambda: self.controller(self.time, self.load_speed(0.0))[0] * self.current),
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
        self.w_load = 0.0
        self.a_load = 0.0
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
                 getter=lambda: self.ratio * self.k * self.di_dt(self.time, self.current,
                                                                  self.x, self.w_load)[0])
        )

    def state(self):
        return [self.current, self.x, self.E_el, self.E_loss]

    def set_state(self, y):
        self.current, self.x, self.E_el, self.E_loss = y

    def load_speed(self, s, y=None):
        """Load speed s seconds into the step: the input, extrapolated with a_load and j_load."""
        return self.w_load + self.a_load * s + 0.5 * self.j_load * s * s

    def derivatives(self, s, y):
        t = self.time + s
        current, x = y[0], y[1]
        w = self.load_speed(s, y)
        di, dx, u = self.di_dt(t, current, x, w)
        return [di, dx, u * current, self.R * current**2]

    # --- the drive's equations -----------------------------------------------------------

    def reference(self, t):
        return self.w_set * min(t / self.t_ramp, 1.0) if self.t_ramp > 0 else self.w_set

    def controller(self, t, w, x=None):
        """Voltage after the limit and before it, at time t and load speed w."""
        x = self.x if x is None else x
        u_c = self.Kp * (self.reference(t) - w) + self.Ki * x
        return min(max(u_c, -self.U_max), self.U_max), u_c

    def di_dt(self, t, current, x, w):
        """d(current)/dt, d(integrator)/dt and the voltage."""
        u, u_c = self.controller(t, w, x)
        di = (u - self.R * current - self.k * self.ratio * w) / self.L
        dx = self.reference(t) - w + (u - u_c) / self.Kp
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
        # The input speed is held (or extrapolated) up to the next communication point, where
        # the master sets it anew; until then, outputs use the extrapolated value.
        self.w_load = self.load_speed(step_size)
        self.a_load += self.j_load * step_size
