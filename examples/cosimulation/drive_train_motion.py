"""The drive train of drive_train.py with the other causality: motion-driven.

    pythonfmu build -f drive_train_motion.py -d . drive_train.py   # writes drive_train_motion.fmu

The FMU integrates the motion of the load itself and hands it to a mechanism whose joint has
`flange = motion`: outputs `phi_load`, `w_load`, `a_load` (and `j_load`, the jerk, for a master that
passes input derivatives); the mechanism returns the torque its joint takes, the input `tau_load`.

A rigid motion-driven coupling is stable only if the drive carries the dominant inertia: with the
mechanism's torque taken from the last communication point, an inertia J_L on the mechanism side
that is large against the drive's makes the explicit exchange blow up (each step over-corrects the
acceleration by the factor J_L / J_drive). So the drive integrates

    (J_m*i^2 + J_load) dw/dt = i*k*current - r,     r = tau_load - J_load*a_load

where J_load is the drive's model of the load inertia (the mechanism's inertia about the joint
axis, a parameter) and r the rest of the mechanism's torque (gravity, velocity terms, the
inertia J_load does not capture), updated once per communication step from the torque the
mechanism returned for the acceleration the drive sent. With J_load equal to the true inertia, r
is the gravity torque, a function of the angle only, and the coupling error is first order in h.
"""

from pythonfmu import Fmi2Causality, Fmi2Variability, Real

from drive_train import DriveTrain


class DriveTrainMotion(DriveTrain):
    """DC motor, ideal gear, PI speed controller: motion out, load torque in."""

    description = "DC motor with ideal gearbox and PI speed controller (motion-driven coupling)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.modelName = "drive_train_motion"

    def register_ports(self):
        self.J_load = 0.015
        self.phi_start = 0.0
        self.tau_load = 0.0
        self.phi = 0.0
        self.w = 0.0
        self.rest = 0.0  # r: the mechanism's torque less J_load*a, from the last exchange
        self.register_variable(
            Real("J_load", causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed,
                 description="the drive's model of the load inertia about the joint [kg.m2]")
        )
        self.register_variable(
            Real("phi_start", causality=Fmi2Causality.parameter,
                 variability=Fmi2Variability.fixed, description="start angle of the load [rad]")
        )
        self.register_variable(
            Real("tau_load", causality=Fmi2Causality.input, start=0.0,
                 description="torque the mechanism's joint takes for the motion it was given [N.m]")
        )
        outputs = [
            ("phi_load", "angle of the load [rad]", lambda: self.phi),
            ("w_load", "angular speed of the load [rad/s]", lambda: self.w),
            ("a_load", "angular acceleration of the load [rad/s2]",
             lambda: self.acceleration(self.current)),
            ("j_load", "angular jerk of the load, d(a_load)/dt [rad/s3]",
             lambda: self.ratio * self.k
             * self.di_dt(self.time, self.current, self.x, self.w, self.phi)[0]
             / self.inertia()),
        ]
        for name, text, getter in outputs:
            self.register_variable(
                Real(name, causality=Fmi2Causality.output, description=text, getter=getter)
            )

    def inertia(self):
        return self.J_m * self.ratio**2 + self.J_load

    def acceleration(self, current):
        return (self.ratio * self.k * current - self.rest) / self.inertia()

    def exit_initialization_mode(self):
        self.phi = self.phi_start

    def state(self):
        return [self.current, self.x, self.E_el, self.E_loss, self.phi, self.w]

    def set_state(self, y):
        self.current, self.x, self.E_el, self.E_loss, self.phi, self.w = y

    def load_speed(self, s, y=None):
        return self.w if y is None else y[5]

    def load_angle(self, s, y=None):
        return self.phi if y is None else y[4]

    def derivatives(self, s, y):
        return super().derivatives(s, y) + [y[5], self.acceleration(y[0])]

    def before_step(self):
        # The torque the mechanism returned belongs to the acceleration sent at this point.
        self.rest = self.tau_load - self.J_load * self.acceleration(self.current)

    def after_step(self, step_size):
        pass

