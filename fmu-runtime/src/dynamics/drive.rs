//! One-dimensional drive trains on joint flanges ([OEM03] §6.3, §10: a Modelica Rotational
//! chain connected to a joint's flange), evaluated inside the residual so that drive and
//! mechanism are one DAE.
//!
//! A chain `source → elements → flange` is cut at its springs and dampers into **parts**. Inside
//! a part everything is rigid: ideal gears and inertias merge into one 1-D body whose inertia is
//! reflected to the part's flange-side end (an inertia J before gears of total ratio r counts
//! J·r²). Each part but the last has its own angle φ and speed ω (at its flange-side end) in y;
//! the last part turns with the joint, φ = q. With R_j the product of part j's gear ratios (its
//! source-side end turns R_j times faster than its flange-side end) and the compliant element j
//! between parts j and j+1 transmitting
//!
//! ```text
//! τ_j = c_j (φ_rel − φ_rel0) + d_j φ̇_rel,   φ_rel = R_{j+1} φ_{j+1} − φ_j,
//! ```
//!
//! part j obeys J_j ω̇_j = τ_src,j + τ_j − R_j τ_{j−1} (τ_src only for the first part: R_0 times
//! the source torque). The last part's balance is the torque the drive exerts on the flange,
//! which enters the joint's equation of motion. A DC motor adds its current i:
//! L di/dt = v − R i − k ω_m, with torque k i and speed ω_m = R_0 ω_0 at the source end.

use crate::assembly::{DriveQuantity, JointStates, StateLayout};
use crate::model::{DcMotorSpec, DriveElement, DriveSource, DriveSpec, MotorVoltage, StartValues};

use super::kinematics::ScalarCoordinates;

/// One rigid part of a drive.
#[derive(Debug, Clone, PartialEq)]
pub struct DrivePart {
    /// Inertia (mass) reflected to the flange-side end.
    pub inertia: f64,
    /// Speed of the source-side end over the speed of the flange-side end.
    pub ratio: f64,
    /// Start angle and speed of the flange-side end, from an inertia's start values.
    pub start: StartValues,
}

/// A spring and damper between two parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coupling {
    pub stiffness: f64,
    pub damping: f64,
    pub rest: f64,
}

/// A drive as the residual evaluates it.
#[derive(Debug, Clone)]
pub struct Drive {
    pub name: String,
    /// The super-object the joint moves (its coordinates are the last part's).
    pub body: usize,
    pub source: DriveSource,
    /// Source side first; the last part turns with the joint.
    pub parts: Vec<DrivePart>,
    /// `couplings[j]` joins `parts[j]` and `parts[j + 1]`.
    pub couplings: Vec<Coupling>,
    /// The states of all parts but the last, and the motor current.
    pub states: crate::assembly::DriveStates,
}

/// Angle, speed and acceleration of a part's flange-side end.
type PartMotion = (f64, f64, f64);

impl Drive {
    pub fn new(spec: &DriveSpec, body: usize, layout: &StateLayout, index: usize) -> Drive {
        let mut parts = Vec::new();
        let mut couplings = Vec::new();
        let mut part = DrivePart {
            inertia: 0.0,
            ratio: 1.0,
            start: StartValues::default(),
        };
        // Start values of an inertia, with the gear ratio between the part's source end and it.
        let mut start: Option<(StartValues, f64)> = None;
        let mut finish = |part: &mut DrivePart, start: &mut Option<(StartValues, f64)>| {
            let mut done = std::mem::replace(
                part,
                DrivePart {
                    inertia: 0.0,
                    ratio: 1.0,
                    start: StartValues::default(),
                },
            );
            if let Some((values, before)) = start.take() {
                // The inertia turns ratio/before times faster than the part's flange-side end.
                let factor = done.ratio / before;
                done.start = StartValues {
                    position: values.position.map(|p| p / factor),
                    speed: values.speed.map(|w| w / factor),
                };
            }
            parts.push(done);
        };
        if let DriveSource::Motor(motor) = &spec.source {
            part.inertia += motor.inertia;
        }
        for element in &spec.elements {
            match element {
                DriveElement::Inertia {
                    inertia,
                    start: values,
                    ..
                } => {
                    part.inertia += inertia;
                    if values.position.is_some() || values.speed.is_some() {
                        start = Some((*values, part.ratio));
                    }
                }
                DriveElement::Gear { ratio } => {
                    part.inertia *= ratio * ratio;
                    part.ratio *= ratio;
                }
                DriveElement::Compliance {
                    stiffness,
                    damping,
                    rest,
                    ..
                } => {
                    finish(&mut part, &mut start);
                    couplings.push(Coupling {
                        stiffness: *stiffness,
                        damping: *damping,
                        rest: *rest,
                    });
                }
            }
        }
        finish(&mut part, &mut start);
        Drive {
            name: spec.name.clone(),
            body,
            source: spec.source.clone(),
            parts,
            couplings,
            states: layout.drives[index].clone(),
        }
    }

