//! The elastic contact law, after Neumayr & Otter (JuliaCon 2019, eq. (2)) with a damping that
//! belongs to each impact rather than to the contact's start:
//!
//! ```text
//! f_n = c_res · c_geo · δ^n_geo · (1 + χ · s(δ̇)),   χ = (1 − cor²) / (1 + cor²)
//! f⃗_n = f_n e⃗_n,   f⃗_t = −μ_k f_n e⃗_t,reg,   τ⃗ = −μ_r μ_geo f_n e⃗_ω,reg
//! ```
//!
//! - c_res = 1 / (1/c_a + 1/c_b), c_i = E_i / (1 − ν_i²): the two solids' plane-strain moduli
//!   in series [Pa].
//! - Where a sphere is involved, Hertz: n_geo = 3/2, c_geo = 4/3 √R with R the effective radius
//!   (R_a R_b / (R_a + R_b) for two spheres, the sphere's radius against any other shape, taken
//!   as flat). Otherwise linear, n_geo = 1, with the stiffness of a flat punch of radius a on a
//!   half-space: c_geo = 2a, a the larger of the two margins (the smoothing radius, whose vertex
//!   and edge spheres carry the contact; a capsule's radius) [m].
//! - **Damping.** s(δ̇) = sign(δ̇) · g(|δ̇| / v_small) is the direction of the penetration rate,
//!   regularized below v_small (g below). While the shapes approach faster than v_small the
//!   spring is (1 + χ) times stiffer than while they part faster than v_small: a hysteresis
//!   loop. An impact stores ∫(1 + χ) k δⁿ dδ = ½ m v⁻² up to the deepest penetration and gives
//!   back (1 − χ)/(1 + χ) of it, so the rebound speed is cor · v⁻ whatever the impact speed, the
//!   masses or n_geo. Eq. (2) of the paper has instead d · δ̇ with d = 8(1 − cor)/(5 cor v⁻), v⁻
//!   the approach speed at the start of the contact, regularized towards cor = 0.001 below
//!   v_small: a contact that begins at rest (shapes touching at the start, balls of a rack or
//!   a chain, a part resting on another) then keeps the damping of a plastic impact for its
//!   whole life and swallows every later impact through it. The law here needs no stored speed,
//!   so a touching contact answers a later impact with its pair's cor. Impacts slower than
//!   v_small are damped less (the law is viscous there, with d = χ / v_small); a body resting
//!   under a load still comes to rest, its small oscillations damped by that viscosity.
//! - The normal force never pulls: 1 + χ s ≥ 1 − χ ≥ 0.
//! - **Sliding** (pairs that can stick, see `dynamics::contacts`): a pair that has slipped
//!   faster than the stick speed since it last broke away slides by Coulomb's law,
//!   f⃗_t = −μ_k f_n e⃗_t, the full μ_k f_n against the slip whatever its speed (regularized only
//!   below half of [`STICK_SPEED`], which a sliding pair reaches only in a Newton iterate: it
//!   sticks at the stick speed). So a pull below μ_k f_n decelerates the slip at a finite rate
//!   until it stops, and no pull finds a steady creep inside a regularization band.
//! - **Sticking**: instead of the sliding law, f⃗_t = −k_t Δ⃗_t − c_t v⃗_t, a spring from the
//!   material points of the two shapes that met at the contact point when the pair stuck
//!   (Δ⃗_t: their tangential offset since), with k_t = μ_s f_n / [`PRESLIDING_DISPLACEMENT`]
//!   and damping c_t = μ_s f_n [`STICK_DAMPING_TIME`] / [`PRESLIDING_DISPLACEMENT`]. The anchors are placed so that the
//!   spring starts with the friction force that acted just before (at most μ_s f_n
//!   (1 − [`STICK_PRELOAD_MARGIN`])): the force does not jump when the pair sticks, and the
//!   spring never has to catch the part. The pair slips again when |f⃗_t| reaches μ_s f_n. A
//!   stiffness proportional to the normal force shares a tangential load among the contact
//!   points of a part (the four corners of a box) as the normal load is shared, so all of them
//!   reach μ_s together and the part breaks away at μ_s times its whole normal force, as
//!   Coulomb's law of a rigid part says. Sticking has no creep: the offset Δ⃗_t stays what the
//!   load needs (below the presliding displacement).
//! - **Rolling** (pairs with a rounded shape that can stick): a rounded shape that rolls keeps
//!   no material point at the contact, so a pair that stops slipping while it turns holds the
//!   slip itself: f⃗_t = −(μ_s f_n / [`ROLLING_SLIP`]) v⃗_t, a stiff viscous law whose slip stays
//!   below [`ROLLING_SLIP`] while the traction is below μ_s f_n, with the rolling resistance
//!   of the regularized law. The pair slips when the traction reaches μ_s f_n.
//! - **Rolling and spinning stick** (pairs with a rounded shape and rolling resistance that
//!   stick at rest): the pair holds the turn of b relative to a as well. Instead of the
//!   regularized torque, τ⃗ = −k_r φ⃗ − c_r ω⃗, an angular spring from the relative orientation
//!   at the instant the pair stuck (φ⃗: the rotation vector of b relative to a since then), with
//!   τ_max = μ_r μ_geo f_n, k_r = τ_max μ_geo / [`PRESLIDING_DISPLACEMENT`] (the rim of the
//!   contact turns by the presliding displacement under τ_max) and c_r = [`STICK_DAMPING`]
//!   τ_max / ω_small. The pair rolls again when |τ⃗| reaches τ_max, and slips when |f⃗_t|
//!   reaches μ_s f_n. The rolling and the spinning (drilling) resistance are one torque of the
//!   law, against the whole relative angular velocity, so one spring holds both, with one
//!   limit.
//! - e⃗_t,reg = v⃗_t / |v⃗_t| · g(|v⃗_t| / v_small) and e⃗_ω,reg = ω⃗ / |ω⃗| · g(|ω⃗| / ω_small),
//!   g(s) = s (2 − s) for s < 1 and 1 above: 0 at rest, 1 from v_small on, C¹ and with a
//!   bounded slope (viscous near rest), so |f⃗_t| ≤ μ_k f_n and |τ⃗| ≤ μ_r μ_geo f_n.
//! - μ_geo is the rolling radius: the sphere's radius (R_a R_b / (R_a + R_b) for two spheres),
//!   otherwise a as above.

