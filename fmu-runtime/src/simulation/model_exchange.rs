//! Model Exchange: the importer's integrator moves the states, the simulation evaluates.
//!
//! The continuous states x are the DAE's q and v (joints in super-object order, drive parts,
//! motor currents and controller integrators; [`crate::assembly::StateLayout`]); the integrals
//! of the loop multipliers (λ_int, μ_int) are not states here. ẋ is the explicit form of the
//! DAE: q̇ from the joints' kinematics (a free body's quaternion rate carries the same
//! norm-restoring term as in the DAE), v̇ from the mass-matrix equations with the loop
//! constraints on acceleration level: for a tree of rigid bodies in O(n) by the articulated-body
//! algorithm ([`crate::dynamics::explicit_derivatives`]), with loops or drive trains by the
//! solve of the Co-Simulation start (n_v + 1 evaluations and an LU of the unknowns). The closure
//! of a loop drifts in any explicit integration; here it is held by two means:
//!
//! - **Baumgarte's stabilisation** in ẋ: the acceleration rows are g̈ + 2a·ġ + a²·g = 0 with
//!   a = [`LOOP_STABILISATION_RATE`], so a drift decays instead of growing;
//! - **coordinate projection** at events: when a completed step leaves a closure error above the
//!   tolerance (or a closure speed that would carry it there within 1/a),
//!   [`Simulation::step_completed`] asks for an event, and
//!   [`Simulation::update_discrete_states`] moves q and v back onto g = 0, ġ = 0 (the smallest
//!   change, [`crate::dynamics::project_onto_loops`]) and reports the states changed.
//!
//! Contacts are events as in Co-Simulation: the event indicators are the root functions of the
//! DAE, one per collider ([`crate::dynamics::contacts::crossing_functions`]), and the update at
//! an event is the restart's ([`crate::dynamics::contacts::process_crossings`]): which pairs
//! started, ended, stuck or slipped. Every indicator is positive after the update.
//!
//! The integrator object ([`crate::ida::Ida`]) only holds the current t, x, ẋ here, so that every
//! output is read as in Co-Simulation.

use super::*;
use crate::assembly::StateLayout;
use crate::dynamics::{closure_drift, explicit_derivatives, project_onto_loops};

/// Baumgarte's rate [1/s] for the loop closure in the explicit form: a closure error decays
/// like e^(−a·t), critically damped. Fast against the motions of the shipped mechanisms
/// (periods of 0.1 s and more), slow enough not to make the equations stiff for an explicit
/// integrator at their steps.
pub const LOOP_STABILISATION_RATE: f64 = 20.0;

/// Whether a loop's closure error (position g, speed ġ) needs a projection: a position error
/// above the tolerance, or a speed error that would carry it there within the stabilisation's
/// time constant 1/a. Both relative to the size of the states, as the importer's error test is
/// (tolerance × (1 + |q|) for the coordinates, × (1 + |v|) for the speeds): an integrator held
/// to that error leaves closure errors of that order at every step, and Baumgarte's term keeps
/// the position error near ġ/a.
fn drifted(g: f64, gd: f64, tolerance: f64, layout: &StateLayout, y: &[f64]) -> bool {
    let largest =
        |range: std::ops::Range<usize>| y[range].iter().fold(0.0, |m: f64, x| m.max(x.abs()));
    let q = largest(0..layout.n_q);
    let v = largest(layout.n_q..layout.len());
    g > tolerance * (1.0 + q) || gd > LOOP_STABILISATION_RATE * tolerance * (1.0 + v)
}

/// What an event update did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiscreteUpdate {
    /// The continuous states were moved (a loop projected back onto its closure).
    pub states_changed: bool,
}

impl Simulation {
    /// Makes this simulation serve Model Exchange: from now on the importer sets the time and
    /// the states ([`Simulation::set_time`], [`Simulation::set_continuous_states`]), and every
    /// value read follows them.
    pub fn enter_model_exchange(&mut self) {
        self.model_exchange = true;
        self.derivatives_stale = true;
    }

    /// Number of continuous states of the explicit form (the DAE's q and v).
    pub fn continuous_state_count(&self) -> usize {
        self.mechanism().layout.len()
    }

    /// Number of event indicators: one per collider when the model has collision pairs.
    pub fn event_indicator_count(&self) -> usize {
        self.ida.system().root_count()
    }

    /// Sets the independent variable (Model Exchange).
    pub fn set_time(&mut self, t: f64) -> Result<(), SimulationError> {
        if !t.is_finite() {
            return Err(SimulationError::Usage(format!(
                "the time must be a finite number, not {t}"
            )));
        }
        self.ida.overwrite_solution(t, &[], None)?;
        self.derivatives_stale = true;
        Ok(())
    }

