//! Advancing in time: integrator steps that pass communication points, conservative advancement
//! against tunnelling, contact and stick–slip events, restarts, snapshots and their restore.

use super::*;

impl Simulation {
    /// Integrates to `t` (not before the current time).
    ///
    /// The integrator's steps do not stop at `t` when nothing forces them to: they pass it, the
    /// solution at `t` is interpolated (IDA's dense output, of the integration's own order), and
    /// the next call continues from the step that passed it. So a small output interval costs
    /// the outputs only, and the step sequence does not depend on where the outputs are taken
    /// (an `h` one ulp apart interpolates at another point of the same steps). What stops the
    /// steps: a contact event, the horizon of conservative advancement; and `t` itself when an
    /// input was set to another function of time before this call (a master that sets inputs at
    /// every point gets steps that end at each point, and none thrown away). An input set while
    /// the integrator is ahead restarts it at the current instant, as does a restored state or a
    /// snapshot.
    pub fn advance_to(&mut self, t: f64) -> Result<(), SimulationError> {
        let now = self.time();
        if t.is_nan() || t < now {
            return Err(SimulationError::Usage(format!(
                "cannot step to t = {t} s: the simulation is at t = {now} s"
            )));
        }
        if t == now {
            return Ok(());
        }
        // A piecewise-constant input that changed value is a discontinuity the integrator must
        // restart at. An input the master interpolates (derivatives given) is continuous up to
        // the interpolation error, and the integrator keeps its history, unless it has already
        // stepped past now with the input's old polynomial.
        let signals = &mut self.ida.system_mut().signals;
        let jumped = signals
            .iter()
            .any(|(s, _)| s.jumped && s.derivatives.iter().all(|d| *d == 0.0));
        signals.iter_mut().for_each(|(s, _)| s.jumped = false);
        let inputs_changed = std::mem::take(&mut self.inputs_changed);
        let ahead = self.ida.internal_time() > now;
        if self.restart_pending || jumped || (inputs_changed && ahead) {
            self.restart()?;
        }
        // Contact starts and ends are events located by the integrator's root finding; each
        // updates the contacts' discrete state and restarts the integrator at that instant.
        // The integrator is not let past the time within which a separated pair could pass
        // through each other (conservative advancement, from the state its steps reached), so
        // that no touch falls between two evaluations of the signed distances, whatever the
        // communication step.
        loop {
            let now = self.time();
            if now >= t {
                return Ok(());
            }
            let reached = self.ida.internal_time();
            let horizon = match self.horizon {
                Some(horizon) if horizon > reached => horizon,
                _ => reached + self.separation_time_bound_at_internal_time()?,
            };
            // A zero bound (cannot be estimated) leaves the root functions alone, as far as t.
            self.horizon = (horizon > reached).then_some(horizon);
            let mut tstop = self.horizon.unwrap_or(t);
            if inputs_changed {
                tstop = tstop.min(t);
            }
            // The work allowed grows with the time simulated, not with the number of calls:
            // one long communication step gets what the same time in short ones would.
            let intervals = ((tstop.min(t) - now) / self.interval).ceil().max(1.0);
            self.ida
                .set_max_num_steps(STEPS_PER_INTERVAL.saturating_mul(intervals as u64))?;
            let step = match self.ida.solve_toward(t, tstop) {
                Ok(step) => step,
                Err(error) => return Err(self.solver_failure(error)),
            };
            match step.kind {
                StepKind::Root(crossed) => {
                    let contacts = self.ida.system().contact_root_count();
                    let stop = crossed.iter().skip(contacts).any(|&c| c != 0);
                    self.contact_event(stop)?
                }
                StepKind::Reached if self.ida.internal_time() > t => {
                    self.interpolated_outputs += 1;
                }
                StepKind::Reached | StepKind::Stopped => {}
            }
        }
    }

    /// The time the integrator's steps have reached: [`Simulation::time`] or later, where the
    /// last step passed the communication point.
    pub fn integrated_to(&self) -> f64 {
        self.ida.internal_time()
    }

    /// How many communication points were served by interpolation in a step that passed them.
    pub fn interpolated_outputs(&self) -> u64 {
        self.interpolated_outputs
    }