use nalgebra::{Matrix3, SMatrix, Unit, Vector3};

use super::contact_materials::ContactPairMaterial;
use super::shapes::Shape;
use super::{CollisionError, Contact};
use crate::model::materials::SolidMaterial;

/// The slip speed below which a sliding pair that can stick sticks (or rolls) [m/s]: low enough
/// that a part arriving at it carries no kinetic energy worth a presliding spring's catch
/// (10⁻⁷ of its travel at 5 m/s² of deceleration), and half of [`ROLLING_SLIP`], so that a
/// rolling pair starts inside its limit.
pub const STICK_SPEED: f64 = 5e-7;

/// The slip of a rolling pair at which its traction reaches μ_s f_n [m/s]: the viscous law of
/// a rolling pair is f⃗_t = −(μ_s f_n / ROLLING_SLIP) v⃗_t.
pub const ROLLING_SLIP: f64 = 1e-6;

/// A sliding pair's Coulomb law is regularized below this speed [m/s], which it reaches only in
/// a Newton iterate (it sticks at [`STICK_SPEED`]): a bounded slope there.
pub const COULOMB_BAND: f64 = 0.5 * STICK_SPEED;

/// A contact that starts slipping slower than this fraction of v_small sticks at once (a part
/// placed on another, a box landing flat): its spring catches a slip that small within the
/// presliding displacement; a faster landing slides and sticks when it stops.
pub const LANDING_STICK_FRACTION: f64 = 0.5;

/// Turning below this fraction of w_small, a rounded pair with rolling resistance that neither
/// slips nor rolls fast sticks with its turn held.
pub const STICK_TURN_FRACTION: f64 = 0.5;

/// The tangential offset at which a sticking contact holds μ_s f_n [m]: the presliding
/// displacement of dry friction, 10 µm as in the LuGre model's usual bristle stiffness
/// (Canudas de Wit et al., IEEE TAC 1995: σ₀ = 10⁵ N/m per newton of Coulomb force).
pub const PRESLIDING_DISPLACEMENT: f64 = 1e-5;

/// The damping of a held turn, c_r = STICK_DAMPING τ_max / w_small: at half of w_small it gives
/// the torque that the regularized law gives there (g(1/2) = 3/4 of τ_max), so the torque does
/// not jump when the pair sticks.
pub const STICK_DAMPING: f64 = 1.5;

/// A sticking pair's spring starts with the friction force that acted before, but at most
/// μ_s f_n (1 − STICK_PRELOAD_MARGIN): where μ_s = μ_k the sliding force is the limit itself,
/// and a pair stuck exactly at its limit would slip at once.
pub const STICK_PRELOAD_MARGIN: f64 = 1e-3;

/// The damping of a sticking contact per newton of normal force [s/m]:
/// c_t = μ_s f_n τ / [`PRESLIDING_DISPLACEMENT`], τ = [`STICK_DAMPING_TIME`].
pub fn sticking_damping(law: &ContactLaw) -> f64 {
    law.mu_s * STICK_DAMPING_TIME / PRESLIDING_DISPLACEMENT
}

/// The time constant of a sticking contact's damper relative to its spring [s]: about 0.6 of
/// critical damping for a part held by friction under gravity (its spring's natural frequency
/// √(μ_s g / d) ≈ 770 rad/s for μ_s = 0.6).
pub const STICK_DAMPING_TIME: f64 = 1.5e-3;

/// The geometric factors of a pair of shapes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactGeometry {
    /// Exponent of the penetration: 1.5 (Hertz) or 1 (linear).
    pub n_geo: f64,
    /// Factor of c_res δ^n_geo [m^(2 − n_geo)].
    pub c_geo: f64,
    /// Lever arm of the rotational resistance [m].
    pub mu_geo: f64,
}

impl ContactGeometry {
    /// The factors for shapes `a` and `b` (see the module documentation).
    pub fn from_shapes(a: &Shape, b: &Shape) -> ContactGeometry {
        let radius = |s: &Shape| s.is_sphere().then(|| s.margin());
        match (radius(a), radius(b)) {
            (Some(ra), Some(rb)) => ContactGeometry::hertz(ra * rb / (ra + rb)),
            (Some(r), None) | (None, Some(r)) => ContactGeometry::hertz(r),
            (None, None) => ContactGeometry::linear(a.margin().max(b.margin())),
        }
    }

    /// Hertz contact with effective radius `r`.
    pub fn hertz(r: f64) -> ContactGeometry {
        ContactGeometry {
            n_geo: 1.5,
            c_geo: 4.0 / 3.0 * r.sqrt(),
            mu_geo: r,
        }
    }

    /// Linear contact through a flat punch of radius `a`.
    pub fn linear(a: f64) -> ContactGeometry {
        ContactGeometry {
            n_geo: 1.0,
            c_geo: 2.0 * a,
            mu_geo: a,
        }
    }
}

