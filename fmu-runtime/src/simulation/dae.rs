//! The DAE as IDA sees it: the mechanism's residual with the inputs applied, the grouped
//! Jacobian of bodies in contact, and the signed distances (and stick–slip switches) as root
//! functions, one per collider, then one per joint with end stops.

use super::*;
use crate::dynamics::JointCoordinates;

/// The DAE as IDA sees it.
pub(super) struct MechanismDae {
    pub(super) mechanism: Mechanism,
    pub(super) inputs: FlangeInputs,
    /// Where each input signal goes in `inputs`.
    pub(super) signals: Vec<(InputSignal, VariableKind)>,
    pub(super) workspace: Workspace,
    /// Residual output when the model is evaluated for its outputs.
    pub(super) scratch: Vec<f64>,
    /// The branches whose Jacobian columns are formed together (a scene of several bodies in
    /// contact, without cut-joints); `None`: IDA's own difference quotients.
    pub(super) branches: Option<Branches>,
    /// A mechanism with an exact Jacobian ([`ExactJacobian`]: free bodies, trees of revolute
    /// and prismatic joints) instead of difference quotients.
    pub(super) exact: Option<ExactJacobian>,
    /// A long tree of revolute and prismatic joints: its iteration matrix factored in O(n)
    /// ([`ArticulatedIteration`]) instead of the exact Jacobian.
    pub(super) articulated: Option<ArticulatedIteration>,
    /// The integrator's tolerance (sizes the difference-quotient increments).
    pub(super) tolerance: f64,
    /// Residual evaluations spent on grouped Jacobians (IDA does not count them).
    pub(super) jacobian_residuals: u64,
    /// The time the iteration matrix was last formed at, and per pair of the workspace's
    /// table the speed bands its contact lay inside there ([`MechanismDae::residual`]).
    pub(super) jacobian_time: f64,
    pub(super) jacobian_bands: Vec<u8>,
    /// Evaluations refused because a contact left such a band, and whether the last one was
    /// (the next passes).
    pub(super) band_exits: u64,
    pub(super) band_exit_refused: bool,
    /// The point of the last residual evaluation, which the workspace may still hold.
    pub(super) last_evaluation: LastEvaluation,
}

/// The point (t, y, ẏ) of the last residual evaluation and the workspace's read count after
/// it ([`Workspace::reads`]). IDA forms the iteration matrix at the point of the Newton
/// iteration's latest residual: the Jacobian finds the kinematics, loads and near pairs there
/// in the workspace and needs no evaluation of its own, unless anything read another state
/// since (a root function, an output).
#[derive(Debug, Default)]
pub(super) struct LastEvaluation {
    t: f64,
    reads: u64,
    y: Vec<f64>,
    yp: Vec<f64>,
}

impl LastEvaluation {
    fn record(&mut self, t: f64, y: &[f64], yp: &[f64], workspace: &Workspace) {
        self.t = t;
        self.reads = workspace.reads;
        self.y.clear();
        self.y.extend_from_slice(y);
        self.yp.clear();
        self.yp.extend_from_slice(yp);
    }

    /// Whether `workspace` holds the evaluation at (t, y, ẏ), to the bit.
    fn holds(&self, t: f64, y: &[f64], yp: &[f64], workspace: &Workspace) -> bool {
        let same = |a: &[f64], b: &[f64]| {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits())
        };
        workspace.reads == self.reads
            && t.to_bits() == self.t.to_bits()
            && same(y, &self.y)
            && same(yp, &self.yp)
    }
}

impl MechanismDae {
    /// The zero-crossing functions of the contacts: one per collider, none without collision
    /// pairs; the end stops' follow them.
    pub(super) fn contact_root_count(&self) -> usize {
        let set = &self.mechanism.collisions;
        if set.has_pairs() {
            set.colliders.len()
        } else {
            0
        }
    }

    /// Writes the input signals' values at `t` into the flange inputs.
    pub(super) fn apply_inputs(&mut self, t: f64) {
        self.inputs.prescribe(&self.mechanism, t);
        for (signal, kind) in &self.signals {
            let value = signal.at(t);
            match *kind {
                VariableKind::JointForce(body) => self.inputs.force[body] = value,
                VariableKind::JointPosition(body) => self.inputs.motion[body].q = value,
                VariableKind::JointSpeed(body) => self.inputs.motion[body].qd = value,
                VariableKind::JointAcceleration(body) => self.inputs.motion[body].qdd = value,
                VariableKind::DriveInput(drive) => self.inputs.drive[drive] = value,
                VariableKind::Drive { .. }
                | VariableKind::Parameter(_)
                | VariableKind::Frame { .. }
                | VariableKind::JointReaction { .. }
                | VariableKind::Contact { .. }
                | VariableKind::CutJointPosition(..)
                | VariableKind::CutJointSpeed(..)
                | VariableKind::State(_)
                | VariableKind::StateDerivative(_) => {}
            }
        }
    }

