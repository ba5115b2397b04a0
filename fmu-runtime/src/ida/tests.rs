//! Tests of the IDA wrapper against analytic solutions.

use super::*;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const G: f64 = 9.81;

fn rel_err(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

fn tight() -> IdaOptions {
    IdaOptions {
        rtol: 1e-8,
        atol: AbsTolerance::Scalar(1e-12),
        ..IdaOptions::default()
    }
}

/// `y' = -k y` as `yp + k y = 0`.
struct Decay {
    k: f64,
    jacobian: bool,
}

impl DaeSystem for Decay {
    fn residual(
        &mut self,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        res[0] = yp[0] + self.k * y[0];
        Ok(())
    }

    fn jacobian(
        &mut self,
        _t: f64,
        cj: f64,
        _y: &[f64],
        _yp: &[f64],
        _res: &[f64],
        jac: &mut JacobianMatrix<'_>,
    ) -> Option<Result<(), CallbackError>> {
        if !self.jacobian {
            return None;
        }
        let JacobianMatrix::Dense(jac) = jac else {
            return Some(Err(CallbackError::Fatal("a dense matrix expected".into())));
        };
        jac.set(0, 0, cj + self.k);
        Some(Ok(()))
    }
}

fn decay(k: f64) -> Decay {
    Decay { k, jacobian: false }
}

#[test]
fn version_is_seven() {
    assert!(
        sundials_version().starts_with("7."),
        "{}",
        sundials_version()
    );
}

#[test]
fn exponential_decay_matches_analytic_solution() -> TestResult {
    let k = 2.0;
    let mut ida = Ida::new(decay(k), 0.0, &[1.0], &[-k], &tight())?;
    let step = ida.solve_to(0.5)?;
    assert_eq!(
        step,
        Step {
            t: 0.5,
            kind: StepKind::Reached
        }
    );
    let s1 = ida.stats();
    let step = ida.solve_to(1.0)?;
    assert_eq!(step.t, 1.0);
    assert_eq!(ida.t(), 1.0);
    let exact = (-k * 1.0_f64).exp();
    assert!(
        rel_err(ida.y()[0], exact) < 1e-6,
        "{} vs {exact}",
        ida.y()[0]
    );
    assert!(rel_err(ida.yp()[0], -k * exact) < 1e-5);
    let s2 = ida.stats();
    for s in [&s1, &s2] {
        assert!(s.steps > 0);
        assert!(s.residual_evals > 0);
        assert!(s.jacobian_evals > 0);
        assert!(
            s.jacobian_residual_evals > 0,
            "difference-quotient Jacobian"
        );
        assert!(s.linear_setups > 0);
        assert!(s.nonlinear_iterations > 0);
        assert!(s.last_step > 0.0);
        assert!(s.last_order >= 1);
    }
    assert!(s2.steps > s1.steps);
    assert!(s2.residual_evals > s1.residual_evals);
    assert!(s2.nonlinear_iterations > s1.nonlinear_iterations);
    assert_eq!(
        s2.total_residual_evals(),
        s2.residual_evals + s2.jacobian_residual_evals
    );
    Ok(())
}

#[test]
fn user_jacobian_is_used() -> TestResult {
    let k = 3.0;
    let options = IdaOptions {
        user_jacobian: true,
        ..tight()
    };
    let system = Decay { k, jacobian: true };
    let mut ida = Ida::new(system, 0.0, &[1.0], &[-k], &options)?;
    ida.solve_to(1.0)?;
    assert!(rel_err(ida.y()[0], (-k).exp()) < 1e-6);
    let s = ida.stats();
    assert!(s.jacobian_evals > 0);
    assert_eq!(s.jacobian_residual_evals, 0);
    Ok(())
}

#[test]
fn missing_user_jacobian_is_a_fatal_callback_error() -> TestResult {
    let options = IdaOptions {
        user_jacobian: true,
        ..tight()
    };
    let mut ida = Ida::new(decay(1.0), 0.0, &[1.0], &[-1.0], &options)?;
    let err = ida.solve_to(1.0).err();
    assert!(
        matches!(
            &err,
            Some(IdaError::Callback { callback: CallbackKind::Jacobian, message, .. })
                if message.contains("returned None")
        ),
        "{err:?}"
    );
    Ok(())
}

/// `x'' = -x` as the implicit ODE `x' - v = 0`, `v' + x = 0`.
struct Oscillator;

impl DaeSystem for Oscillator {
    fn residual(
        &mut self,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        res[0] = yp[0] - y[1];
        res[1] = yp[1] + y[0];
        Ok(())
    }
}

#[test]
fn harmonic_oscillator_follows_cosine() -> TestResult {
    let options = IdaOptions {
        rtol: 1e-10,
        atol: AbsTolerance::Vector(vec![1e-12, 1e-12]),
        max_num_steps: Some(100_000),
        ..IdaOptions::default()
    };
    let mut ida = Ida::new(Oscillator, 0.0, &[1.0, 0.0], &[0.0, -1.0], &options)?;
    ida.solve_to(10.0)?;
    let (x, v) = (ida.y()[0], ida.y()[1]);
    assert!((x - 10.0_f64.cos()).abs() < 1e-6, "x = {x}");
    assert!((v + 10.0_f64.sin()).abs() < 1e-6, "v = {v}");
    assert!((x * x + v * v - 1.0).abs() < 1e-6, "energy drift");

    // Dense output inside the last step.
    let s = ida.stats();
    let tm = 10.0 - 0.5 * s.last_step;
    let mut out = [0.0; 2];
    ida.dense_output(tm, 0, &mut out)?;
    assert!((out[0] - tm.cos()).abs() < 1e-6);
    ida.dense_output(tm, 1, &mut out)?;
    assert!((out[0] + tm.sin()).abs() < 1e-5);
    // Outside the last step: a typed error, not a panic.
    let err = ida.dense_output(0.0, 0, &mut out).err();
    assert_eq!(err.as_ref().and_then(IdaError::flag), Some(-26), "{err:?}");
    let err = ida.dense_output(tm, 0, &mut [0.0; 3]).err();
    assert!(matches!(err, Some(IdaError::InvalidInput { .. })));
    Ok(())
}

/// `y1' = -y2`, `0 = y2 - y1`: `y1 = y2 = exp(-t)`.
struct SemiExplicit;

impl DaeSystem for SemiExplicit {
    fn residual(
        &mut self,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        res[0] = yp[0] + y[1];
        res[1] = y[1] - y[0];
        Ok(())
    }
}

#[test]
fn calc_ic_repairs_inconsistent_index1_dae() -> TestResult {
    let options = IdaOptions {
        differential: Some(vec![true, false]),
        suppress_algebraic: true,
        ..tight()
    };
    // y2 and y1' both inconsistent.
    let mut ida = Ida::new(SemiExplicit, 0.0, &[1.0, 0.5], &[0.0, 0.0], &options)?;
    ida.calc_ic(InitialCondition::AlgebraicAndDerivatives, 0.1)?;
    assert_eq!(ida.y()[0], 1.0, "differential component untouched");
    assert!((ida.y()[1] - 1.0).abs() < 1e-8, "y2 = {}", ida.y()[1]);
    assert!((ida.yp()[0] + 1.0).abs() < 1e-8, "y1' = {}", ida.yp()[0]);
    let before = ida.stats();
    assert!(before.residual_evals > 0);
    ida.solve_to(1.0)?;
    let e = (-1.0_f64).exp();
    assert!(rel_err(ida.y()[0], e) < 1e-6);
    assert!(rel_err(ida.y()[1], e) < 1e-6);
    let after = ida.stats();
    assert!(after.jacobian_evals >= before.jacobian_evals);
    assert!(after.residual_evals > before.residual_evals);
    Ok(())
}

#[test]
fn calc_ic_ya_ydp_needs_differential() -> TestResult {
    let mut ida = Ida::new(SemiExplicit, 0.0, &[1.0, 0.5], &[0.0, 0.0], &tight())?;
    let err = ida
        .calc_ic(InitialCondition::AlgebraicAndDerivatives, 0.1)
        .err();
    assert_eq!(err.as_ref().and_then(IdaError::flag), Some(-22), "{err:?}");
    assert!(err
        .map(|e| e.to_string())
        .unwrap_or_default()
        .contains("IDA_ILL_INPUT"));
    Ok(())
}

/// A ball in free fall: `h' = v`, `v' = -g`; root `g = h`.
struct Ball;

impl DaeSystem for Ball {
    fn residual(
        &mut self,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        res[0] = yp[0] - y[1];
        res[1] = yp[1] + G;
        Ok(())
    }

    fn root_count(&self) -> usize {
        1
    }

    fn roots(
        &mut self,
        _t: f64,
        y: &[f64],
        _yp: &[f64],
        g: &mut [f64],
    ) -> Result<(), CallbackError> {
        g[0] = y[0];
        Ok(())
    }
}

/// The ball's second flight, restarted from scratch or at the scale of the steps before the
/// bounce ([`Ida::continuation_step`]): the same touchdown (the analytic 3·t_hit), fewer steps
/// with the continuation, and no continuation where the steps before were tiny.
#[test]
fn a_restart_after_an_event_continues_at_the_scale_of_the_steps_before() -> TestResult {
    let options = IdaOptions {
        rtol: 1e-8,
        atol: AbsTolerance::Scalar(1e-10),
        ..IdaOptions::default()
    };
    let t_hit = (2.0 / G).sqrt();
    let second_flight = |continue_steps: bool| -> Result<(f64, u64, f64), IdaError> {
        let mut ida = Ida::new(Ball, 0.0, &[1.0, 0.0], &[0.0, -G], &options)?;
        let bounce = ida.solve_to(2.0)?.t;
        let v = -ida.y()[1];
        let before = ida.stats();
        let yp = [v, -G];
        let first_step = match continue_steps {
            true => ida.continuation_step(&yp)?,
            false => 0.0,
        };
        ida.reinit_with_first_step(bounce, &[0.0, v], &yp, first_step)?;
        let landing = ida.solve_to(2.0)?.t;
        let steps = ida.stats().steps - before.steps;
        if continue_steps {
            assert_eq!(first_step, solver::RESTART_STEP_FRACTION * before.last_step);
        }
        Ok((landing, steps, first_step))
    };
    let (plain_landing, plain_steps, _) = second_flight(false)?;
    let (landing, steps, first_step) = second_flight(true)?;
    println!(
        "second landing from scratch {:.1e} s off in {plain_steps} steps, continued (first \
         step {first_step:.2e} s) {:.1e} s off in {steps} steps",
        plain_landing - 3.0 * t_hit,
        landing - 3.0 * t_hit
    );
    // Free flight is a parabola, which IDA's polynomials hold exactly from scratch; the
    // continued flight starts at order one, within the tolerance.
    assert!((plain_landing - 3.0 * t_hit).abs() < 1e-12);
    assert!((landing - 3.0 * t_hit).abs() < 1e-10);
    assert!(steps < plain_steps, "{steps} against {plain_steps}");

    // Steps of a microsecond before, where IDA's own choice (0.5 / |yp| = 0.14 ms at these
    // tolerances) is larger: it is left to IDA.
    let tiny = IdaOptions {
        rtol: 1e-3,
        atol: AbsTolerance::Scalar(1e-3),
        max_step: Some(1e-6),
        ..options
    };
    let mut ida = Ida::new(Ball, 0.0, &[1.0, 0.0], &[0.0, -G], &tiny)?;
    ida.solve_toward(1e-4, 1e-4)?;
    assert_eq!(ida.continuation_step(&[-1.0, -G])?, 0.0);
    Ok(())
}

#[test]
fn bouncing_ball_root_and_reinit() -> TestResult {
    let options = IdaOptions {
        rtol: 1e-10,
        atol: AbsTolerance::Scalar(1e-12),
        ..IdaOptions::default()
    };
    let mut ida = Ida::new(Ball, 0.0, &[1.0, 0.0], &[0.0, -G], &options)?;
    let t_hit = (2.0 / G).sqrt();
    let step = ida.solve_to(2.0)?;
    assert_eq!(step.kind, StepKind::Root(vec![-1]));
    assert!((step.t - t_hit).abs() < 1e-9, "{} vs {t_hit}", step.t);
    assert!(ida.y()[0].abs() < 1e-9);
    let v = ida.y()[1];
    assert!((v + G * t_hit).abs() < 1e-8);
    let before = ida.stats();

    // Elastic bounce: reverse the velocity on the ground and continue.
    ida.reinit(step.t, &[0.0, -v], &[-v, -G])?;
    let after_reinit = ida.stats();
    assert_eq!(
        after_reinit.steps, before.steps,
        "totals kept across reinit"
    );
    assert_eq!(after_reinit.reinits, 1);
    let step = ida.solve_to(2.0)?;
    assert_eq!(step.kind, StepKind::Root(vec![-1]));
    assert!(
        (step.t - 3.0 * t_hit).abs() < 1e-9,
        "{} vs {}",
        step.t,
        3.0 * t_hit
    );
    let after = ida.stats();
    assert!(after.steps > before.steps);
    assert!(after.root_evals > before.root_evals);

    // Only rising crossings: none before 2.0 now that the ball keeps falling.
    ida.set_root_directions(&[1])?;
    let step = ida.solve_to(2.0)?;
    assert_eq!(
        step,
        Step {
            t: 2.0,
            kind: StepKind::Reached
        }
    );
    let h = 1.0 - 0.5 * G * (2.0 - 2.0 * t_hit).powi(2);
    assert!((ida.y()[0] - h).abs() < 1e-7);
    Ok(())
}

/// Outputs every millisecond of a falling ball whose steps grow far beyond them (a parabola, which
/// BDF integrates exactly): each output is the parabola's point, the impact is found at the
/// same instant and after the same internal steps and root evaluations as in one call to 2 s
/// (the root functions are evaluated at the steps' ends only, and a root in a step that passed
/// an output is kept for the call that reaches it).
#[test]
fn outputs_between_steps_leave_the_roots_and_steps_alone() -> TestResult {
    let options = IdaOptions {
        rtol: 1e-8,
        atol: AbsTolerance::Scalar(1e-10),
        ..IdaOptions::default()
    };
    let t_hit = (2.0 / G).sqrt();
    let mut one_call = Ida::new(Ball, 0.0, &[1.0, 0.0], &[0.0, -G], &options)?;
    let root = one_call.solve_toward(2.0, f64::INFINITY)?;
    let mut outputs = Ida::new(Ball, 0.0, &[1.0, 0.0], &[0.0, -G], &options)?;
    let (mut reached, mut worst) = (0, 0.0f64);
    let mut k = 1;
    let found = loop {
        let t = 0.001 * f64::from(k);
        let step = outputs.solve_toward(t, f64::INFINITY)?;
        match step.kind {
            StepKind::Reached => {
                assert_eq!(step.t, t);
                worst = worst.max((outputs.y()[0] - (1.0 - 0.5 * G * t * t)).abs());
                worst = worst.max((outputs.y()[1] + G * t).abs());
                reached += 1;
                k += 1;
            }
            StepKind::Root(_) => {
                // Not beyond the time asked for.
                assert!(step.t <= t, "a root at {} returned for {t}", step.t);
                break step;
            }
            StepKind::Stopped => return Err("stopped without a stop time".into()),
        }
    };
    let (a, b) = (one_call.stats(), outputs.stats());
    eprintln!(
        "{reached} outputs within {worst:.1e} of the parabola; impact at {} (one call {}, \
         closed form {t_hit}); {} steps and {} root evaluations (one call {}, {})",
        found.t, root.t, b.steps, b.root_evals, a.steps, a.root_evals
    );
    assert_eq!(reached, 451);
    assert!(worst < 1e-13, "{worst:e}");
    assert_eq!(found, root);
    assert!((found.t - t_hit).abs() < 1e-9);
    assert!(b.steps < 100, "the steps pass the outputs: {}", b.steps);
    assert_eq!((b.steps, b.root_evals), (a.steps, a.root_evals));
    Ok(())
}

#[test]
fn roots_can_be_switched_off() -> TestResult {
    let mut ida = Ida::new(Ball, 0.0, &[1.0, 0.0], &[0.0, -G], &tight())?;
    ida.set_roots_active(false)?;
    assert!(!ida.roots_active());
    assert_eq!(ida.solve_to(1.0)?.kind, StepKind::Reached);
    assert!((ida.y()[0] - (1.0 - 0.5 * G)).abs() < 1e-6);
    ida.set_roots_active(true)?;
    ida.reinit(0.0, &[1.0, 0.0], &[0.0, -G])?;
    assert!(matches!(ida.solve_to(1.0)?.kind, StepKind::Root(_)));
    Ok(())
}

/// Decay whose residual misbehaves after `after` or on one call.
struct Faulty {
    mode: Fault,
    calls: usize,
    failed: usize,
}

#[derive(Clone, Copy)]
enum Fault {
    Panic,
    Fatal,
    RecoverableOnce,
    RecoverableAlways,
}

impl DaeSystem for Faulty {
    // The panic test needs a residual that really panics.
    #[allow(clippy::panic)]
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        self.calls += 1;
        if t > 0.5 || (self.failed > 0 && matches!(self.mode, Fault::RecoverableAlways)) {
            match self.mode {
                Fault::Panic => std::panic::panic_any("contact table corrupted"),
                Fault::Fatal => {
                    return Err(CallbackError::Fatal(
                        "penetration 0.3 m at contact 2".into(),
                    ))
                }
                Fault::RecoverableOnce if self.failed == 0 => {
                    self.failed += 1;
                    res[0] = f64::NAN;
                    return Err(CallbackError::Recoverable("NaN in contact force".into()));
                }
                Fault::RecoverableAlways => {
                    self.failed += 1;
                    return Err(CallbackError::Recoverable("NaN in contact force".into()));
                }
                Fault::RecoverableOnce => {}
            }
        }
        res[0] = yp[0] + y[0];
        Ok(())
    }
}