/// c_res = 1 / (1/c_a + 1/c_b), c_i = E_i / (1 − ν_i²) [Pa]. Errors for E ≤ 0 or ν ∉ (−1, 1)
/// (named after the material).
pub fn resultant_modulus(a: &SolidMaterial, b: &SolidMaterial) -> Result<f64, CollisionError> {
    let c = |m: &SolidMaterial| {
        if !(m.youngs_modulus.is_finite() && m.youngs_modulus > 0.0) {
            return Err(CollisionError::InvalidCoefficient {
                what: "Young's modulus (> 0)",
                value: m.youngs_modulus,
            });
        }
        if !(m.poissons_ratio > -1.0 && m.poissons_ratio < 1.0) {
            return Err(CollisionError::InvalidCoefficient {
                what: "Poisson's ratio (-1 < nu < 1)",
                value: m.poissons_ratio,
            });
        }
        Ok(m.youngs_modulus / (1.0 - m.poissons_ratio * m.poissons_ratio))
    };
    let (ca, cb) = (c(a)?, c(b)?);
    Ok(ca * cb / (ca + cb))
}

/// 0 below 0, 1 above 1, 3x² − 2x³ between: a C¹ blend.
pub fn smoothstep(x: f64) -> f64 {
    let s = x.clamp(0.0, 1.0);
    s * s * (3.0 - 2.0 * s)
}

/// The slope of [`smoothstep`]: 6x(1 − x) between 0 and 1, 0 outside.
pub fn smoothstep_slope(x: f64) -> f64 {
    if x > 0.0 && x < 1.0 {
        6.0 * x * (1.0 - x)
    } else {
        0.0
    }
}

/// χ = (1 − cor²) / (1 + cor²): the hysteresis of the normal force that restores `cor` (see the
/// module documentation). 0 for an elastic pair, 1 for a plastic one.
pub fn hysteresis(cor: f64) -> f64 {
    (1.0 - cor * cor) / (1.0 + cor * cor)
}

/// g(s) = s (2 − s) below 1, 1 above: the length of a regularized direction.
fn regularized_length(s: f64) -> f64 {
    if s >= 1.0 {
        1.0
    } else {
        s * (2.0 - s)
    }
}

/// g′(s) = 2 − 2s below 1, 0 above: the slope of [`regularized_length`].
fn regularized_length_slope(s: f64) -> f64 {
    if s >= 1.0 {
        0.0
    } else {
        2.0 - 2.0 * s
    }
}

/// `v / |v| · g(|v| / small)`, zero at v = 0.
pub fn regularized_direction(v: &Vector3<f64>, small: f64) -> Vector3<f64> {
    let length = v.norm();
    if length > 0.0 {
        v * (regularized_length(length / small) / length)
    } else {
        Vector3::zeros()
    }
}

/// ∂/∂v of [`regularized_direction`]: (I − u uᵀ) g(s)/|v| + u uᵀ g′(s)/small with u = v/|v|,
/// s = |v|/small; 2/small · I at v = 0, where the law is viscous.
pub fn regularized_direction_jacobian(v: &Vector3<f64>, small: f64) -> Matrix3<f64> {
    let length = v.norm();
    if length == 0.0 {
        return Matrix3::identity() * (2.0 / small);
    }
    let u = v / length;
    let s = length / small;
    let radial = u * u.transpose();
    (Matrix3::identity() - radial) * (regularized_length(s) / length)
        + radial * (regularized_length_slope(s) / small)
}

/// The coefficients of the contact law of one pair of colliders: fixed for the pair, whatever
/// its history.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactLaw {
    /// c_res [Pa].
    pub c_res: f64,
    pub geometry: ContactGeometry,
    /// χ, see [`hysteresis`].
    pub hysteresis: f64,
    pub mu_k: f64,
    pub mu_s: f64,
    pub mu_r: f64,
    pub v_small: f64,
    pub w_small: f64,
}

impl ContactLaw {
    /// The law between solids `a` and `b` with pair material `pair` and geometry `geometry`.
    pub fn new(
        a: &SolidMaterial,
        b: &SolidMaterial,
        pair: &ContactPairMaterial,
        geometry: ContactGeometry,
    ) -> Result<ContactLaw, CollisionError> {
        pair.validate()?;
        Ok(ContactLaw {
            c_res: resultant_modulus(a, b)?,
            geometry,
            hysteresis: hysteresis(pair.cor),
            mu_k: pair.mu_k,
            mu_s: pair.mu_s,
            mu_r: pair.mu_r,
            v_small: pair.v_small,
            w_small: pair.w_small,
        })
    }

    /// Stiffness factor k of f = k δ^n_geo (1 + χ s(δ̇)) [N/m^n_geo].
    pub fn stiffness(&self) -> f64 {
        self.c_res * self.geometry.c_geo
    }
}

/// The state of a contact that the law needs, world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactState {
    /// Penetration depth δ ≥ 0 [m] (negative values count as 0).
    pub penetration: f64,
    /// δ̇ [m/s]: positive while the shapes approach.
    pub penetration_rate: f64,
    /// Velocity of b's material point at the contact point minus a's [m/s].
    pub relative_velocity: Vector3<f64>,
    /// Angular velocity of b minus a [rad/s].
    pub relative_angular_velocity: Vector3<f64>,
    /// Unit normal from a to b.
    pub normal: Unit<Vector3<f64>>,
    /// The tangential law while the pair does not stick (`anchor_offset` is `None`).
    pub slip: SlipLaw,
    /// While the pair sticks: b's anchored material point minus a's [m] (world).
    pub anchor_offset: Option<Vector3<f64>>,
    /// While a pair that holds its turn sticks: the rotation vector of b relative to a since
    /// the pair stuck [rad] (world).
    pub anchor_turn: Option<Vector3<f64>>,
}

