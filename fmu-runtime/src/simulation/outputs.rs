//! The variables' values at the current instant (kinematics, joint and cut-joint coordinates,
//! contact and drive outputs, Modelica quaternions) and their first time derivatives.

use super::*;

impl Simulation {
    /// Values of all variables at the current time, in table order.
    pub fn values(&mut self) -> Vec<f64> {
        self.refresh_workspace();
        (0..self.variables.variables.len())
            .map(|i| self.evaluate(i))
            .collect()
    }

    /// What the model looks like where it failed, for an error message: every input's value,
    /// and the outputs of largest magnitude (non-finite ones first), with their units. A motion
    /// that ran away (a huge torque, a stiff spring) shows here by name.
    pub fn diagnosis(&mut self) -> String {
        let values = self.values();
        let shown = |v: &Variable, value: f64| {
            let unit = match v.unit {
                Some(kind) => format!(" {}", kind.si_unit()),
                None => String::new(),
            };
            format!("{} = {value:e}{unit}", v.name)
        };
        let inputs: Vec<String> = self
            .variables
            .variables
            .iter()
            .zip(&values)
            .filter(|(v, _)| v.causality == Causality::Input)
            .map(|(v, value)| shown(v, *value))
            .collect();
        let mut outputs: Vec<(&Variable, f64)> = self
            .variables
            .variables
            .iter()
            .zip(values.iter().copied())
            .filter(|(v, _)| v.causality == Causality::Output)
            .collect();
        let size = |x: f64| {
            if x.is_finite() {
                x.abs()
            } else {
                f64::INFINITY
            }
        };
        outputs.sort_by(|a, b| size(b.1).total_cmp(&size(a.1)));
        let largest: Vec<String> = outputs.iter().take(3).map(|(v, x)| shown(v, *x)).collect();
        let mut text = format!("at t = {} s", self.time());
        if !inputs.is_empty() {
            text += &format!(", inputs {}", inputs.join(", "));
        }
        if !largest.is_empty() {
            text += &format!(", largest outputs {}", largest.join(", "));
        }
        text
    }

    /// Values of the variables with the given indices (valid indices of the table) at the
    /// current time.
    pub fn values_of(&mut self, indices: &[usize]) -> Vec<f64> {
        let mut out = vec![0.0; indices.len()];
        self.values_into(indices.iter().copied(), &mut out);
        out
    }

    /// Writes the values of the variables with the given indices (valid indices of the table)
    /// at the current time into `out`, without allocating.
    pub fn values_into(&mut self, indices: impl IntoIterator<Item = usize>, out: &mut [f64]) {
        self.refresh_workspace();
        for (value, index) in out.iter_mut().zip(indices) {
            *value = self.evaluate(index);
        }
    }

    /// The pose of every body at the current time, in the assembly's order (the world first):
    /// the position of its root object's origin and the rotation that maps body coordinates
    /// to world coordinates, as `VisualScene` and the `NAME.r`, `NAME.Q` outputs give them.
    pub fn body_poses(&mut self) -> Vec<nalgebra::Isometry3<f64>> {
        self.refresh_workspace();
        self.ida
            .system()
            .workspace
            .motion
            .iter()
            .map(|motion| {
                let rotation = Rotation3::from_matrix_unchecked(motion.rotation);
                nalgebra::Isometry3::from_parts(
                    motion.r.into(),
                    UnitQuaternion::from_rotation_matrix(&rotation),
                )
            })
            .collect()
    }

    /// Values of the output variables at the current time, in table order.
    pub fn output_values(&mut self) -> Vec<f64> {
        self.refresh_workspace();
        let outputs: Vec<usize> = self.variables.outputs().map(|(i, _)| i).collect();
        outputs.into_iter().map(|i| self.evaluate(i)).collect()
    }