fn faulty(mode: Fault) -> Result<Ida<Faulty>, IdaError> {
    let system = Faulty {
        mode,
        calls: 0,
        failed: 0,
    };
    Ida::new(system, 0.0, &[1.0], &[-1.0], &tight())
}

#[test]
fn panicking_residual_becomes_an_error() -> TestResult {
    let mut ida = faulty(Fault::Panic)?;
    let err = ida.solve_to(1.0).err();
    match &err {
        Some(IdaError::Callback {
            callback,
            message,
            recoverable,
            time,
            ..
        }) => {
            assert_eq!(*callback, CallbackKind::Residual);
            assert!(message.contains("contact table corrupted"), "{message}");
            assert!(!recoverable);
            assert!(*time > 0.5);
        }
        other => return Err(format!("unexpected outcome: {other:?}").into()),
    }
    assert!(ida.t() <= 0.5 + 1e-12, "no solution past the failure");
    Ok(())
}

#[test]
fn recoverable_error_once_is_cured_by_a_smaller_step() -> TestResult {
    let mut ida = faulty(Fault::RecoverableOnce)?;
    ida.solve_to(1.0)?;
    assert_eq!(ida.system().failed, 1);
    assert!(rel_err(ida.y()[0], (-1.0_f64).exp()) < 1e-6);
    assert!(ida.stats().nonlinear_conv_failures >= 1);
    ida.system_mut().calls = 0;
    assert_eq!(ida.system().calls, 0);
    Ok(())
}

