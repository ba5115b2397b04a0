//! End stops of revolute and prismatic joints: the coordinate's range `lower..upper` held by an
//! elastic law while the joint is past either end, the law of Modelica's `ElastoGap` (exponent
//! 1): a spring c·δ on the overtravel δ plus a damper d·δ̇, the damper's force limited to
//! ±c·δ, so that the stop never pulls and its force is continuous where the joint reaches the
//! stop (zero at δ = 0). Where the joint reaches or leaves a stop the law changes: that instant is
//! an event the integrator locates ([`EndStop::crossing`] is its zero-crossing function).

use crate::model::EndStop;

/// The generalized force (torque or force, along the joint's coordinate) the stops exert at
/// (q, q̇), and its partial derivatives.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StopLoad {
    pub force: f64,
    /// ∂force/∂q.
    pub d_q: f64,
    /// ∂force/∂q̇.
    pub d_qd: f64,
}

impl EndStop {
    /// The load of the stops on the coordinate q moving at `qd`: pushing up past `lower`,
    /// down past `upper`, nothing in between.
    pub fn load(&self, q: f64, qd: f64) -> StopLoad {
        if q < self.lower {
            let (force, d_overtravel, d_rate) = self.gap(self.lower - q, -qd);
            StopLoad {
                force,
                d_q: -d_overtravel,
                d_qd: -d_rate,
            }
        } else if q > self.upper {
            let (force, d_overtravel, d_rate) = self.gap(q - self.upper, qd);
            StopLoad {
                force: -force,
                d_q: -d_overtravel,
                d_qd: -d_rate,
            }
        } else {
            StopLoad::default()
        }
    }

    /// The force pressing a stop at overtravel δ > 0 growing at `rate`, with its derivatives by
    /// δ and by the rate: c·δ + clamp(d·δ̇, −c·δ, c·δ).
    fn gap(&self, overtravel: f64, rate: f64) -> (f64, f64, f64) {
        let spring = self.stiffness * overtravel;
        let damper = self.damping * rate;
        if damper > spring {
            (2.0 * spring, 2.0 * self.stiffness, 0.0)
        } else if damper < -spring {
            (0.0, 0.0, 0.0)
        } else {
            (spring + damper, self.stiffness, self.damping)
        }
    }

    /// The zero-crossing function of the stops: the distance of q to the nearer end of its
    /// range, negative past it.
    pub fn crossing(&self, q: f64) -> f64 {
        (q - self.lower).min(self.upper - q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STOP: EndStop = EndStop {
        lower: -0.5,
        upper: 1.0,
        stiffness: 200.0,
        damping: 3.0,
    };

    #[test]
    fn inside_the_range_nothing_acts() {
        assert_eq!(STOP.load(0.2, 5.0), StopLoad::default());
        assert_eq!(STOP.crossing(0.2), 0.7);
        assert_eq!(STOP.crossing(-0.25), 0.25);
        assert_eq!(STOP.crossing(1.5), -0.5);
    }

    /// 10 mm past either end pressing in at 0.1 m/s: 200·0.01 + 3·0.1 = 2.3 N, back into the
    /// range.
    #[test]
    fn past_an_end_the_spring_and_damper_push_back() {
        let upper = STOP.load(1.01, 0.1);
        let lower = STOP.load(-0.51, -0.1);
        for (load, sign) in [(upper, -1.0), (lower, 1.0)] {
            assert!((load.force - sign * 2.3).abs() < 1e-12, "{load:?}");
            assert_eq!((load.d_q, load.d_qd), (-200.0, -3.0));
        }
    }

    /// The damper's force is limited to the spring's: leaving fast the stop lets go (no pull),
    /// arriving fast it pushes with twice the spring force.
    #[test]
    fn the_damper_never_makes_the_stop_pull() {
        assert_eq!(STOP.load(1.01, -1.0), StopLoad::default());
        let hit = STOP.load(1.01, 1.0);
        assert!((hit.force + 4.0).abs() < 1e-12, "{hit:?}");
        assert_eq!((hit.d_q, hit.d_qd), (-400.0, 0.0));
    }

    #[test]
    fn derivatives_match_difference_quotients() {
        let h = 1e-7;
        for (q, qd) in [
            (1.02, 0.3),
            (1.02, 2.0),
            (-0.53, -0.2),
            (-0.53, -4.0),
            (-0.53, 0.5),
        ] {
            let load = STOP.load(q, qd);
            let d_q = (STOP.load(q + h, qd).force - STOP.load(q - h, qd).force) / (2.0 * h);
            let d_qd = (STOP.load(q, qd + h).force - STOP.load(q, qd - h).force) / (2.0 * h);
            assert!((d_q - load.d_q).abs() < 1e-5, "{q} {qd}: {d_q} vs {load:?}");
            assert!(
                (d_qd - load.d_qd).abs() < 1e-5,
                "{q} {qd}: {d_qd} vs {load:?}"
            );
        }
    }
}