impl ContactState {
    /// The state from a narrow-phase [`Contact`] and the relative velocities
    /// (δ = −distance, δ̇ = −v_rel · n).
    pub fn new(
        contact: &Contact,
        relative_velocity: Vector3<f64>,
        relative_angular_velocity: Vector3<f64>,
    ) -> ContactState {
        ContactState {
            penetration: contact.penetration(),
            penetration_rate: -relative_velocity.dot(&contact.normal),
            relative_velocity,
            relative_angular_velocity,
            normal: contact.normal,
            slip: SlipLaw::Regularized,
            anchor_offset: None,
            anchor_turn: None,
        }
    }
}

/// The tangential force of a contact that does not stick, by its pair's friction state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlipLaw {
    /// μ_k f_n against the slip, regularized below v_small: pairs that cannot stick, and a
    /// pair that has just broken away (its slip rises from zero).
    Regularized,
    /// Coulomb's law, μ_k f_n against the slip (regularized below [`COULOMB_BAND`]): a pair
    /// that slides and can stick.
    Coulomb,
    /// Rolling without slip: −(μ_s f_n / [`ROLLING_SLIP`]) v⃗_t.
    Rolling,
}

/// The law's output. Apply `force` to b and −`force` to a at the contact point, and `torque`
/// to b and −`torque` to a.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactResponse {
    /// f⃗_n + f⃗_t on b [N] (world).
    pub force: Vector3<f64>,
    /// τ⃗ on b [N·m] (world), a pure torque.
    pub torque: Vector3<f64>,
    /// f_n ≥ 0 [N].
    pub normal_force: f64,
    /// |f⃗_t| [N].
    pub friction_force: f64,
}

/// The slip of a pair that does not stick is below `v_small` ([`speed_bands`]).
pub const SLIP_BAND: u8 = 1;
/// The relative turn of a pair with rolling resistance that does not hold its turn is below
/// `w_small` ([`speed_bands`]).
pub const TURN_BAND: u8 = 2;

/// The friction bands of `law` that `state` lies inside, as bits ([`SLIP_BAND`],
/// [`TURN_BAND`]). Inside a band the regularized friction or rolling resistance rises from
/// zero to its full value: the law's slope is its full value over the band, beyond it zero. An
/// iteration matrix formed inside a band is far too stiff for a state beyond it: Newton's
/// corrections shrink by the ratio, and the iteration stops, converged in appearance, where the
/// equations do not hold. (The normal damping's band is not among them: a contact's
/// penetration rate passes through it over and over while the contact settles.)
pub fn speed_bands(law: &ContactLaw, state: &ContactState) -> u8 {
    let n = state.normal.into_inner();
    let v_t = state.relative_velocity - n * state.relative_velocity.dot(&n);
    let mut bands = 0;
    if state.anchor_offset.is_none()
        && state.slip == SlipLaw::Regularized
        && v_t.norm() < law.v_small
    {
        bands |= SLIP_BAND;
    }
    let turning = state.relative_angular_velocity.norm();
    if state.anchor_turn.is_none() && law.mu_r > 0.0 && turning < law.w_small {
        bands |= TURN_BAND;
    }
    bands
}

/// Eq. (2): the force and torque on b of a contact in `state` under `law`.
pub fn contact_force(law: &ContactLaw, state: &ContactState) -> ContactResponse {
    let delta = state.penetration.max(0.0);
    let g = &law.geometry;
    let spring = law.stiffness() * delta.powf(g.n_geo);
    let rate = state.penetration_rate;
    let direction = rate.signum() * regularized_length(rate.abs() / law.v_small);
    let f_n = (spring * (1.0 + law.hysteresis * direction)).max(0.0);
    let n = state.normal.into_inner();
    let v_t = state.relative_velocity - n * state.relative_velocity.dot(&n);
    let f_t = match state.anchor_offset {
        Some(offset) => {
            let offset_t = offset - n * offset.dot(&n);
            let stiffness = law.mu_s * f_n / PRESLIDING_DISPLACEMENT;
            let damping = sticking_damping(law) * f_n;
            -(offset_t * stiffness + v_t * damping)
        }
        None => match state.slip {
            SlipLaw::Regularized => -regularized_direction(&v_t, law.v_small) * (law.mu_k * f_n),
            SlipLaw::Coulomb => -regularized_direction(&v_t, COULOMB_BAND) * (law.mu_k * f_n),
            SlipLaw::Rolling => -v_t * (law.mu_s * f_n / ROLLING_SLIP),
        },
    };
    let torque_limit = law.mu_r * g.mu_geo * f_n;
    let torque = match state.anchor_turn {
        Some(turn) => {
            let stiffness = torque_limit * g.mu_geo / PRESLIDING_DISPLACEMENT;
            let damping = STICK_DAMPING * torque_limit / law.w_small;
            -(turn * stiffness + state.relative_angular_velocity * damping)
        }
        None => {
            -regularized_direction(&state.relative_angular_velocity, law.w_small) * torque_limit
        }
    };
    ContactResponse {
        force: n * f_n + f_t,
        torque,
        normal_force: f_n,
        friction_force: f_t.norm(),
    }
}