    /// Evaluates the residual at the integrator's current y, ẏ so that the workspace holds the
    /// kinematics and drive forces of this instant.
    ///
    /// An input that changed since the integrator last moved makes its derivatives stale (a new
    /// torque changes the accelerations at once): they are then made consistent with the
    /// current inputs first, so that outputs that depend on inputs directly follow them without
    /// a step.
    pub(super) fn refresh_workspace(&mut self) {
        if self.model_exchange {
            // A failure is reported by the call that asks for the derivatives; the values read
            // meanwhile are those of the last derivatives found.
            let _ = self.settle_derivatives();
        }
        let t = self.ida.t();
        let (y, yp, dae) = self.ida.state_and_system_mut();
        let inputs_changed = dae.signals.iter().any(|(s, _)| s.jumped);
        self.consistent_yp = if inputs_changed {
            // A singular mass matrix would have stopped the simulation at its start.
            dae.consistent_derivatives(t, y).ok()
        } else {
            None
        };
        let yp = self.consistent_yp.as_deref().unwrap_or(yp);
        dae.evaluate_at(t, y, yp);
        // Revolute cut-joints: the angle in (−π, π] continued from the last one reported, by the
        // whole turns that bring it nearest to that one. Reading again at the same instant finds
        // the same turns and gives back the same bits (continuing from the reported value itself
        // moved it by an ulp at each read).
        for cut in &self.assembly.cut_joints {
            for (axis, a) in cut.kind.axes().iter().enumerate() {
                if a.motion == AxisMotion::Turn {
                    let reported = self.cut_angles[cut.first_axis + axis];
                    let angle = cut_joint_coordinates(cut, axis, &dae.workspace.motion)[0];
                    let turns = ((reported - angle) / (2.0 * PI)).round();
                    self.cut_angles[cut.first_axis + axis] = angle + 2.0 * PI * turns;
                }
            }
        }
    }