#[test]
fn repeated_recoverable_errors_reach_the_caller() -> TestResult {
    let mut ida = faulty(Fault::RecoverableAlways)?;
    let err = ida.solve_to(1.0).err();
    assert!(
        matches!(
            &err,
            Some(IdaError::Callback { recoverable: true, message, .. })
                if message == "NaN in contact force"
        ),
        "{err:?}"
    );
    assert!(ida.system().failed > 1);
    Ok(())
}

#[test]
fn fatal_residual_error_reaches_the_caller() -> TestResult {
    let mut ida = faulty(Fault::Fatal)?;
    let err = ida.solve_to(1.0).err();
    match &err {
        Some(e @ IdaError::Callback { name, message, .. }) => {
            assert_eq!(message, "penetration 0.3 m at contact 2");
            assert_eq!(name, "IDA_RES_FAIL");
            assert_eq!(e.callback_message(), Some(message.as_str()));
            assert!(e.to_string().contains("penetration 0.3 m"), "{e}");
        }
        other => return Err(format!("unexpected outcome: {other:?}").into()),
    }
    Ok(())
}

#[test]
fn sizes_are_checked() {
    let e = Ida::new(decay(1.0), 0.0, &[1.0], &[1.0, 2.0], &tight()).err();
    assert!(matches!(e, Some(IdaError::InvalidInput { .. })), "{e:?}");
    let e = Ida::new(decay(1.0), 0.0, &[], &[], &tight()).err();
    assert!(matches!(e, Some(IdaError::InvalidInput { .. })), "{e:?}");
    let opts = IdaOptions {
        atol: AbsTolerance::Vector(vec![1e-8, 1e-8]),
        ..tight()
    };
    let e = Ida::new(decay(1.0), 0.0, &[1.0], &[-1.0], &opts).err();
    assert!(matches!(e, Some(IdaError::InvalidInput { .. })), "{e:?}");
    let opts = IdaOptions {
        root_directions: Some(vec![1, 1]),
        ..tight()
    };
    let e = Ida::new(Ball, 0.0, &[1.0, 0.0], &[0.0, -G], &opts).err();
    assert!(matches!(e, Some(IdaError::InvalidInput { .. })), "{e:?}");
    if let Ok(mut ida) = Ida::new(decay(1.0), 0.0, &[1.0], &[-1.0], &tight()) {
        let e = ida.reinit(0.0, &[1.0, 2.0], &[0.0]).err();
        assert!(matches!(e, Some(IdaError::InvalidInput { .. })), "{e:?}");
    }
}