    /// Fills the workspace (kinematics, drive forces) for the instant t with y, ẏ.
    pub(super) fn evaluate_at(&mut self, t: f64, y: &[f64], yp: &[f64]) {
        self.mechanism_residual(t, y, yp, None);
    }

    /// The mechanism's residual at t into `out` (`None`: into the scratch buffer), with the
    /// inputs applied for t; leaves the workspace filled for that instant. `y`, `ẏ` and `out`
    /// may be longer than the mechanism (padding): only its part is read and written.
    pub(super) fn mechanism_residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        out: Option<&mut [f64]>,
    ) {
        self.apply_inputs(t);
        let n = self.mechanism.len();
        let out = match out {
            Some(out) => &mut out[..n],
            None => &mut self.scratch[..n],
        };
        residual(
            &self.mechanism,
            &self.inputs,
            &mut self.workspace,
            &y[..n],
            &yp[..n],
            out,
        );
    }

    /// [`contacts::separation_time_bound`] at t from y, ẏ; infinite without collision pairs.
    pub(super) fn separation_time_bound(&mut self, t: f64, y: &[f64], yp: &[f64]) -> f64 {
        if !self.mechanism.collisions.has_pairs() {
            return f64::INFINITY;
        }
        self.apply_inputs(t);
        kinematics(&self.mechanism, &self.inputs, &mut self.workspace, y, yp);
        contacts::separation_time_bound(&self.mechanism, &self.workspace)
    }

    /// ẏ consistent with y (of the integrator's size: padded, see [`PADDING`]).
    pub(super) fn consistent_derivatives(
        &mut self,
        t: f64,
        y: &[f64],
    ) -> Result<Vec<f64>, SingularMassMatrix> {
        self.apply_inputs(t);
        let n = self.mechanism.len();
        let mut yp =
            consistent_derivatives(&self.mechanism, &self.inputs, &mut self.workspace, &y[..n])?;
        yp.resize(y.len(), 0.0);
        Ok(yp)
    }
}

impl MechanismDae {
    /// The residual at (t, y, ẏ) into `res`, the padding's included; an error when it is not
    /// finite.
    fn evaluate(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        self.mechanism_residual(t, y, yp, Some(res));
        let n = self.mechanism.len();
        for (r, p) in res[n..].iter_mut().zip(&yp[n..]) {
            *r = *p;
        }
        if res.iter().all(|r| r.is_finite()) {
            if self.jacobian_reads_last_evaluation() {
                self.last_evaluation.record(t, y, yp, &self.workspace);
            }
            Ok(())
        } else {
            Err(CallbackError::Recoverable(
                "the residual is not finite".into(),
            ))
        }
    }

    /// Whether the Jacobian of this system looks for the last evaluation in the workspace
    /// ([`LastEvaluation`]): the exact one and the grouped difference quotients do, IDA's own
    /// quotients and the articulated iteration do not. Each is taken out of `self` while it is
    /// formed, so the evaluations of its difference quotients, whose perturbed states it never
    /// asks for, are not recorded either.
    fn jacobian_reads_last_evaluation(&self) -> bool {
        self.exact.is_some() || self.branches.is_some()
    }

    /// Records the speed bands the contacts of the last evaluation lie inside, as those of the
    /// iteration matrix formed at `t`.
    fn record_jacobian_bands(&mut self, t: f64) {
        self.jacobian_time = t;
        self.band_exit_refused = false;
        self.jacobian_bands.fill(0);
        for &Penetrating { pair, bands } in &self.workspace.penetrating {
            if self.jacobian_bands.len() <= pair {
                self.jacobian_bands.resize(pair + 1, 0);
            }
            self.jacobian_bands[pair] = bands;
        }
    }

    /// Whether a contact of the last evaluation has left a friction band it lay inside where
    /// the iteration matrix was formed ([`crate::collision::response::speed_bands`]).
    fn left_a_jacobian_band(&self) -> bool {
        self.workspace
            .penetrating
            .iter()
            .any(|&Penetrating { pair, bands }| {
                let formed = self.jacobian_bands.get(pair).copied().unwrap_or(0);
                formed & !bands != 0
            })
    }
}