    /// Coordinate, speed and acceleration of the revolute or prismatic joint named `name`,
    /// whether it is a joint of the spanning tree or a cut-joint; `None` for other joints (of
    /// several axes or none) and unknown names.
    pub fn joint_coordinates(&mut self, name: &str) -> Option<[f64; 3]> {
        if let Some(index) = self.assembly.cut_joints.iter().position(|c| c.name == name) {
            self.refresh_workspace();
            let cut = &self.assembly.cut_joints[index];
            let [axis] = cut.kind.axes() else {
                return None;
            };
            let mut values = cut_joint_coordinates(cut, 0, &self.ida.system().workspace.motion);
            if axis.motion == AxisMotion::Turn {
                values[0] = self.cut_angles[cut.first_axis];
            }
            return Some(values);
        }
        // A tree joint of one axis: the one super-object it moves.
        let mut bodies = self
            .assembly
            .super_objects
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.joint
                    .as_ref()
                    .is_some_and(|j| j.name == name && !matches!(j.kind, TreeJointKind::Free))
            });
        let (Some((body, _)), None) = (bodies.next(), bodies.next()) else {
            return None;
        };
        self.refresh_workspace();
        Some(
            [
                VariableKind::JointPosition(body),
                VariableKind::JointSpeed(body),
                VariableKind::JointAcceleration(body),
            ]
            .map(|kind| self.evaluate_kind(kind)),
        )
    }

    pub(super) fn evaluate(&self, index: usize) -> f64 {
        self.evaluate_kind(self.variables.variables[index].kind)
    }

    pub(super) fn evaluate_kind(&self, kind: VariableKind) -> f64 {
        let yp = self.consistent_yp.as_deref().unwrap_or(self.ida.yp());
        self.evaluate_kind_at(kind, self.ida.y(), yp)
    }

    /// The value of a variable from y, ẏ and the workspace filled for them.
    pub(super) fn evaluate_kind_at(&self, kind: VariableKind, y: &[f64], yp: &[f64]) -> f64 {
        let dae = self.ida.system();
        let scalar_states = |body: usize| {
            dae.mechanism.bodies[body]
                .joint
                .as_ref()
                .and_then(|j| match j.motion {
                    TreeJointKind::Free => None,
                    _ => j.states,
                })
        };
        // A joint without states: motion-driven (its inputs), or a follower (its leader's).
        let without_states = |body: usize| {
            let follows = dae.mechanism.bodies[body]
                .joint
                .as_ref()
                .and_then(|j| j.follows);
            match follows {
                Some(follower) => dae.mechanism.follower_coordinates(&follower, y, yp),
                None => dae.inputs.motion[body],
            }
        };
        match kind {
            VariableKind::Parameter(i) => self.scene.parameters[i].value,
            VariableKind::State(k) => y[k],
            VariableKind::StateDerivative(k) => yp[k],
            VariableKind::CutJointPosition(index, axis) => {
                let cut = &self.assembly.cut_joints[index];
                match cut.kind.axes().get(axis) {
                    Some(a) if a.motion == AxisMotion::Turn => {
                        self.cut_angles[cut.first_axis + axis]
                    }
                    _ => cut_joint_coordinates(cut, axis, &dae.workspace.motion)[0],
                }
            }
            VariableKind::CutJointSpeed(index, axis) => cut_joint_coordinates(
                &self.assembly.cut_joints[index],
                axis,
                &dae.workspace.motion,
            )[1],
            VariableKind::JointPosition(body) => match scalar_states(body) {
                Some(s) => y[s.q],
                None => without_states(body).q,
            },
            VariableKind::JointSpeed(body) => match scalar_states(body) {
                Some(s) => y[s.v],
                None => without_states(body).qd,
            },
            VariableKind::JointAcceleration(body) => match scalar_states(body) {
                Some(s) => yp[s.v],
                None => without_states(body).qdd,
            },
            VariableKind::JointForce(body) => dae.workspace.drive[body],
            VariableKind::DriveInput(drive) => dae.inputs.drive[drive],
            VariableKind::Drive { drive, quantity } => {
                let drive_train = &dae.mechanism.drives[drive];
                let body = drive_train.body;
                let Some(crate::dynamics::JointCoordinates::Scalar(joint)) =
                    dae.workspace.coordinates[body]
                else {
                    return f64::NAN;
                };
                drive_train.quantity(
                    quantity,
                    dae.inputs.drive[drive],
                    dae.workspace.flange[body],
                    &joint,
                    y,
                    yp,
                )
            }
            VariableKind::JointReaction { joint, component } => crate::dynamics::joint_reaction(
                &dae.mechanism,
                &dae.workspace,
                yp,
                &self.scene,
                &self.assembly,
                joint,
            )[component],
            VariableKind::Contact { report, quantity } => {
                let pairs: Vec<usize> = dae.mechanism.collisions.reports[report]
                    .pairs
                    .iter()
                    .filter_map(|&(a, b)| dae.workspace.pairs.find(a, b))
                    .collect();
                match quantity {
                    ContactQuantity::Distance | ContactQuantity::Penetration => {
                        let distance = pairs
                            .iter()
                            .filter_map(|&pair| {
                                contacts::pair_contact_at(&dae.mechanism, &dae.workspace, pair)
                            })
                            .map(|c| c.distance)
                            .fold(f64::INFINITY, f64::min);
                        if quantity == ContactQuantity::Distance {
                            distance
                        } else {
                            (-distance).max(0.0)
                        }
                    }
                    ContactQuantity::NormalForce => pairs
                        .iter()
                        .filter_map(|&pair| {
                            contacts::pair_response(&dae.mechanism, &dae.workspace, pair)
                        })
                        .map(|(_, response)| response.normal_force)
                        .sum(),
                }
            }
            VariableKind::Frame {
                object,
                quantity,
                component,
            } => {
                let (body, pose) = self.assembly.placement[object.0];
                let motion = &dae.workspace.motion[body];
                let arm = motion.rotation * pose.translation.vector;
                match quantity {
                    FrameQuantity::Position => (motion.r + arm)[component],
                    FrameQuantity::Velocity => (motion.v + motion.w.cross(&arm))[component],
                    FrameQuantity::AngularVelocity => motion.w[component],
                    FrameQuantity::Quaternion => {
                        let rotation = Rotation3::from_matrix_unchecked(
                            motion.rotation * pose.rotation.to_rotation_matrix().matrix(),
                        );
                        modelica_quaternion(&UnitQuaternion::from_rotation_matrix(&rotation))
                            [component]
                    }
                }
            }
        }
    }

    /// Writes the first time derivative of each of the given output variables (valid indices
    /// of the table) at the current instant into `out`: the right-hand derivative, with the
    /// inputs as they are now set (held, or interpolated with their derivatives).
    ///
    /// Exact where the engine has the derivative as a variable of its own: a joint's angle or
    /// position → its speed, a speed → its acceleration, a frame's position → its velocity, its
    /// velocity → the point's acceleration, its angular velocity → its angular acceleration, its
    /// quaternion → ½·ω⊗Q, a cut-joint's coordinate → its speed → its acceleration. The others
    /// (accelerations, drive torques, reactions, contact quantities) are differentiated along
    /// the solution: the outputs at t + ε and t + 2ε on the tangent y + s·ẏ, with ẏ made
    /// consistent at each point, combined by the one-sided second-order formula
    /// (−3g₀ + 4g₁ − g₂)/(2ε), whose error is O(ε²) because the tangent and the solution differ
    /// only in the second order in s, which the formula cancels; ε is
    /// [`DERIVATIVE_STEP_FRACTION`] of the integrator's last step.
    pub fn output_derivatives_into(&mut self, indices: &[usize], out: &mut [f64]) {
        self.refresh_workspace();
        let mut differenced = Vec::new();
        for (slot, &index) in indices.iter().enumerate() {
            match self.exact_derivative(self.variables.variables[index].kind) {
                Some(value) => out[slot] = value,
                None => differenced.push(slot),
            }
        }
        if differenced.is_empty() {
            return;
        }
        let kinds: Vec<VariableKind> = differenced
            .iter()
            .map(|&slot| self.variables.variables[indices[slot]].kind)
            .collect();
        let t = self.time();
        let y = self.ida.y().to_vec();
        let yp = self
            .consistent_yp
            .clone()
            .unwrap_or_else(|| self.ida.yp().to_vec());
        let epsilon = DERIVATIVE_STEP_FRACTION * self.time_scale();
        let samples: [Vec<f64>; 3] = [0.0, 1.0, 2.0].map(|s| {
            let ts = t + s * epsilon;
            let ys: Vec<f64> = y
                .iter()
                .zip(&yp)
                .map(|(y, p)| y + s * epsilon * p)
                .collect();
            let dae = self.ida.system_mut();
            // The mass matrix was regular at the start; near a singular pose the tangent ẏ is
            // the best estimate there is.
            let yps = dae
                .consistent_derivatives(ts, &ys)
                .unwrap_or_else(|_| yp.clone());
            dae.evaluate_at(ts, &ys, &yps);
            kinds
                .iter()
                .map(|&kind| self.evaluate_kind_at(kind, &ys, &yps))
                .collect()
        });
        for (k, &slot) in differenced.iter().enumerate() {
            out[slot] =
                (-3.0 * samples[0][k] + 4.0 * samples[1][k] - samples[2][k]) / (2.0 * epsilon);
        }
        // Back to the current instant for the next fmi2GetReal.
        self.refresh_workspace();
    }

    /// The time over which the solution changes appreciably, as the integrator sees it: its
    /// last step, or the step it will try first before it has taken one.
    pub(super) fn time_scale(&self) -> f64 {
        let stats = self.ida.stats();
        [stats.last_step, stats.current_step]
            .into_iter()
            .find(|h| *h > 0.0)
            .unwrap_or(1e-6 * self.time().abs().max(1.0))
    }

    /// The time derivative of a variable that the engine has exactly (see
    /// [`Simulation::output_derivatives_into`]), from the workspace of the current instant.
    pub(super) fn exact_derivative(&self, kind: VariableKind) -> Option<f64> {
        let motion = &self.ida.system().workspace.motion;
        match kind {
            VariableKind::JointPosition(body) => {
                Some(self.evaluate_kind(VariableKind::JointSpeed(body)))
            }
            VariableKind::JointSpeed(body) => {
                Some(self.evaluate_kind(VariableKind::JointAcceleration(body)))
            }
            VariableKind::CutJointPosition(index, axis) => {
                Some(cut_joint_coordinates(&self.assembly.cut_joints[index], axis, motion)[1])
            }
            VariableKind::CutJointSpeed(index, axis) => {
                Some(cut_joint_coordinates(&self.assembly.cut_joints[index], axis, motion)[2])
            }
            VariableKind::Frame {
                object,
                quantity,
                component,
            } => {
                let (body, pose) = self.assembly.placement[object.0];
                let motion = &motion[body];
                let arm = motion.rotation * pose.translation.vector;
                Some(match quantity {
                    FrameQuantity::Position => (motion.v + motion.w.cross(&arm))[component],
                    FrameQuantity::Velocity => {
                        (motion.a
                            + motion.alpha.cross(&arm)
                            + motion.w.cross(&motion.w.cross(&arm)))[component]
                    }
                    FrameQuantity::AngularVelocity => motion.alpha[component],
                    FrameQuantity::Quaternion => {
                        let rotation = Rotation3::from_matrix_unchecked(
                            motion.rotation * pose.rotation.to_rotation_matrix().matrix(),
                        );
                        modelica_quaternion_derivative(
                            &UnitQuaternion::from_rotation_matrix(&rotation),
                            &motion.w,
                        )[component]
                    }
                })
            }
            VariableKind::Drive {
                drive,
                quantity: DriveQuantity::PartPosition(part),
            } => Some(self.evaluate_kind(VariableKind::Drive {
                drive,
                quantity: DriveQuantity::PartSpeed(part),
            })),
            VariableKind::Parameter(_)
            | VariableKind::JointAcceleration(_)
            | VariableKind::JointForce(_)
            | VariableKind::JointReaction { .. }
            | VariableKind::Contact { .. }
            | VariableKind::DriveInput(_)
            | VariableKind::Drive { .. }
            | VariableKind::StateDerivative(_) => None,
            VariableKind::State(k) => {
                let yp = self.consistent_yp.as_deref().unwrap_or(self.ida.yp());
                Some(yp[k])
            }
        }
    }
}