    /// The integrator's failure, with the contacts at the instant it reached (named by their
    /// objects, with depth) and the settings that govern them.
    pub(super) fn solver_failure(&mut self, error: IdaError) -> SimulationError {
        let t = self.ida.t();
        let (y, yp, dae) = self.ida.state_and_system_mut();
        dae.apply_inputs(t);
        kinematics(&dae.mechanism, &dae.inputs, &mut dae.workspace, y, yp);
        let found = overlaps(&self.scene, &dae.mechanism, &mut dae.workspace);
        if found.is_empty() {
            return error.into();
        }
        let listed: Vec<String> = found.iter().take(3).map(Overlap::describe).collect();
        let more = match found.len() {
            n if n > 3 => format!(" and {} more pairs of objects", n - 3),
            _ => String::new(),
        };
        let v_small = found
            .iter()
            .map(|o| o.v_small)
            .fold(f64::INFINITY, f64::min);
        let context = format!(
            "at t = {t} s with {}{more} in contact (a stiff or chattering contact: loosen the \
             tolerance, now {:e}; raise the contact pair's `v_small`, now {v_small:e} m/s; or \
             check that no shapes are stuck inside each other)",
            listed.join(", "),
            dae.tolerance
        );
        SimulationError::Solver(Box::new(SolverFailure { error, context }))
    }

    /// How long from now no separated pair can pass through the other shape
    /// ([`contacts::separation_time_bound`]); infinite without collision pairs.
    pub fn separation_time_bound(&mut self) -> f64 {
        let t = self.ida.t();
        let (y, yp, dae) = self.ida.state_and_system_mut();
        dae.separation_time_bound(t, y, yp)
    }

    /// [`Simulation::separation_time_bound`] from the instant the integrator's last step
    /// reached (its solution there, from the dense output), which may lie after now.
    pub(super) fn separation_time_bound_at_internal_time(
        &mut self,
    ) -> Result<f64, SimulationError> {
        let reached = self.ida.internal_time();
        if reached == self.ida.t() || !self.ida.system().mechanism.collisions.has_pairs() {
            return Ok(self.separation_time_bound());
        }
        let mut y = vec![0.0; self.ida.size()];
        let mut yp = vec![0.0; self.ida.size()];
        self.ida.dense_output(reached, 0, &mut y)?;
        self.ida.dense_output(reached, 1, &mut yp)?;
        Ok(self
            .ida
            .system_mut()
            .separation_time_bound(reached, &y, &yp))
    }

    /// A contact starts (distance falling through zero) or ends (distance rising through zero),
    /// a pair sticks or slips, or a joint reaches or leaves an end stop (`stop`): the
    /// integrator restarts there, where the contact force's law changes
    /// ([`contacts::process_crossings`] finds which pairs changed).
    pub(super) fn contact_event(&mut self, stop: bool) -> Result<(), SimulationError> {
        let crossings = self.restart_with(true)?;
        if stop {
            self.stop_events += 1;
        }
        if crossings.starts + crossings.ends > 0 {
            self.events += 1;
            self.contact_starts += crossings.starts as u64;
        } else if !stop {
            self.friction_events += 1;
        }
        Ok(())
    }

    /// How many times the integrator located a joint reaching or leaving an end stop.
    pub fn stop_events(&self) -> u64 {
        self.stop_events
    }

    /// How many stick–slip events (a pair sticking or breaking away, alone at its instant) the
    /// integrator located.
    pub fn friction_events(&self) -> u64 {
        self.friction_events
    }

    /// How many contact events the integrator located.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// How many contacts started, counted per pair.
    pub fn contact_starts(&self) -> u64 {
        self.contact_starts
    }

    /// Restarts the integrator at the current instant with derivatives consistent with the
    /// current inputs: after an event or an input jump, or to make the future independent of
    /// the past steps (a restored state continues exactly as the original did). Every pair that
    /// changed since the last restart is processed here ([`contacts::process_crossings`]), so
    /// that every zero-crossing function starts positive.
    pub(super) fn restart(&mut self) -> Result<contacts::Crossings, SimulationError> {
        self.restart_with(false)
    }

    /// [`Simulation::restart`], after an event (`after_event`) or not.
    fn restart_with(&mut self, after_event: bool) -> Result<contacts::Crossings, SimulationError> {
        let t = self.ida.t();
        let y = self.ida.y().to_vec();
        let crossings = {
            let (y, yp, dae) = self.ida.state_and_system_mut();
            dae.apply_inputs(t);
            kinematics(&dae.mechanism, &dae.inputs, &mut dae.workspace, y, yp);
            contacts::process_crossings(&dae.mechanism, &mut dae.workspace)
        };
        let yp = match self.ida.system_mut().consistent_derivatives(t, &y) {
            Ok(yp) => yp,
            Err(_) => {
                // The kinematics at y are in the workspace (process_crossings above): name the
                // body that ran away, if one did.
                let dae = self.ida.system();
                let message = faster_than_light(&dae.mechanism, &dae.workspace, Some(t))
                    .unwrap_or_else(|| {
                        format!(
                            "at t = {t} s the accelerations cannot be solved for: the mass \
                             matrix is singular there (a joint moves a body without mass or \
                             inertia)"
                        )
                    });
                return Err(SimulationError::Usage(message));
            }
        };
        // After an event the motion goes on from the steps before (a contact's force starts
        // and ends at zero, a friction force changes its law, not the state): the first step
        // starts from the scale those steps had, instead of IDA's choice from scratch, which
        // is |yp|-bounded (tenths of a microsecond for a ball at metres per second) and costs
        // a dozen doubling steps per event. Every other restart starts from scratch, so that a
        // restored state (whose steps before are unknown) continues as the original did.
        let first_step = if after_event {
            self.ida.continuation_step(&yp)?
        } else {
            0.0
        };
        self.ida.reinit_with_first_step(t, &y, &yp, first_step)?;
        self.restart_pending = false;
        self.restarts += 1;
        self.horizon = None;
        Ok(crossings)
    }