impl DaeSystem for MechanismDae {
    /// The residual. With an iteration matrix of the system's own, an evaluation at which a
    /// contact has left a friction band of its law that it lay inside where an earlier step
    /// formed the matrix is a recoverable failure: IDA retries with a smaller step and a new
    /// matrix. Inside the band the law's slope is its full value over the band, beyond it zero;
    /// a matrix that still holds the steep slope shrinks Newton's corrections by their ratio,
    /// and IDA took the iteration for converged where the equations did not hold (a rolling
    /// ball at `v_small` 0.1 mm/s and tolerance 1e-4 spun up and slipped at 1.7 m/s while its
    /// friction pushed the other way, `tests/tests/rolling_ball.rs`).
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        self.evaluate(t, y, yp, res)?;
        // A matrix formed at a later time was formed for an attempt at this step that failed:
        // IDA forms another for the shorter step.
        if t > self.jacobian_time && self.left_a_jacobian_band() {
            // The retry's first evaluation (its predictor) comes before IDA forms the new
            // matrix: it passes, once.
            if std::mem::take(&mut self.band_exit_refused) {
                return Ok(());
            }
            self.band_exit_refused = true;
            self.band_exits += 1;
            return Err(CallbackError::Recoverable(
                "a contact left the friction band its iteration matrix was formed in".into(),
            ));
        }
        Ok(())
    }

    /// One zero-crossing function per collider ([`contacts::crossing_functions`]), none
    /// without collision pairs, then one per joint with end stops ([`crate::model::EndStop::crossing`]).
    fn root_count(&self) -> usize {
        self.contact_root_count() + self.mechanism.end_stops().count()
    }

    /// The articulated iteration matrix's factors ([`ArticulatedIteration`]), the exact
    /// Jacobian ([`ExactJacobian`]), or grouped difference quotients ([`Branches`]); only set
    /// up when one of them is `Some`.
    fn jacobian(
        &mut self,
        t: f64,
        cj: f64,
        y: &[f64],
        yp: &[f64],
        res: &[f64],
        jac: &mut JacobianMatrix<'_>,
    ) -> Option<Result<(), CallbackError>> {
        if let JacobianMatrix::Factored(slot) = jac {
            self.articulated.as_ref()?;
            // The bodies' poses at y, which M is formed at.
            self.apply_inputs(t);
            kinematics(&self.mechanism, &self.inputs, &mut self.workspace, y, yp);
            let iteration = self.articulated.as_ref()?;
            **slot = iteration
                .factor(&self.mechanism, &self.workspace, cj, y.len())
                .map(|f| Box::new(f) as Box<dyn FactoredMatrix>);
            return Some(match slot {
                Some(_) => Ok(()),
                None => Err(CallbackError::Recoverable(
                    "an articulated inertia of the tree is singular".into(),
                )),
            });
        }
        if let Some(exact) = self.exact.take() {
            // The kinematics, loads and near pairs at (y, ẏ), which the matrix is formed at:
            // in the workspace as the Newton iteration's residual left them, or evaluated.
            let evaluated = if self.last_evaluation.holds(t, y, yp, &self.workspace) {
                Ok(())
            } else {
                let mut f = std::mem::take(&mut self.scratch);
                let evaluated = self.evaluate(t, y, yp, &mut f);
                self.scratch = f;
                self.jacobian_residuals += 1;
                evaluated
            };
            self.record_jacobian_bands(t);
            let formed = evaluated.map(|()| {
                exact.jacobian(
                    &self.mechanism,
                    &self.inputs,
                    &self.workspace,
                    y,
                    yp,
                    cj,
                    jac,
                )
            });
            self.exact = Some(exact);
            match formed {
                Ok(Ok(())) => return Some(Ok(())),
                Err(error) => return Some(Err(error)),
                // A pair without a derivative (or a block matrix for a tree): this mechanism
                // goes to the difference quotients.
                Ok(Err(_)) => self.exact = None,
            }
        }
        let branches = self.branches.take()?;
        // The kinematics and the contacts' speed bands at (y, ẏ), which the matrix is formed
        // at: as the Newton iteration's residual left them, or one evaluation, counted with
        // the quotients'.
        if !self.last_evaluation.holds(t, y, yp, &self.workspace) {
            self.mechanism_residual(t, y, yp, None);
            self.jacobian_residuals += 1;
        }
        self.record_jacobian_bands(t);
        let distances = contacts::near_distances(&self.mechanism, &mut self.workspace, false);
        let links = branches.contact_links(&self.mechanism, &self.workspace, &distances);
        let limits = branches.increment_limits(&self.mechanism, &self.workspace, &distances);
        let tolerance = self.tolerance;
        let result = branches.difference_quotients(
            &links,
            &limits,
            cj,
            tolerance,
            y,
            yp,
            res,
            jac,
            |y1, yp1, f| self.evaluate(t, y1, yp1, f),
        );
        self.branches = Some(branches);
        Some(result.map(|evaluations| self.jacobian_residuals += evaluations as u64))
    }

    fn roots(&mut self, t: f64, y: &[f64], yp: &[f64], g: &mut [f64]) -> Result<(), CallbackError> {
        self.apply_inputs(t);
        kinematics(&self.mechanism, &self.inputs, &mut self.workspace, y, yp);
        let (g_contacts, g_stops) = g.split_at_mut(self.contact_root_count().min(g.len()));
        if !g_contacts.is_empty() {
            let distances = contacts::near_distances(&self.mechanism, &mut self.workspace, false);
            contacts::crossing_functions(&self.mechanism, &self.workspace, &distances, g_contacts);
        }
        for ((k, stop), g) in self.mechanism.end_stops().zip(g_stops) {
            *g = match self.workspace.coordinates[k] {
                Some(JointCoordinates::Scalar(c)) => stop.crossing(c.q),
                _ => f64::NAN,
            };
        }
        if g.iter().all(|d| d.is_finite()) {
            Ok(())
        } else {
            Err(CallbackError::Recoverable(
                "a contact distance is not finite".into(),
            ))
        }
    }
}