#[test]
fn too_much_work_is_reported_with_advice() -> TestResult {
    let options = IdaOptions {
        max_num_steps: Some(3),
        ..tight()
    };
    let mut ida = Ida::new(Oscillator, 0.0, &[1.0, 0.0], &[0.0, -1.0], &options)?;
    let err = ida.solve_to(100.0).err();
    assert_eq!(err.as_ref().and_then(IdaError::flag), Some(-1));
    let text = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        text.contains("IDA_TOO_MUCH_WORK") && text.contains("step budget"),
        "{text}"
    );
    let t1 = ida.t();
    assert!(t1 > 0.0 && t1 < 100.0);
    // The solver continues from where it stopped.
    let again = ida.solve_to(100.0).err();
    assert_eq!(again.as_ref().and_then(IdaError::flag), Some(-1));
    assert!(ida.t() > t1);
    Ok(())
}

#[test]
fn solvers_run_independently_on_two_threads() -> TestResult {
    fn assert_send<T: Send>(_: &T) {}
    let a = Ida::new(decay(1.0), 0.0, &[1.0], &[-1.0], &tight())?;
    let b = Ida::new(Oscillator, 0.0, &[1.0, 0.0], &[0.0, -1.0], &tight())?;
    assert_send(&a);
    let ha = std::thread::spawn(move || {
        let mut a = a;
        let mut out = Vec::new();
        for i in 1..=20 {
            a.solve_to(f64::from(i) * 0.1).map(|_| out.push(a.y()[0]))?;
        }
        Ok::<_, IdaError>(out)
    });
    let hb = std::thread::spawn(move || {
        let mut b = b;
        let mut out = Vec::new();
        for i in 1..=20 {
            b.solve_to(f64::from(i) * 0.1).map(|_| out.push(b.y()[0]))?;
        }
        Ok::<_, IdaError>(out)
    });
    let ra = ha.join().map_err(|_| "thread a panicked")??;
    let rb = hb.join().map_err(|_| "thread b panicked")??;
    for (i, (ya, yb)) in ra.iter().zip(&rb).enumerate() {
        let t = (i + 1) as f64 * 0.1;
        assert!(rel_err(*ya, (-t).exp()) < 1e-6, "t = {t}: {ya}");
        assert!((yb - t.cos()).abs() < 1e-6, "t = {t}: {yb}");
    }
    Ok(())
}