    /// After a failed [`Simulation::advance_to`]: restarts the integrator at the last instant
    /// it reached, with derivatives consistent there, so that the simulation can be read or
    /// saved at that instant, and continued. Returns that instant.
    pub fn recover(&mut self) -> Result<f64, SimulationError> {
        self.restart()?;
        Ok(self.ida.t())
    }

    /// How often the integrator was restarted since the start.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Captures the current instant. The integrator is restarted here, so that continuing from
    /// this simulation and continuing from the snapshot restored later follow the same steps.
    /// In Model Exchange the instant is captured as it is (the importer's integrator owns the
    /// steps, and an event update is the importer's to call).
    pub fn snapshot(&mut self) -> Result<Snapshot, SimulationError> {
        if self.model_exchange {
            self.settle_derivatives()?;
        } else {
            self.restart()?;
        }
        Ok(Snapshot {
            t: self.ida.t(),
            y: self.ida.y().to_vec(),
            yp: self.ida.yp().to_vec(),
            signals: self.ida.system().signals.iter().map(|(s, _)| *s).collect(),
            frictions: self.ida.system().workspace.pairs.held_frictions(),
            contacts: self.ida.system().workspace.pairs.in_contact(),
            cut_angles: self.cut_angles.clone(),
        })
    }

    /// Puts the simulation back to a snapshot taken from a simulation of the same model.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), SimulationError> {
        // The integrator's size: a model without states has one padding entry.
        let size = self.ida.size();
        let dae = self.ida.system_mut();
        if snapshot.y.len() != size
            || snapshot.yp.len() != snapshot.y.len()
            || snapshot.signals.len() != dae.signals.len()
            || snapshot
                .frictions
                .iter()
                .any(|&((a, b), _)| dae.mechanism.collisions.pair(a, b).is_none())
            || snapshot.cut_angles.len() != self.cut_angles.len()
            || snapshot
                .contacts
                .iter()
                .any(|&(a, b)| dae.mechanism.collisions.pair(a, b).is_none())
            || snapshot
                .signals
                .iter()
                .zip(&dae.signals)
                .any(|(a, (b, _))| a.variable != b.variable)
        {
            return Err(SimulationError::Usage(
                "the saved state belongs to another model or another set of parameters".into(),
            ));
        }
        for ((signal, _), saved) in dae.signals.iter_mut().zip(&snapshot.signals) {
            *signal = *saved;
        }
        let table = &mut dae.workspace.pairs;
        table.frictions.fill(Default::default());
        for &((a, b), friction) in &snapshot.frictions {
            if let Some(id) = table.register(&dae.mechanism.collisions, a, b) {
                table.frictions[id] = friction;
            }
        }
        // The signs the snapshot's restart recorded, from its state.
        dae.apply_inputs(snapshot.t);
        kinematics(
            &dae.mechanism,
            &dae.inputs,
            &mut dae.workspace,
            &snapshot.y,
            &snapshot.yp,
        );
        let distances = contacts::near_distances(&dae.mechanism, &mut dae.workspace, false);
        // Every side from scratch: the restored state's own, as its restart recorded them
        // (a contact held across a gap from the list of contacts).
        let table = &mut dae.workspace.pairs;
        table.sides.fill(contacts::Sides::default());
        table.marked.clear();
        for &(a, b) in &snapshot.contacts {
            if let Some(id) = table.register(&dae.mechanism.collisions, a, b) {
                table.sides[id].distance = -1;
            }
        }
        contacts::record_sides(&dae.mechanism, &mut dae.workspace, &distances);
        self.cut_angles.clone_from(&snapshot.cut_angles);
        self.ida.reinit(snapshot.t, &snapshot.y, &snapshot.yp)?;
        self.restart_pending = false;
        self.restarts += 1;
        self.horizon = None;
        self.derivatives_stale = self.model_exchange;
        Ok(())
    }
}
