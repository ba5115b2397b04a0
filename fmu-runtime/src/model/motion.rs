//! Joint motions prescribed as expressions of the simulation time `t` (`motion = ...`).
//!
//! The expression is turned into a [`TimeFunction`] when the model is read: every part that does
//! not depend on `t` is evaluated then (parameters included, so changing a parameter changes the
//! motion), the rest keeps its structure. Speed and acceleration are evaluated exactly (to
//! rounding) by second-order dual numbers — truncated Taylor series (f, f′, f″) carried through
//! every operation — not by finite differences and not by symbolic differentiation.

use super::expr::{eval_num, Env, Expr, ExprKind};
use super::lexer::{Diag, Pos};
use super::units::{self, Kind};

/// The name of the simulation time in a motion expression.
pub const TIME: &str = "t";

/// An expression of time, with constants folded.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeFunction {
    Const(f64),
    Time,
    Neg(Box<TimeFunction>),
    /// `+ - * / ^` and the comparisons `< <= > >= == != && ||` (whose results have no
    /// derivatives).
    Binary(&'static str, Box<TimeFunction>, Box<TimeFunction>),
    /// `c ? a : b`: the branch follows the value of `c`.
    Cond(Box<TimeFunction>, Box<TimeFunction>, Box<TimeFunction>),
    /// One of [`DIFFERENTIABLE`].
    Call(&'static str, Box<TimeFunction>),
}

/// The functions a motion may use: those with a derivative wherever they are finite (`abs`
/// except at 0).
pub const DIFFERENTIABLE: &[&str] = &[
    "sin", "cos", "tan", "asin", "acos", "atan", "sqrt", "exp", "log", "abs",
];

/// A value with its first and second derivative with respect to time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jet {
    pub v: f64,
    pub d: f64,
    pub dd: f64,
}

impl Jet {
    fn constant(v: f64) -> Jet {
        Jet { v, d: 0.0, dd: 0.0 }
    }

    /// f(self) from f(v), f′(v), f″(v) (chain rule to second order).
    fn chain(self, f: f64, f1: f64, f2: f64) -> Jet {
        Jet {
            v: f,
            d: f1 * self.d,
            dd: f2 * self.d * self.d + f1 * self.dd,
        }
    }

    fn mul(self, b: Jet) -> Jet {
        Jet {
            v: self.v * b.v,
            d: self.d * b.v + self.v * b.d,
            dd: self.dd * b.v + 2.0 * self.d * b.d + self.v * b.dd,
        }
    }

    fn div(self, b: Jet) -> Jet {
        let v = self.v / b.v;
        let d = (self.d - v * b.d) / b.v;
        let dd = (self.dd - 2.0 * d * b.d - v * b.dd) / b.v;
        Jet { v, d, dd }
    }

    fn powf(self, b: Jet) -> Jet {
        if b.d == 0.0 && b.dd == 0.0 {
            let c = b.v;
            let x = self.v;
            return self.chain(
                x.powf(c),
                c * x.powf(c - 1.0),
                c * (c - 1.0) * x.powf(c - 2.0),
            );
        }
        // a^b = exp(b·ln a)
        let ln = self.chain(self.v.ln(), 1.0 / self.v, -1.0 / (self.v * self.v));
        let e = b.mul(ln);
        let x = e.v.exp();
        e.chain(x, x, x)
    }

    fn call(self, name: &str) -> Jet {
        let x = self.v;
        match name {
            "sin" => self.chain(x.sin(), x.cos(), -x.sin()),
            "cos" => self.chain(x.cos(), -x.sin(), -x.cos()),
            "tan" => {
                let t = x.tan();
                let s = 1.0 + t * t;
                self.chain(t, s, 2.0 * t * s)
            }
            "asin" => {
                let s = 1.0 - x * x;
                self.chain(x.asin(), 1.0 / s.sqrt(), x / (s * s.sqrt()))
            }
            "acos" => {
                let s = 1.0 - x * x;
                self.chain(x.acos(), -1.0 / s.sqrt(), -x / (s * s.sqrt()))
            }
            "atan" => {
                let s = 1.0 + x * x;
                self.chain(x.atan(), 1.0 / s, -2.0 * x / (s * s))
            }
            "sqrt" => {
                let r = x.sqrt();
                self.chain(r, 0.5 / r, -0.25 / (r * x))
            }
            "exp" => self.chain(x.exp(), x.exp(), x.exp()),
            "log" => self.chain(x.ln(), 1.0 / x, -1.0 / (x * x)),
            _ => self.chain(x.abs(), x.signum(), 0.0),
        }
    }
}

impl TimeFunction {
    /// Value, first and second time derivative at `t`.
    pub fn jet(&self, t: f64) -> Jet {
        match self {
            TimeFunction::Const(c) => Jet::constant(*c),
            TimeFunction::Time => Jet {
                v: t,
                d: 1.0,
                dd: 0.0,
            },
            TimeFunction::Neg(a) => {
                let a = a.jet(t);
                Jet {
                    v: -a.v,
                    d: -a.d,
                    dd: -a.dd,
                }
            }
            TimeFunction::Binary(op, a, b) => {
                let (a, b) = (a.jet(t), b.jet(t));
                let flag = |c: bool| Jet::constant(if c { 1.0 } else { 0.0 });
                match *op {
                    "+" => Jet {
                        v: a.v + b.v,
                        d: a.d + b.d,
                        dd: a.dd + b.dd,
                    },
                    "-" => Jet {
                        v: a.v - b.v,
                        d: a.d - b.d,
                        dd: a.dd - b.dd,
                    },
                    "*" => a.mul(b),
                    "/" => a.div(b),
                    "^" => a.powf(b),
                    "<" => flag(a.v < b.v),
                    "<=" => flag(a.v <= b.v),
                    ">" => flag(a.v > b.v),
                    ">=" => flag(a.v >= b.v),
                    "==" => flag(a.v == b.v),
                    "!=" => flag(a.v != b.v),
                    "&&" => flag(a.v != 0.0 && b.v != 0.0),
                    _ => flag(a.v != 0.0 || b.v != 0.0),
                }
            }
            TimeFunction::Cond(c, a, b) => {
                if c.jet(t).v != 0.0 {
                    a.jet(t)
                } else {
                    b.jet(t)
                }
            }
            TimeFunction::Call(name, a) => a.jet(t).call(name),
        }
    }
}