    fn part_motion(
        &self,
        j: usize,
        y: &[f64],
        yp: &[f64],
        joint: &ScalarCoordinates,
    ) -> PartMotion {
        match self.states.parts.get(j) {
            Some(s) => (y[s.q], y[s.v], yp[s.v]),
            None => (joint.q, joint.qd, joint.qdd),
        }
    }

    /// Torque of compliant element j between parts j and j + 1.
    fn coupling_torque(&self, j: usize, a: PartMotion, b: PartMotion) -> f64 {
        let c = &self.couplings[j];
        let ratio = self.parts[j + 1].ratio;
        c.stiffness * (ratio * b.0 - a.0 - c.rest) + c.damping * (ratio * b.1 - a.1)
    }

    /// The torque at the source end: the input, or the motor's k·i.
    fn source_torque(&self, input: f64, y: &[f64]) -> f64 {
        match (&self.source, self.states.current) {
            (DriveSource::Input, _) => input,
            (DriveSource::Motor(motor), Some(i)) => motor.k * y[i],
            _ => 0.0,
        }
    }

    /// Writes the residuals of the drive's own states and returns the torque (force) the drive
    /// exerts on the joint's flange. `input` is the source input (torque or voltage) at this
    /// instant, `joint` the joint's coordinates.
    pub fn residual(
        &self,
        input: f64,
        joint: &ScalarCoordinates,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> f64 {
        let last = self.parts.len() - 1;
        let mut motion = self.part_motion(0, y, yp, joint);
        let mut from_source_side = 0.0;
        for (j, part) in self.parts.iter().enumerate() {
            let mut load = part.inertia * motion.2 + part.ratio * from_source_side;
            if j == 0 {
                load -= part.ratio * self.source_torque(input, y);
            }
            if j == last {
                // (0 − load: a drive at rest reports 0, not −0)
                return 0.0 - load;
            }
            let next = self.part_motion(j + 1, y, yp, joint);
            let torque = self.coupling_torque(j, motion, next);
            load -= torque;
            let s: JointStates = self.states.parts[j];
            res[s.q] = yp[s.q] - y[s.v];
            res[s.v] = load;
            from_source_side = torque;
            motion = next;
        }
        0.0
    }

    /// The motor voltage: the input (or function of time), or what the speed controller sets
    /// (then `input` is the reference speed), with the controller's unlimited voltage.
    fn voltage(&self, input: f64, joint: &ScalarCoordinates, y: &[f64]) -> (f64, f64) {
        match (&self.source, self.states.controller) {
            (
                DriveSource::Motor(DcMotorSpec {
                    voltage: MotorVoltage::SpeedControl(control),
                    ..
                }),
                Some(x),
            ) => {
                let unlimited = control.kp * (input - joint.qd) + control.ki * y[x];
                (unlimited.clamp(-control.v_max, control.v_max), unlimited)
            }
            _ => (input, input),
        }
    }

    /// The motor's equation L di/dt − (v − R i − k ω_m), and the speed controller's
    /// dx/dt − (e + (u − u_c)/Kp).
    pub fn motor_residual(
        &self,
        input: f64,
        joint: &ScalarCoordinates,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) {
        let DriveSource::Motor(motor) = &self.source else {
            return;
        };
        let (voltage, unlimited) = self.voltage(input, joint, y);
        if let Some(i) = self.states.current {
            let speed = self.motor_speed(joint, y, yp);
            res[i] =
                motor.inductance * yp[i] - (voltage - motor.resistance * y[i] - motor.k * speed);
        }
        if let (MotorVoltage::SpeedControl(control), Some(x)) =
            (&motor.voltage, self.states.controller)
        {
            res[x] = yp[x] - (input - joint.qd + (voltage - unlimited) / control.kp);
        }
    }

    /// The exact derivatives of the drive's equations (its parts' f1 and balances, the motor
    /// and controller equations) and of its joint's equation of motion (which subtracts the
    /// drive's flange torque), with respect to the drive's states and the joint's coordinate
    /// and speed (`joint_states`), ẏ's columns with c_j: (row, column, value), to be added to
    /// J. The equations are linear in these but for the controller's voltage limit, whose
    /// derivative is that of the side the voltage is on.
    pub fn jacobian_entries(
        &self,
        input: f64,
        joint: &ScalarCoordinates,
        joint_states: JointStates,
        y: &[f64],
        cj: f64,
    ) -> Vec<(usize, usize, f64)> {
        /// A linear form: (column, coefficient).
        type Form = Vec<(usize, f64)>;
        let scaled =
            |form: &Form, k: f64| -> Form { form.iter().map(|&(c, a)| (c, a * k)).collect() };
        // Angle, speed and acceleration of part j's flange-side end.
        let motion = |j: usize| -> (Form, Form, Form) {
            let s = self.states.parts.get(j).copied().unwrap_or(joint_states);
            (vec![(s.q, 1.0)], vec![(s.v, 1.0)], vec![(s.v, cj)])
        };
        let coupling = |j: usize| -> Form {
            let c = &self.couplings[j];
            let ratio = self.parts[j + 1].ratio;
            let ((a_q, a_v, _), (b_q, b_v, _)) = (motion(j), motion(j + 1));
            [
                scaled(&b_q, c.stiffness * ratio),
                scaled(&a_q, -c.stiffness),
                scaled(&b_v, c.damping * ratio),
                scaled(&a_v, -c.damping),
            ]
            .concat()
        };
        let source: Form = match (&self.source, self.states.current) {
            (DriveSource::Motor(motor), Some(i)) => vec![(i, motor.k)],
            _ => Vec::new(),
        };
        let mut entries = Vec::new();
        let last = self.parts.len() - 1;
        let mut from_source_side: Form = Vec::new();
        for (j, part) in self.parts.iter().enumerate() {
            let mut load = [
                scaled(&motion(j).2, part.inertia),
                scaled(&from_source_side, part.ratio),
            ]
            .concat();
            if j == 0 {
                load.extend(scaled(&source, -part.ratio));
            }
            if j == last {
                // The joint's equation subtracts the flange torque, −load.
                entries.extend(load.iter().map(|&(c, a)| (joint_states.v, c, a)));
                break;
            }
            let torque = coupling(j);
            load.extend(scaled(&torque, -1.0));
            let s = self.states.parts[j];
            entries.extend([(s.q, s.q, cj), (s.q, s.v, -1.0)]);
            entries.extend(load.iter().map(|&(c, a)| (s.v, c, a)));
            from_source_side = torque;
        }
        if let DriveSource::Motor(motor) = &self.source {
            // The unlimited voltage's form and whether the limit holds it.
            let (voltage, limited): (Form, bool) = match (&motor.voltage, self.states.controller) {
                (MotorVoltage::SpeedControl(control), Some(x)) => {
                    let (v, unlimited) = self.voltage(input, joint, y);
                    (
                        vec![(joint_states.v, -control.kp), (x, control.ki)],
                        v != unlimited,
                    )
                }
                _ => (Vec::new(), false),
            };
            if let Some(i) = self.states.current {
                entries.push((i, i, motor.inductance * cj + motor.resistance));
                if !limited {
                    entries.extend(voltage.iter().map(|&(c, a)| (i, c, -a)));
                }
                let speed = scaled(&motion(0).1, motor.k * self.parts[0].ratio);
                entries.extend(speed.iter().map(|&(c, a)| (i, c, a)));
            }
            if let (MotorVoltage::SpeedControl(control), Some(x)) =
                (&motor.voltage, self.states.controller)
            {
                // ẋ − (w_ref − q̇ + (V − U)/Kp): V − U is 0 inside the limit, −U beyond it.
                entries.extend([(x, x, cj), (x, joint_states.v, 1.0)]);
                if limited {
                    entries.extend(voltage.iter().map(|&(c, a)| (x, c, a / control.kp)));
                }
            }
        }
        entries
    }

    fn motor_speed(&self, joint: &ScalarCoordinates, y: &[f64], yp: &[f64]) -> f64 {
        self.parts[0].ratio * self.part_motion(0, y, yp, joint).1
    }

    /// Writes the start values of the drive's states into y, given the joint's start
    /// coordinates: each part starts where its inertia's start values put it, else so that the
    /// compliant element towards the flange is relaxed (at rest relative to it).
    pub fn start(&self, joint: &ScalarCoordinates, y: &mut [f64]) {
        let mut next = (joint.q, joint.qd);
        for j in (0..self.states.parts.len()).rev() {
            let relaxed = (
                self.parts[j + 1].ratio * next.0 - self.couplings[j].rest,
                self.parts[j + 1].ratio * next.1,
            );
            let start = self.parts[j].start;
            let s = self.states.parts[j];
            y[s.q] = start.position.unwrap_or(relaxed.0);
            y[s.v] = start.speed.unwrap_or(relaxed.1);
            next = (y[s.q], y[s.v]);
        }
        if let (DriveSource::Motor(motor), Some(i)) = (&self.source, self.states.current) {
            y[i] = motor.current;
        }
    }

    /// The value of an output. `input` is the source input at this instant, `flange` the torque
    /// on the flange from the last residual evaluation.
    pub fn quantity(
        &self,
        quantity: DriveQuantity,
        input: f64,
        flange: f64,
        joint: &ScalarCoordinates,
        y: &[f64],
        yp: &[f64],
    ) -> f64 {
        let current = self.states.current.map_or(0.0, |i| y[i]);
        let voltage = self.voltage(input, joint, y).0;
        match quantity {
            DriveQuantity::Voltage => voltage,
            DriveQuantity::ReferenceSpeed => input,
            DriveQuantity::Current => current,
            DriveQuantity::MotorSpeed => self.motor_speed(joint, y, yp),
            DriveQuantity::MotorTorque => self.source_torque(input, y),
            DriveQuantity::ElectricalPower => voltage * current,
            DriveQuantity::FlangeTorque => flange,
            DriveQuantity::PartPosition(j) => self.part_motion(j, y, yp, joint).0,
            DriveQuantity::PartSpeed(j) => self.part_motion(j, y, yp, joint).1,
        }
    }
}