#[test]
fn calc_ic_y_init_computes_y_from_yp() -> TestResult {
    let mut ida = Ida::new(SemiExplicit, 0.0, &[0.7, 0.2], &[-1.0, 0.0], &tight())?;
    ida.calc_ic(InitialCondition::AllY, 0.1)?;
    assert!((ida.y()[0] - 1.0).abs() < 1e-8, "y1 = {}", ida.y()[0]);
    assert!((ida.y()[1] - 1.0).abs() < 1e-8, "y2 = {}", ida.y()[1]);
    ida.solve_to(0.5)?;
    assert!(rel_err(ida.y()[0], (-0.5_f64).exp()) < 1e-6);
    Ok(())
}

/// A ball whose root function fails once the ball is below 0.5 m.
struct BadRoots;

impl DaeSystem for BadRoots {
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        Ball.residual(t, y, yp, res)
    }

    fn root_count(&self) -> usize {
        2
    }

    fn roots(
        &mut self,
        _t: f64,
        y: &[f64],
        _yp: &[f64],
        g: &mut [f64],
    ) -> Result<(), CallbackError> {
        if y[0] < 0.5 {
            return Err(CallbackError::Fatal("contact search failed".into()));
        }
        g[0] = y[0];
        g[1] = y[0] + 1.0;
        Ok(())
    }
}