/// Coordinate, speed and acceleration of axis `axis` of a cut-joint, from the bodies' motion.
/// A turning axis n (revolute, cylindrical, planar): the angle in (−π, π] of b's rotation about
/// n, and the component along n of the relative angular velocity ω_b − ω_a and of its time
/// derivative in a. A sliding axis n: (p_b − p_a)·n and its first two time derivatives. The two
/// axes of a universal joint (n_a in a, n_b in b): the angles from n_b to its image in a about
/// n_a, and from n_a to its image in b about n_b (negated); speeds and accelerations along the
/// world axes as for a turning axis. Zeros for a spherical joint.
pub fn cut_joint_coordinates(cut: &CutJoint, axis: usize, motion: &[BodyMotion]) -> [f64; 3] {
    let (a, b) = (&motion[cut.body_a], &motion[cut.body_b]);
    let frame_rotation = |body: &BodyMotion, pose: &nalgebra::Isometry3<f64>| {
        body.rotation * pose.rotation.to_rotation_matrix().matrix()
    };
    let (rotation_a, rotation_b) = (
        frame_rotation(a, &cut.frame_a),
        frame_rotation(b, &cut.frame_b),
    );
    let axes = cut.kind.axes();
    let Some(this) = axes.get(axis) else {
        return [0.0; 3];
    };
    let w = b.w - a.w;
    let alpha = b.alpha - a.alpha - a.w.cross(&w);
    let turns = axes.iter().filter(|x| x.motion == AxisMotion::Turn).count();
    // The angle about the unit vector `n` that takes `from` to `to`.
    let angle_about = |n: &Vector3<f64>, from: &Vector3<f64>, to: &Vector3<f64>| {
        n.dot(&from.cross(to)).atan2(from.dot(to))
    };
    match (this.motion, turns) {
        (AxisMotion::Turn, 2) => {
            let (n_a, n_b) = (axes[0].direction, axes[1].direction);
            let (world_a, world_b) = (rotation_a * n_a, rotation_b * n_b);
            if axis == 0 {
                let image = rotation_a.transpose() * world_b;
                [
                    angle_about(&n_a, &n_b, &image),
                    world_a.dot(&w),
                    world_a.dot(&alpha),
                ]
            } else {
                let image = rotation_b.transpose() * world_a;
                [
                    -angle_about(&n_b, &n_a, &image),
                    world_b.dot(&w),
                    world_b.dot(&alpha),
                ]
            }
        }
        (AxisMotion::Turn, _) => {
            let axis = this.direction;
            let n = rotation_a * axis;
            // A unit vector normal to the axis, in a, and where b's rotation takes it.
            let helper = if axis.x.abs() < 0.9 {
                Vector3::x()
            } else {
                Vector3::y()
            };
            let e = (helper - axis * axis.dot(&helper)).normalize();
            let relative = rotation_a.transpose() * rotation_b * e;
            [angle_about(&axis, &e, &relative), n.dot(&w), n.dot(&alpha)]
        }
        (AxisMotion::Slide, _) => {
            let n = rotation_a * this.direction;
            let nd = a.w.cross(&n);
            let ndd = a.alpha.cross(&n) + a.w.cross(&nd);
            let (arm_a, arm_b) = (
                a.rotation * cut.frame_a.translation.vector,
                b.rotation * cut.frame_b.translation.vector,
            );
            let d = b.r + arm_b - a.r - arm_a;
            let dd = b.v + b.w.cross(&arm_b) - a.v - a.w.cross(&arm_a);
            let point_acceleration = |m: &BodyMotion, arm: &Vector3<f64>| {
                m.a + m.alpha.cross(arm) + m.w.cross(&m.w.cross(arm))
            };
            let ddd = point_acceleration(b, &arm_b) - point_acceleration(a, &arm_a);
            [
                d.dot(&n),
                dd.dot(&n) + d.dot(&nd),
                ddd.dot(&n) + 2.0 * dd.dot(&nd) + d.dot(&ndd),
            ]
        }
    }
}