/// The differential of a [`ContactState`] with respect to `C` parameters: per quantity, one
/// column per parameter. The anchors' rows are read only when the state has anchors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactStateDerivative<const C: usize> {
    pub penetration: SMatrix<f64, 1, C>,
    pub penetration_rate: SMatrix<f64, 1, C>,
    pub relative_velocity: SMatrix<f64, 3, C>,
    pub relative_angular_velocity: SMatrix<f64, 3, C>,
    pub normal: SMatrix<f64, 3, C>,
    pub anchor_offset: SMatrix<f64, 3, C>,
    pub anchor_turn: SMatrix<f64, 3, C>,
}

/// The differentials of [`contact_force`]'s force and torque on b, given the state's
/// differential `d`: the law's exact derivatives (∂f_n/∂δ, ∂f_n/∂δ̇, the regularized friction
/// and rolling terms, the sticking springs and dampers), by the chain rule. Where the law has
/// a kink (f_n at 0, |v_t| at v_small) the derivative is the one of the side the state is on.
pub fn contact_force_derivative<const C: usize>(
    law: &ContactLaw,
    state: &ContactState,
    d: &ContactStateDerivative<C>,
) -> (SMatrix<f64, 3, C>, SMatrix<f64, 3, C>) {
    let zero1 = SMatrix::<f64, 1, C>::zeros();
    let delta = state.penetration.max(0.0);
    let g = &law.geometry;
    let k = law.stiffness();
    let spring = k * delta.powf(g.n_geo);
    let d_spring = if state.penetration > 0.0 {
        d.penetration * (k * g.n_geo * delta.powf(g.n_geo - 1.0))
    } else {
        zero1
    };
    let rate = state.penetration_rate;
    let s = rate.abs() / law.v_small;
    let direction = rate.signum() * regularized_length(s);
    let d_direction = d.penetration_rate * (regularized_length_slope(s) / law.v_small);
    let raw = spring * (1.0 + law.hysteresis * direction);
    let f_n = raw.max(0.0);
    let d_fn = if raw > 0.0 {
        d_spring * (1.0 + law.hysteresis * direction) + d_direction * (spring * law.hysteresis)
    } else {
        zero1
    };
    let n = state.normal.into_inner();
    let tangential = Matrix3::identity() - n * n.transpose();
    let v = state.relative_velocity;
    let v_n = v.dot(&n);
    let v_t = v - n * v_n;
    let d_vt = tangential * d.relative_velocity
        - (Matrix3::identity() * v_n + n * v.transpose()) * d.normal;
    let d_ft = match state.anchor_offset {
        Some(offset) => {
            let o_n = offset.dot(&n);
            let offset_t = offset - n * o_n;
            let d_offset_t = tangential * d.anchor_offset
                - (Matrix3::identity() * o_n + n * offset.transpose()) * d.normal;
            let stiffness = law.mu_s * f_n / PRESLIDING_DISPLACEMENT;
            let d_stiffness = d_fn * (law.mu_s / PRESLIDING_DISPLACEMENT);
            let damping = sticking_damping(law) * f_n;
            let d_damping = d_fn * sticking_damping(law);
            -(d_offset_t * stiffness + offset_t * d_stiffness + d_vt * damping + v_t * d_damping)
        }
        None => match state.slip {
            SlipLaw::Rolling => {
                let damping = law.mu_s / ROLLING_SLIP;
                -(d_vt * (damping * f_n) + v_t * (d_fn * damping))
            }
            slip => {
                let band = if slip == SlipLaw::Coulomb {
                    COULOMB_BAND
                } else {
                    law.v_small
                };
                -(regularized_direction_jacobian(&v_t, band) * d_vt * (law.mu_k * f_n)
                    + regularized_direction(&v_t, band) * (d_fn * law.mu_k))
            }
        },
    };
    let limit = law.mu_r * g.mu_geo * f_n;
    let d_limit = d_fn * (law.mu_r * g.mu_geo);
    let w = state.relative_angular_velocity;
    let d_torque = match state.anchor_turn {
        Some(turn) => {
            let stiffness = limit * g.mu_geo / PRESLIDING_DISPLACEMENT;
            let d_stiffness = d_limit * (g.mu_geo / PRESLIDING_DISPLACEMENT);
            let damping = STICK_DAMPING * limit / law.w_small;
            let d_damping = d_limit * (STICK_DAMPING / law.w_small);
            -(d.anchor_turn * stiffness
                + turn * d_stiffness
                + d.relative_angular_velocity * damping
                + w * d_damping)
        }
        None => {
            -(regularized_direction_jacobian(&w, law.w_small) * d.relative_angular_velocity * limit
                + regularized_direction(&w, law.w_small) * d_limit)
        }
    };
    let d_force = d.normal * f_n + n * d_fn + d_ft;
    (d_force, d_torque)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::ContactMaterials;
    use crate::model::materials::lookup;
    use crate::model::ShapeSpec;

    fn steel_wood(geometry: ContactGeometry) -> ContactLaw {
        let t = ContactMaterials::shipped();
        ContactLaw::new(
            lookup("steel").unwrap(),
            lookup("dry_wood").unwrap(),
            t.get("steel", "dry_wood").unwrap(),
            geometry,
        )
        .unwrap()
    }

    fn state(delta: f64, rate: f64, v: Vector3<f64>, w: Vector3<f64>) -> ContactState {
        ContactState {
            penetration: delta,
            penetration_rate: rate,
            relative_velocity: v,
            relative_angular_velocity: w,
            normal: Vector3::z_axis(),
            slip: SlipLaw::Regularized,
            anchor_offset: None,
            anchor_turn: None,
        }
    }

    /// The law's derivative against central differences, for states across its regimes
    /// (approach and separation inside and beyond v_small, slip inside and beyond the band,
    /// stuck with anchors, sliding by Coulomb's law inside and beyond its band, rolling), with respect to 17 parameters: δ, δ̇, v, ω, n, the offset and the
    /// turn. Error relative to each column's largest entry.
    #[test]
    fn derivative_equals_difference_quotients() {
        let law = steel_wood(ContactGeometry::hertz(0.01));
        let mut seed = 5u64;
        let mut random = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        };
        let mut worst = 0.0f64;
        for sample in 0..200 {
            // Regularized, stuck, sliding by Coulomb's law, rolling.
            let mode = (sample / 4) % 4;
            let stuck = mode == 1;
            let slip = [
                SlipLaw::Regularized,
                SlipLaw::Regularized,
                SlipLaw::Coulomb,
                SlipLaw::Rolling,
            ][mode];
            // Coulomb's law also at a slip inside its band (the penetration rate's scale stays
            // 4 mm/s there: a difference quotient at 2e-13 m/s loses the digits).
            let speed: f64 = match (sample % 4, slip) {
                (3, SlipLaw::Coulomb) => 2e-7,
                (3, _) => 0.004,
                (i, _) => [2.0, 0.004, 0.02][i],
            };
            let rate_scale = speed.max(0.004);
            // δ, δ̇, v (3), ω (3), n (3), offset (3), turn (3).
            let scales = [
                1e-5,
                rate_scale,
                speed,
                speed,
                speed,
                speed * 30.0,
                speed * 30.0,
                speed * 30.0,
                1.0,
                1.0,
                1.0,
                1e-6,
                1e-6,
                1e-6,
                1e-3,
                1e-3,
                1e-3,
            ];
            let mut parameters: Vec<f64> = scales.iter().map(|s| s * random()).collect();
            parameters[0] = 1e-5 * (1.5 + random());
            // The state of the parameters (n normalized: a unit vector's changes are tangent).
            let state_of = |p: &[f64]| ContactState {
                penetration: p[0],
                penetration_rate: p[1],
                relative_velocity: Vector3::new(p[2], p[3], p[4]),
                relative_angular_velocity: Vector3::new(p[5], p[6], p[7]),
                normal: Unit::new_normalize(Vector3::new(p[8], p[9], p[10])),
                slip,
                anchor_offset: stuck.then(|| Vector3::new(p[11], p[12], p[13])),
                anchor_turn: stuck.then(|| Vector3::new(p[14], p[15], p[16])),
            };
            let n = Vector3::new(parameters[8], parameters[9], parameters[10]);
            let norm = n.norm();
            let unit = n / norm;
            let mut d = ContactStateDerivative::<17> {
                penetration: SMatrix::zeros(),
                penetration_rate: SMatrix::zeros(),
                relative_velocity: SMatrix::zeros(),
                relative_angular_velocity: SMatrix::zeros(),
                normal: SMatrix::zeros(),
                anchor_offset: SMatrix::zeros(),
                anchor_turn: SMatrix::zeros(),
            };
            d.penetration[(0, 0)] = 1.0;
            d.penetration_rate[(0, 1)] = 1.0;
            for i in 0..3 {
                d.relative_velocity[(i, 2 + i)] = 1.0;
                d.relative_angular_velocity[(i, 5 + i)] = 1.0;
                d.anchor_offset[(i, 11 + i)] = 1.0;
                d.anchor_turn[(i, 14 + i)] = 1.0;
            }
            d.normal
                .fixed_view_mut::<3, 3>(0, 8)
                .copy_from(&((Matrix3::identity() - unit * unit.transpose()) / norm));
            let state = state_of(&parameters);
            let (d_force, d_torque) = contact_force_derivative(&law, &state, &d);
            for j in 0..17 {
                let h = 1e-6 * scales[j];
                let (mut plus, mut minus) = (parameters.clone(), parameters.clone());
                plus[j] += h;
                minus[j] -= h;
                let (a, b) = (
                    contact_force(&law, &state_of(&plus)),
                    contact_force(&law, &state_of(&minus)),
                );
                let force = (a.force - b.force) / (2.0 * h);
                let torque = (a.torque - b.torque) / (2.0 * h);
                let scale = force.amax().max(torque.amax()).max(1e-12);
                let error = (force - d_force.column(j))
                    .amax()
                    .max((torque - d_torque.column(j)).amax())
                    / scale;
                // Central differences with steps of 1e-6 of each scale lose up to 3.4e-6 to
                // round-off where a fast approach makes the force large (measured: a stuck
                // pair's offset at 2 m/s); a wrong term of the derivative is off by far more.
                assert!(
                    error < 1e-5,
                    "sample {sample}, parameter {j}: error {error:e}: {:?} against {:?}, torque {:?} \
                     against {:?}",
                    force.as_slice(),
                    d_force.column(j).iter().collect::<Vec<_>>(),
                    torque.as_slice(),
                    d_torque.column(j).iter().collect::<Vec<_>>()
                );
                worst = worst.max(error);
            }
        }
        eprintln!("contact law's derivative against central differences within {worst:.1e}");
    }

    /// Moduli out of their physical range are refused: E ≤ 0, ν ≤ −1 or ν ≥ 1 (where
    /// E / (1 − ν²) has no meaning).
    #[test]
    fn moduli_out_of_range_are_refused() {
        let solid = |youngs_modulus, poissons_ratio| SolidMaterial {
            name: "test",
            density: 1000.0,
            youngs_modulus,
            poissons_ratio,
        };
        let good = solid(1e9, 0.3);
        for bad in [
            solid(0.0, 0.3),
            solid(f64::NAN, 0.3),
            solid(1e9, 1.0),
            solid(1e9, -1.0),
        ] {
            assert!(resultant_modulus(&good, &bad).is_err(), "{bad:?}");
            assert!(resultant_modulus(&bad, &good).is_err(), "{bad:?}");
        }
        assert!(resultant_modulus(&good, &solid(1e9, 0.9999)).is_ok());
    }

    #[test]
    fn hand_values() {
        // c_res for steel on dry wood.
        let c1 = 2.0e11 / (1.0 - 0.09);
        let c2 = 1.1e10 / (1.0 - 0.16);
        let c_res = c1 * c2 / (c1 + c2);
        let law = steel_wood(ContactGeometry::hertz(0.01));
        assert!((law.c_res / c_res - 1.0).abs() < 1e-14);
        // χ for cor = 0.7: (1 − 0.49) / (1 + 0.49).
        assert!((law.hysteresis - 0.51 / 1.49).abs() < 1e-15);
        // Spring force at 1e-5 m, no rate: 4/3 sqrt(0.01) c_res δ^1.5.
        let r = contact_force(&law, &state(1e-5, 0.0, Vector3::zeros(), Vector3::zeros()));
        let expected = 4.0 / 3.0 * 0.1 * c_res * 1e-5f64.powf(1.5);
        assert!((r.normal_force / expected - 1.0).abs() < 1e-14);
        assert_eq!(r.force, Vector3::new(0.0, 0.0, expected));
        // Sliding fast along x: full friction against the motion.
        let r = contact_force(
            &law,
            &state(1e-5, 0.0, Vector3::new(1.0, 0.0, -0.3), Vector3::zeros()),
        );
        assert!((r.force.x + 0.5 * expected).abs() < 1e-9 * expected);
        // Half of v_small: g(0.5) = 0.75.
        let r = contact_force(
            &law,
            &state(1e-5, 0.0, Vector3::new(0.0, 0.005, 0.0), Vector3::zeros()),
        );
        assert!((r.force.y + 0.75 * 0.5 * expected).abs() < 1e-9 * expected);
        // Rolling resistance: μ_r μ_geo f_n against ω.
        let r = contact_force(
            &law,
            &state(1e-5, 0.0, Vector3::zeros(), Vector3::new(0.0, 10.0, 0.0)),
        );
        assert!((r.torque.y + 0.001 * 0.01 * expected).abs() < 1e-12 * expected);
    }

    /// A pair that holds its turn: the torque is the angular spring-damper, by hand, with
    /// τ_max = μ_r μ_geo f_n, k_r = τ_max μ_geo / d and c_r = 1.5 τ_max / ω_small; the sliding
    /// spring is untouched by it.
    #[test]
    fn a_held_turn_is_an_angular_spring_damper() {
        let law = steel_wood(ContactGeometry::hertz(0.01));
        let mut s = state(1e-5, 0.0, Vector3::zeros(), Vector3::new(0.0, 0.002, 0.0));
        let f_n = contact_force(&law, &s).normal_force;
        s.anchor_turn = Some(Vector3::new(1e-4, 0.0, -2e-4));
        let r = contact_force(&law, &s);
        let limit = 0.001 * 0.01 * f_n;
        let (k, c) = (limit * 0.01 / 1e-5, 1.5 * limit / 0.01);
        let expected = Vector3::new(-k * 1e-4, -c * 0.002, k * 2e-4);
        assert!(
            (r.torque - expected).norm() < 1e-12 * expected.norm(),
            "{:?}",
            r.torque
        );
        assert_eq!(r.friction_force, 0.0);
        // At the presliding angle d / μ_geo the spring alone holds τ_max.
        s.relative_angular_velocity = Vector3::zeros();
        s.anchor_turn = Some(Vector3::new(0.0, 0.0, 1e-5 / 0.01));
        let r = contact_force(&law, &s);
        assert!((r.torque.norm() / limit - 1.0).abs() < 1e-12);
    }

    #[test]
    fn geometry_from_shapes() {
        let ball = Shape::new(&ShapeSpec::Sphere { diameter: 0.06 }).unwrap();
        let table = Shape::new(&ShapeSpec::Box {
            lengths: Vector3::new(2.0, 1.0, 0.1),
        })
        .unwrap();
        assert_eq!(
            ContactGeometry::from_shapes(&ball, &table),
            ContactGeometry::hertz(0.03)
        );
        assert_eq!(
            ContactGeometry::from_shapes(&ball, &ball),
            ContactGeometry::hertz(0.015)
        );
        let g = ContactGeometry::from_shapes(&table, &table);
        assert_eq!((g.n_geo, g.c_geo, g.mu_geo), (1.0, 0.002, 0.001));
    }

    /// The spring is 1 + χ times stiffer while the shapes approach faster than v_small, 1 − χ
    /// times while they part faster, and blends between (g(1/2) = 3/4 at half of v_small).
    #[test]
    fn hysteresis_follows_the_penetration_rate() {
        assert_eq!(hysteresis(1.0), 0.0);
        assert_eq!(hysteresis(0.0), 1.0);
        let law = steel_wood(ContactGeometry::hertz(0.01));
        let chi = law.hysteresis;
        let force = |rate: f64| {
            contact_force(&law, &state(1e-5, rate, Vector3::zeros(), Vector3::zeros())).normal_force
        };
        let spring = force(0.0);
        for (rate, factor) in [
            (0.01, 1.0 + chi),
            (3.0, 1.0 + chi),
            (-0.01, 1.0 - chi),
            (-3.0, 1.0 - chi),
            (0.005, 1.0 + 0.75 * chi),
            (-0.005, 1.0 - 0.75 * chi),
        ] {
            assert!(
                (force(rate) / spring - factor).abs() < 1e-14,
                "rate {rate}: {} instead of {factor}",
                force(rate) / spring
            );
        }
    }

    #[test]
    fn limits() {
        let law = steel_wood(ContactGeometry::hertz(0.05));
        // No force at δ = 0 with δ̇ ≤ 0.
        for rate in [0.0, -1.0, -1e-9] {
            let r = contact_force(
                &law,
                &state(0.0, rate, Vector3::new(1.0, 0.0, 0.0), Vector3::x()),
            );
            assert_eq!(r.force, Vector3::zeros());
            assert_eq!(r.torque, Vector3::zeros());
        }
        // f_n ≥ 0 and friction bounded, over a grid of states.
        for i in 0..40 {
            for j in 0..40 {
                let delta = 1e-7 * i as f64;
                let rate = -5.0 + 0.25 * j as f64;
                let v = Vector3::new(0.01 * j as f64 - 0.2, 0.003 * i as f64, rate);
                let r = contact_force(&law, &state(delta, rate, v, v));
                assert!(r.normal_force >= 0.0);
                assert!(r.friction_force <= law.mu_k * r.normal_force * (1.0 + 1e-12));
                assert!(r.torque.norm() <= law.mu_r * 0.05 * r.normal_force * (1.0 + 1e-12));
                assert!(r.force.iter().all(|x| x.is_finite()));
            }
        }
    }

    /// Rebound speed of a steel ball (radius 5 cm) striking dry wood at `v0` under `law`, one
    /// contact integrated with RK4 in physical units at a step of 1/4000 of the Hertz contact
    /// time (independent of the law's own derivation).
    fn rebound_speed(law: &ContactLaw, v0: f64) -> f64 {
        let r = 0.05;
        let m = lookup("steel").unwrap().density * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        let t_c = (m / (law.stiffness() * v0.sqrt())).powf(0.4);
        let h = t_c / 4000.0;
        let accel = |delta: f64, rate: f64| {
            let s = state(delta, rate, Vector3::zeros(), Vector3::zeros());
            -contact_force(law, &s).normal_force / m
        };
        // y = (δ, δ̇); contact from δ = 0 with δ̇ = v0 until δ returns to 0.
        let (mut d, mut v) = (0.0f64, v0);
        let mut steps = 0;
        while (d >= 0.0 || steps == 0) && steps < 1_000_000 {
            let (k1d, k1v) = (v, accel(d, v));
            let (k2d, k2v) = (
                v + 0.5 * h * k1v,
                accel(d + 0.5 * h * k1d, v + 0.5 * h * k1v),
            );
            let (k3d, k3v) = (
                v + 0.5 * h * k2v,
                accel(d + 0.5 * h * k2d, v + 0.5 * h * k2v),
            );
            let (k4d, k4v) = (v + h * k3v, accel(d + h * k3d, v + h * k3v));
            d += h / 6.0 * (k1d + 2.0 * k2d + 2.0 * k3d + k4d);
            v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
            steps += 1;
        }
        -v
    }

    fn steel_on_wood_with(cor: f64, geometry: ContactGeometry) -> ContactLaw {
        let pair = ContactPairMaterial::new(cor, 0.0, 0.0);
        ContactLaw::new(
            lookup("steel").unwrap(),
            lookup("dry_wood").unwrap(),
            &pair,
            geometry,
        )
        .unwrap()
    }

    /// One impact restores cor·v0 for Hertz and linear contacts, at impact speeds from 5 × v_small
    /// to 300 × v_small: the energy balance of the hysteresis loop, exact but for the blend
    /// within v_small of the deepest point. That blend lets the parting shapes gain speed up to
    /// v_small (a plastic pair parts at up to v_small) and costs the rebound energy of order
    /// v_small², so the rebound speed is off by at most min(v_small, v_small² / (4 cor v0)).
    #[test]
    fn one_bounce_restores_cor_at_any_impact_speed() {
        let mut worst: f64 = 0.0;
        for geometry in [ContactGeometry::hertz(0.05), ContactGeometry::linear(0.001)] {
            for cor in [0.0, 0.3, 0.5, 0.7, 0.9, 1.0] {
                let law = steel_on_wood_with(cor, geometry);
                let v_s = law.v_small;
                for v0 in [0.05, 0.2, 1.0, 3.0] {
                    let error = (rebound_speed(&law, v0) - cor * v0).abs();
                    let allowed = v_s.min(0.25 * v_s * v_s / (cor * v0)) + 1e-7 * v0;
                    assert!(
                        error < allowed,
                        "n {} cor {cor} v0 {v0}: rebound off by {error:.2e} m/s (allowed {allowed:.1e})",
                        geometry.n_geo
                    );
                    worst = worst.max(error / allowed);
                }
            }
        }
        eprintln!("largest rebound error / allowed: {worst:.3}");
        assert!(
            worst > 0.1,
            "the bound is far from the error achieved: {worst}"
        );
    }

    /// Impacts slower than v_small are damped less than cor says (the law is viscous there),
    /// never more, and the rebound never exceeds the impact speed.
    #[test]
    fn slow_impacts_are_damped_less() {
        let law = steel_on_wood_with(0.7, ContactGeometry::hertz(0.05));
        for v0 in [1e-4, 1e-3, 5e-3] {
            let e = rebound_speed(&law, v0) / v0;
            eprintln!("v0 {v0}: rebound ratio {e:.4}");
            assert!(e > 0.7 && e < 1.0, "v0 {v0}: rebound ratio {e}");
        }
    }
}