    /// Sets the continuous states x (Model Exchange); `x.len()` must be
    /// [`Simulation::continuous_state_count`].
    pub fn set_continuous_states(&mut self, x: &[f64]) -> Result<(), SimulationError> {
        let n = self.continuous_state_count();
        if x.len() != n {
            return Err(SimulationError::Usage(format!(
                "{} continuous states given, this model has {n}",
                x.len()
            )));
        }
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(SimulationError::Usage(format!(
                "continuous state {i} is {}, not a finite number",
                x[i]
            )));
        }
        self.ida.overwrite_solution(self.ida.t(), x, None)?;
        self.derivatives_stale = true;
        Ok(())
    }

    /// The continuous states x now.
    pub fn continuous_states(&self) -> &[f64] {
        &self.ida.y()[..self.continuous_state_count()]
    }

    /// ẋ at the time and states set, with the inputs set (Model Exchange).
    pub fn derivatives(&mut self) -> Result<&[f64], SimulationError> {
        self.settle_derivatives()?;
        Ok(&self.ida.yp()[..self.continuous_state_count()])
    }

    /// The event indicators at the time and states set, into `out`
    /// ([`Simulation::event_indicator_count`] of them).
    pub fn event_indicators(&mut self, out: &mut [f64]) -> Result<(), SimulationError> {
        let count = self.event_indicator_count();
        if out.len() != count {
            return Err(SimulationError::Usage(format!(
                "{} event indicators asked for, this model has {count}",
                out.len()
            )));
        }
        if count == 0 {
            return Ok(());
        }
        self.settle_derivatives()?;
        let t = self.ida.t();
        let (y, yp, dae) = self.ida.state_and_system_mut();
        dae.roots(t, y, yp, out).map_err(|e| {
            SimulationError::Usage(format!("at t = {t} s the event indicators fail: {e}"))
        })
    }

    /// The event update (Model Exchange, `fmi2NewDiscreteStates`): the contacts that started or
    /// ended and the pairs that stuck or slipped since the last update are processed, as at a
    /// restart in Co-Simulation; a loop whose closure drifted beyond the tolerance is projected
    /// back onto it.
    pub fn update_discrete_states(&mut self) -> Result<DiscreteUpdate, SimulationError> {
        let t = self.ida.t();
        let mut update = DiscreteUpdate::default();
        if self.closure_drifted() {
            let n = self.state_count();
            let mut exact = self.ida.y()[..n].to_vec();
            let dae = self.ida.system_mut();
            dae.apply_inputs(t);
            project_onto_loops(&dae.mechanism, &dae.inputs, &mut dae.workspace, &mut exact);
            self.ida.overwrite_solution(t, &exact, None)?;
            update.states_changed = true;
        }
        let (y, yp, dae) = self.ida.state_and_system_mut();
        dae.apply_inputs(t);
        kinematics(&dae.mechanism, &dae.inputs, &mut dae.workspace, y, yp);
        let crossings = contacts::process_crossings(&dae.mechanism, &mut dae.workspace);
        if crossings.starts + crossings.ends > 0 {
            self.events += 1;
            self.contact_starts += crossings.starts as u64;
        } else if crossings.switches > 0 {
            self.friction_events += 1;
        }
        self.derivatives_stale = true;
        Ok(update)
    }

    /// After an integrator step of the importer (`fmi2CompletedIntegratorStep`): whether an
    /// event is needed now, because a loop's closure drifted beyond the tolerance.
    pub fn step_completed(&mut self) -> bool {
        self.closure_drifted()
    }

    /// Whether the loops' closure at the current state needs a projection ([`drifted`]).
    fn closure_drifted(&mut self) -> bool {
        let (g, gd) = self.loop_closure();
        let n = self.state_count();
        let dae = self.ida.system();
        drifted(
            g,
            gd,
            dae.tolerance,
            &dae.mechanism.layout,
            &self.ida.y()[..n],
        )
    }

    /// The largest closure error of the kinematic loops at the current state: |g| (m, or the
    /// sine of an angle) and |ġ| (m/s, rad/s) over the constraint rows; zeros without loops.
    pub fn loop_closure(&mut self) -> (f64, f64) {
        if self.mechanism().rows.is_empty() {
            return (0.0, 0.0);
        }
        let t = self.ida.t();
        let n = self.state_count();
        let y = self.ida.y()[..n].to_vec();
        let dae = self.ida.system_mut();
        dae.apply_inputs(t);
        let closure = closure_drift(&dae.mechanism, &dae.inputs, &mut dae.workspace, &y);
        self.derivatives_stale |= self.model_exchange;
        closure
    }

    /// Makes ẋ (and the workspace) those of the time, states and inputs set, if they are not.
    pub(super) fn settle_derivatives(&mut self) -> Result<(), SimulationError> {
        if !self.derivatives_stale {
            return Ok(());
        }
        let t = self.ida.t();
        let y = self.ida.y().to_vec();
        let n = self.state_count();
        let dae = self.ida.system_mut();
        dae.apply_inputs(t);
        let mut yp = explicit_derivatives(
            &dae.mechanism,
            &dae.inputs,
            &mut dae.workspace,
            &y[..n],
            LOOP_STABILISATION_RATE,
        )
        .map_err(|_| {
            faster_than_light(&dae.mechanism, &dae.workspace, Some(t))
                .map(SimulationError::Usage)
                .unwrap_or_else(|| {
                    SimulationError::Usage(format!(
                        "at t = {t} s the accelerations cannot be solved for: the mass matrix \
                         is singular there (a joint moves a body without mass or inertia)"
                    ))
                })
        })?;
        yp.resize(y.len(), 0.0);
        for (signal, _) in &mut dae.signals {
            signal.jumped = false;
        }
        self.ida.overwrite_solution(t, &[], Some(&yp))?;
        self.derivatives_stale = false;
        Ok(())
    }
}