#[test]
fn root_function_error_reaches_the_caller() -> TestResult {
    let mut ida = Ida::new(BadRoots, 0.0, &[1.0, 0.0], &[0.0, -G], &tight())?;
    let err = ida.solve_to(1.0).err();
    assert!(
        matches!(
            &err,
            Some(IdaError::Callback { callback: CallbackKind::Roots, name, message, .. })
                if message == "contact search failed" && name == "IDA_RTFUNC_FAIL"
        ),
        "{err:?}"
    );
    Ok(())
}

/// Two unit masses joined by a spring of stiffness k, each with its (x, v) as one group of the
/// block solver: x₁ − x₂ oscillates as cos(√(2k)·t), the centre of mass drifts at its start
/// speed. The iteration matrix is given as blocks (2 × 2 diagonal blocks and the coupling
/// blocks of the spring).
struct TwoMasses {
    k: f64,
}

impl DaeSystem for TwoMasses {
    fn residual(
        &mut self,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        // y = [x1, v1, x2, v2] in the order [x1, x2, v1, v2] to make the groups non-contiguous.
        let (x1, x2, v1, v2) = (y[0], y[1], y[2], y[3]);
        res[0] = yp[0] - v1;
        res[1] = yp[1] - v2;
        res[2] = yp[2] + self.k * (x1 - x2);
        res[3] = yp[3] + self.k * (x2 - x1);
        Ok(())
    }