fn uses_time(e: &Expr) -> bool {
    let mut names = Vec::new();
    super::expr::names_used(e, &mut names);
    names.iter().any(|n| n == TIME)
}

/// The quantity of the unit written at the outside of `e`, if any.
pub fn outer_unit(e: &Expr) -> Option<(Kind, String, Pos)> {
    match &e.kind {
        ExprKind::WithUnit(_, u) => {
            units::lookup(&u.text).map(|unit| (unit.kind, u.text.clone(), u.pos))
        }
        _ => None,
    }
}

/// Turns a motion expression into a function of time. `t` is the time (it hides a parameter of
/// that name); every other name is evaluated now.
pub fn time_function(e: &Expr, env: &dyn Env) -> Result<TimeFunction, Diag> {
    if !uses_time(e) {
        return Ok(TimeFunction::Const(eval_num(e, env)?));
    }
    let sub = |x: &Expr| time_function(x, env).map(Box::new);
    Ok(match &e.kind {
        ExprKind::Name(_) => TimeFunction::Time,
        ExprKind::Unary("-", a) => TimeFunction::Neg(sub(a)?),
        ExprKind::Unary(op, _) => {
            return Err(Diag::new(e.pos, format!("`{op}` of the time has no derivative: it cannot be used in a motion")))
        }
        ExprKind::Binary(op, a, b) => TimeFunction::Binary(op, sub(a)?, sub(b)?),
        ExprKind::Cond(c, a, b) => TimeFunction::Cond(sub(c)?, sub(a)?, sub(b)?),
        ExprKind::WithUnit(inner, u) => {
            let unit = units::lookup(&u.text)
                .ok_or_else(|| Diag::new(u.pos, format!("unknown unit `{}`", u.text)))?;
            TimeFunction::Binary("*", Box::new(TimeFunction::Const(unit.scale)), sub(inner)?)
        }
        ExprKind::Call(name, args) => {
            let Some(known) = DIFFERENTIABLE.iter().find(|f| **f == name.as_str()) else {
                return Err(Diag::new(
                    e.pos,
                    format!(
                        "`{name}` of the time cannot be used in a motion: the functions with derivatives are {}",
                        DIFFERENTIABLE.join(", ")
                    ),
                ));
            };
            let [arg] = args.as_slice() else {
                return Err(Diag::new(e.pos, format!("`{name}` takes 1 argument, found {}", args.len())));
            };
            TimeFunction::Call(known, sub(arg)?)
        }
        // Indices, vectors: the time cannot be used there.
        _ => {
            return Err(Diag::new(
                e.pos,
                "a motion is a number: the time `t` can only be used in arithmetic, conditions and the functions sin, cos, ...",
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> Box<TimeFunction> {
        Box::new(TimeFunction::Time)
    }
    fn c(v: f64) -> Box<TimeFunction> {
        Box::new(TimeFunction::Const(v))
    }

    #[test]
    fn dual_numbers_give_exact_derivatives() {
        // f = 0.5·sin(2πt)·exp(t) / (1 + t²) + t^3 + sqrt(t)
        let two_pi_t = Box::new(TimeFunction::Binary(
            "*",
            c(2.0 * std::f64::consts::PI),
            t(),
        ));
        let f = TimeFunction::Binary(
            "+",
            Box::new(TimeFunction::Binary(
                "/",
                Box::new(TimeFunction::Binary(
                    "*",
                    Box::new(TimeFunction::Binary(
                        "*",
                        c(0.5),
                        Box::new(TimeFunction::Call("sin", two_pi_t)),
                    )),
                    Box::new(TimeFunction::Call("exp", t())),
                )),
                Box::new(TimeFunction::Binary(
                    "+",
                    c(1.0),
                    Box::new(TimeFunction::Binary("^", t(), c(2.0))),
                )),
            )),
            Box::new(TimeFunction::Binary(
                "+",
                Box::new(TimeFunction::Binary("^", t(), c(3.0))),
                Box::new(TimeFunction::Call("sqrt", t())),
            )),
        );
        for x in [0.1, 0.37, 1.3] {
            let jet = f.jet(x);
            let h = 1e-4;
            let v = |s: f64| f.jet(s).v;
            let d = (v(x + h) - v(x - h)) / (2.0 * h);
            let dd = (v(x + h) - 2.0 * v(x) + v(x - h)) / (h * h);
            assert!(
                (jet.d - d).abs() < 1e-6 * (1.0 + d.abs()),
                "{} vs {d}",
                jet.d
            );
            assert!(
                (jet.dd - dd).abs() < 1e-4 * (1.0 + dd.abs()),
                "{} vs {dd}",
                jet.dd
            );
        }
        // t^t = exp(t ln t): derivative t^t (ln t + 1).
        let g = TimeFunction::Binary("^", t(), t());
        let jet = g.jet(2.0);
        assert!((jet.d - 4.0 * (2f64.ln() + 1.0)).abs() < 1e-12);
    }
}
