"""Monolithic reference for the crank with flywheel driven by the drive train: the whole system
has one degree of freedom (motor, gear, crank, flywheel, eccentric mass turn together), so its
equations are written here directly and integrated with scipy's solve_ivp at tight tolerances,
independently of fmu3d and of the FMUs.

States: armature current i, crank angle phi, crank speed w, PI integrator x.

    w_ref = w_set * min(t / t_ramp, 1)
    u_c   = Kp*(w_ref - w) + Ki*x,   u = clamp(u_c, -U_max, U_max)
    L di/dt   = u - R*i - k*ratio*w
    J dw/dt   = ratio*k*i - m_e*g*r_e*cos(phi),   J = J_fw + m_e*r_e^2 + J_m*ratio^2
    dphi/dt   = w
    dx/dt     = w_ref - w + (u - u_c)/Kp

With `voltage=u(t)` the controller is left out (open loop, as in models/crank_drive.m3d, the
monolithic model of the same system): u = u(t) and x stays 0.

The eccentric mass sits at radius r_e on the crank's x axis (phi = 0: level with the axis),
gravity g along -y, so its height is r_e*sin(phi).

    python reference.py      # prints the angle, speed and energy balance at 2 s
"""

import math

import numpy as np
from scipy.integrate import solve_ivp

#: The parameters of drive_train.py and crank.m3d (SI).
PARAMETERS = dict(
    R=0.5, L=0.5e-3, k=0.05, J_m=2e-5, ratio=10.0, U_max=8.0, Kp=2.0, Ki=20.0,
    w_set=4 * math.pi, t_ramp=0.2,
    J_fw=0.01, m_e=0.5, r_e=0.1, g=9.81, phi0=0.0,
)


def simulate(stop_time=2.0, rtol=1e-11, atol=1e-12, voltage=None, **overrides):
    """Integrates the system from rest; returns the dense solution of solve_ivp (states i, phi,
    w, x, and the energy integrals E_el = int u*i dt and E_loss = int R*i^2 dt). `voltage`, a
    function of time, replaces the PI controller by that open-loop motor voltage."""
    p = {**PARAMETERS, **overrides}
    R, L, k, ratio = p["R"], p["L"], p["k"], p["ratio"]
    Kp, Ki, U_max, w_set, t_ramp = p["Kp"], p["Ki"], p["U_max"], p["w_set"], p["t_ramp"]
    m_e, r_e, g = p["m_e"], p["r_e"], p["g"]
    J = p["J_fw"] + m_e * r_e**2 + p["J_m"] * ratio**2

    def rhs(t, y):
        i, phi, w, x = y[:4]
        w_ref = w_set * min(t / t_ramp, 1.0)
        if voltage is None:
            u_c = Kp * (w_ref - w) + Ki * x
            u = min(max(u_c, -U_max), U_max)
        else:
            u = u_c = voltage(t)
        return [
            (u - R * i - k * ratio * w) / L,
            w,
            (ratio * k * i - m_e * g * r_e * math.cos(phi)) / J,
            0.0 if voltage is not None else w_ref - w + (u - u_c) / Kp,
            u * i,
            R * i * i,
        ]

    # The ramp ends at t_ramp (a kink in the reference): integrate up to it, then on.
    y0 = [0.0, p["phi0"], 0.0, 0.0, 0.0, 0.0]
    pieces = []
    for t0, t1 in ((0.0, min(t_ramp, stop_time)), (min(t_ramp, stop_time), stop_time)):
        if t1 <= t0:
            continue
        s = solve_ivp(rhs, (t0, t1), y0, method="DOP853", rtol=rtol, atol=atol,
                      dense_output=True)
        assert s.success, s.message
        pieces.append(s)
        y0 = s.y[:, -1]

    def solution(t):
        t = np.asarray(t, dtype=float)
        out = np.empty((6,) + t.shape)
        for idx, tt in np.ndenumerate(t):
            piece = pieces[0] if tt <= pieces[0].t[-1] else pieces[-1]
            out[(slice(None),) + idx] = piece.sol(tt)
        return out

    solution.inertia = J
    solution.parameters = p
    return solution


def energies(solution, t):
    """(E_el, E_mech, E_mag, E_loss) at times t, E_mech from its start value."""
    p = solution.parameters
    i, phi, w, x, E_el, E_loss = solution(t)
    E_mech = 0.5 * solution.inertia * w**2 + p["m_e"] * p["g"] * p["r_e"] * (
        np.sin(phi) - math.sin(p["phi0"]))
    return E_el, E_mech, 0.5 * p["L"] * i**2, E_loss


if __name__ == "__main__":
    s = simulate()
    i, phi, w, x, E_el, E_loss = s(2.0)
    E_el, E_mech, E_mag, E_loss = energies(s, 2.0)
    print(f"reference at 2 s: phi = {phi:.9f} rad, w = {w:.9f} rad/s, current {i:.6f} A")
    print(f"  electrical energy in {E_el:.6f} J = mechanical {E_mech:.6f} J + magnetic "
          f"{E_mag:.6f} J + losses {E_loss:.6f} J + {E_el - E_mech - E_mag - E_loss:.2e} J")