    fn jacobian(
        &mut self,
        _t: f64,
        cj: f64,
        _y: &[f64],
        _yp: &[f64],
        _res: &[f64],
        jac: &mut JacobianMatrix<'_>,
    ) -> Option<Result<(), CallbackError>> {
        let JacobianMatrix::Blocks(matrix) = jac else {
            return Some(Err(CallbackError::Fatal("a block matrix expected".into())));
        };
        let Some(blocks) = crate::linalg::BlockMatrix::new(vec![vec![0, 2], vec![1, 3]], &[(0, 1)])
        else {
            return Some(Err(CallbackError::Fatal("bad groups".into())));
        };
        **matrix = blocks;
        let k = self.k;
        let dense = [
            [cj, 0.0, -1.0, 0.0],
            [0.0, cj, 0.0, -1.0],
            [k, -k, cj, 0.0],
            [-k, k, 0.0, cj],
        ];
        for (col, _) in dense.iter().enumerate() {
            matrix.set_column(col, |row| dense[row][col]);
        }
        Some(Ok(()))
    }
}

#[test]
fn block_solver_follows_two_coupled_masses() -> TestResult {
    let k = 3.0;
    let options = IdaOptions {
        user_jacobian: true,
        linear_solver: LinearSolverKind::Blocks,
        ..tight()
    };
    // x1 = 0.1, x2 = −0.1, v1 = v2 = 0.5: x1 − x2 = 0.2·cos(ωt), centre at 0.5·t.
    let y0 = [0.1, -0.1, 0.5, 0.5];
    let yp0 = [0.5, 0.5, -k * 0.2, k * 0.2];
    let mut ida = Ida::new(TwoMasses { k }, 0.0, &y0, &yp0, &options)?;
    let omega = (2.0 * k).sqrt();
    let mut worst: f64 = 0.0;
    for i in 1..=20 {
        let t = 0.25 * i as f64;
        ida.solve_to(t)?;
        let y = ida.y();
        let relative = y[0] - y[1];
        let centre = 0.5 * (y[0] + y[1]);
        worst = worst
            .max((relative - 0.2 * (omega * t).cos()).abs())
            .max((centre - 0.5 * t).abs());
    }
    println!("largest error against the closed form: {worst:.2e}");
    assert!(worst < 2e-7, "largest error {worst:e}");
    assert!(ida.stats().jacobian_evals > 0);
    Ok(())
}

#[test]
fn custom_solvers_need_the_systems_jacobian() {
    for linear_solver in [LinearSolverKind::Blocks, LinearSolverKind::Factored] {
        let options = IdaOptions {
            linear_solver,
            ..tight()
        };
        let outcome = Ida::new(TwoMasses { k: 1.0 }, 0.0, &[0.0; 4], &[0.0; 4], &options);
        assert!(matches!(outcome, Err(IdaError::InvalidInput { .. })));
    }
}