/// Modelica's quaternion (`Frames.Quaternions.Orientation`) of a frame whose orientation maps
/// frame coordinates to world coordinates as `frame_to_world`. Modelica's `from_Q` turns it into
/// the matrix that resolves world vectors in the frame; for a frame turned by φ about n it is
/// [n·sin(φ/2), cos(φ/2)], the same four numbers as the frame-to-world unit quaternion, written
/// here with a non-negative real part.
pub fn modelica_quaternion(frame_to_world: &UnitQuaternion<f64>) -> [f64; 4] {
    let q = frame_to_world;
    let sign = if q.w < 0.0 { -1.0 } else { 1.0 };
    // `+ 0.0` turns −0 into 0 in the output.
    [
        sign * q.i + 0.0,
        sign * q.j + 0.0,
        sign * q.k + 0.0,
        sign * q.w + 0.0,
    ]
}

/// The time derivative of [`modelica_quaternion`] for a frame turning with the angular velocity
/// ω (world coordinates): q̇ = ½·(0, ω)⊗q, i.e. q̇₄ = −½·ω·q₁₋₃ and q̇₁₋₃ = ½·(q₄·ω + ω×q₁₋₃),
/// with the same sign convention (non-negative real part) as the quaternion itself.
pub fn modelica_quaternion_derivative(
    frame_to_world: &UnitQuaternion<f64>,
    angular_velocity: &Vector3<f64>,
) -> [f64; 4] {
    let q = frame_to_world;
    let sign = if q.w < 0.0 { -1.0 } else { 1.0 };
    let vector = Vector3::new(q.i, q.j, q.k);
    let vector_rate = 0.5 * (q.w * angular_velocity + angular_velocity.cross(&vector));
    let real_rate = -0.5 * angular_velocity.dot(&vector);
    [
        sign * vector_rate.x,
        sign * vector_rate.y,
        sign * vector_rate.z,
        sign * real_rate,
    ]
}
