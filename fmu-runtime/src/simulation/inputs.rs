//! Input signals: each flange input a Taylor polynomial in time, set by the importer (values,
//! and derivatives where it interpolates), and whether a change forces the integrator to restart.

use super::*;

/// One flange input as a function of time: a Taylor polynomial about `t0`, so that a master
/// that provides input derivatives gets them interpolated inside its communication step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputSignal {
    /// Index of the input variable in the variable table.
    pub variable: usize,
    pub value: f64,
    /// First, second and third derivative at `t0`.
    pub derivatives: [f64; MAX_INPUT_DERIVATIVE_ORDER],
    pub t0: f64,
    /// The value was set to something other than what the previous polynomial gave.
    pub jumped: bool,
}

impl InputSignal {
    pub fn at(&self, t: f64) -> f64 {
        self.derivative_at(t, 0)
    }

    /// The `order`-th time derivative at `t` (0: the value) of the Taylor polynomial.
    fn derivative_at(&self, t: f64, order: usize) -> f64 {
        let dt = t - self.t0;
        let coefficients = std::iter::once(self.value).chain(self.derivatives);
        let mut term = 1.0;
        let mut sum = 0.0;
        for (k, c) in coefficients.skip(order).enumerate() {
            if k > 0 {
                term *= dt / k as f64;
            }
            sum += c * term;
        }
        sum
    }

    /// Whether this signal is, from `t` on, the same function of time as `other` (the same
    /// value and derivatives at `t`, bit for bit).
    fn same_function_from(&self, other: &InputSignal, t: f64) -> bool {
        (0..=MAX_INPUT_DERIVATIVE_ORDER)
            .all(|order| self.derivative_at(t, order) == other.derivative_at(t, order))
    }
}

impl Simulation {
    /// Sets an input variable (a joint's drive torque or prescribed motion) by its index, from
    /// now on constant until its derivatives are set.
    pub fn set_input(&mut self, index: usize, value: f64) -> Result<(), SimulationError> {
        let t = self.time();
        let tolerance = self.ida.system().tolerance;
        let signal = self.input_signal(index)?;
        let before = *signal;
        let old = signal.at(t);
        let jumped = signal.jumped || value != old;
        *signal = InputSignal {
            value,
            derivatives: [0.0; MAX_INPUT_DERIVATIVE_ORDER],
            t0: t,
            jumped,
            ..*signal
        };
        let changed = !signal.same_function_from(&before, t);
        self.inputs_changed |= changed;
        self.derivatives_stale |= self.model_exchange && changed;
        // A master that interpolates an input (its derivatives given next) keeps it continuous
        // up to its interpolation error, and the integrator keeps its history. A value that
        // jumps by more than the tolerance is a discontinuity all the same (the first value of
        // a run, a step in the master's signal): ẏ jumps with it, and steps that carried on
        // from the old ẏ fail their error test down to the smallest step at tight tolerances.
        self.restart_pending |=
            !self.model_exchange && (value - old).abs() > tolerance * value.abs().max(old.abs());
        Ok(())
    }

    /// Sets the `order`-th time derivative (1 ..= MAX_INPUT_DERIVATIVE_ORDER) of an input at the
    /// current time; the input is interpolated with it during the following steps.
    pub fn set_input_derivative(
        &mut self,
        index: usize,
        order: usize,
        value: f64,
    ) -> Result<(), SimulationError> {
        if !(1..=MAX_INPUT_DERIVATIVE_ORDER).contains(&order) {
            return Err(SimulationError::Usage(format!(
                "input derivatives of order {order} are not supported: orders 1 to {MAX_INPUT_DERIVATIVE_ORDER} are"
            )));
        }
        let t = self.time();
        let signal = self.input_signal(index)?;
        let before = *signal;
        if signal.t0 != t {
            // Re-expand about now, keeping the value the polynomial has reached.
            *signal = InputSignal {
                value: signal.at(t),
                derivatives: [0.0; MAX_INPUT_DERIVATIVE_ORDER],
                t0: t,
                ..*signal
            };
        }
        signal.derivatives[order - 1] = value;
        let changed = !signal.same_function_from(&before, t);
        self.inputs_changed |= changed;
        self.derivatives_stale |= self.model_exchange && changed;
        Ok(())
    }

    /// The current value of an input variable.
    pub fn input(&mut self, index: usize) -> Result<f64, SimulationError> {
        let t = self.time();
        Ok(self.input_signal(index)?.at(t))
    }

    pub(super) fn input_signal(
        &mut self,
        index: usize,
    ) -> Result<&mut InputSignal, SimulationError> {
        let name = self.variables.variables.get(index).map(|v| v.name.clone());
        self.ida
            .system_mut()
            .signals
            .iter_mut()
            .map(|(signal, _)| signal)
            .find(|signal| signal.variable == index)
            .ok_or_else(|| match name {
                Some(name) => SimulationError::Usage(format!("`{name}` is not an input")),
                None => SimulationError::Usage(format!("there is no variable with index {index}")),
            })
    }
}
