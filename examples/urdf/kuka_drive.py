"""A robot from URDF driven by a drive-train FMU: pybullet's KUKA iiwa, converted by `fmu3d
convert` and built by `fmu3d build`, with the DC-motor drive of ../cosimulation (pythonfmu) in
position control on its shoulder (joint 2) and its elbow (joint 4), coupled by a fixed-step
master over fmpy. The other five joints have no drive: they turn as the arm's motion and
gravity make them, against their damping.

    python kuka_drive.py [--stop-time 2] [--step 0.001] [--out kuka_drive.csv]

It writes the joints' angles and the drives' torques to a CSV, an animation (`kuka_drive.glb`,
`fmu3d animate`, viewable with `fmu3d view`), and checks the run against Pinocchio: the same
URDF file, read by Pinocchio, integrated with the torques the drives applied (held over each
communication step, as the master holds them), must give the same joint angles.
"""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "cosimulation"))

from fmpy_master import Slave, build_drive, fmu3d_executable  # noqa: E402

#: The drives: joint, commanded move [rad] from 0, and the drive's parameters (a gear of 100 and
#: a stiffer supply than the crank's, for a 20 kg arm; the angle loop as in ../cosimulation).
DRIVES = {
    "lbr_iiwa_joint_2": dict(phi_end=0.6),
    "lbr_iiwa_joint_4": dict(phi_end=-0.9),
}
DRIVE_PARAMETERS = dict(position_control=True, ratio=100.0, U_max=24.0, Kp=10.0, Ki=50.0,
                        Kv=8.0, t_begin=0.1, t_move=1.0, J_m=2e-5)


def urdf_file():
    """pybullet's KUKA iiwa (in the test environment's pybullet_data package)."""
    import pybullet_data
    return Path(pybullet_data.getDataPath()) / "kuka_iiwa" / "model.urdf"


def build(folder):
    """The robot's FMU (with every body's pose as an output, for the animation) and the drive's
    FMU, built into `folder`."""
    folder = Path(folder)
    robot = folder / "kuka.fmu"
    subprocess.run([fmu3d_executable(), "build", str(urdf_file()), "-o", str(robot),
                    "--animation-outputs"], check=True, capture_output=True, text=True)
    drive = folder / "drive_train.fmu"
    if not drive.is_file():
        build_drive(HERE.parent / "cosimulation" / "drive_train.py", folder)
    return robot, drive


def run(stop_time=2.0, step=1e-3, folder=HERE, tolerance=1e-10):
    """The coupled run, the robot integrated to the relative `tolerance`: (times, the robot's
    joint angles [n × 7], the torques applied [n × 7] over each step, the robot's output names
    and rows)."""
    robot_fmu, drive_fmu = build(folder)
    robot = Slave(robot_fmu, "kuka", tolerance=tolerance)
    drives = {joint: Slave(drive_fmu, f"drive_{joint}", DRIVE_PARAMETERS | extra)
              for joint, extra in DRIVES.items()}
    joints = [f"lbr_iiwa_joint_{k}" for k in range(1, 8)]
    outputs = [v for v in robot.vr if re.search(r"\.(r|Q)\[\d\]$", v)]
    steps = int(round(stop_time / step))
    times, angles, torques, rows = [], [], [], []
    for n in range(steps + 1):
        t = n * step
        phi = [robot.get(f"{j}.phi") for j in joints]
        w = [robot.get(f"{j}.w") for j in joints]
        times.append(t)
        angles.append(phi)
        rows.append([robot.get(name) for name in outputs])
        if n == steps:
            break
        applied = [0.0] * 7
        for k, joint in enumerate(joints):
            if joint in drives:
                drive = drives[joint]
                drive.set("phi_load", phi[k])
                drive.set("w_load", w[k])
                applied[k] = drive.get("tau_load")
                robot.set(f"{joint}.tau", applied[k])
        torques.append(applied)
        robot.step(t, step)
        for drive in drives.values():
            drive.step(t, step)
    for slave in [robot, *drives.values()]:
        slave.free()
    return np.array(times), np.array(angles), np.array(torques), outputs, rows


def pinocchio_angles(times, q0, torques):
    """The KUKA's joint angles at `times` by Pinocchio's forward dynamics (with the URDF's joint
    damping) under `torques`, each held over its step, integrated by DOP853 at 1e-12."""
    import pinocchio as pin
    from scipy.integrate import solve_ivp
    model = pin.buildModelFromUrdf(str(urdf_file()))
    data = model.createData()
    state = np.concatenate([q0, np.zeros(model.nv)])
    angles = [q0]
    for k in range(len(times) - 1):
        tau = torques[k]

        def rates(_, x):
            q, v = x[:model.nq], x[model.nq:]
            return np.concatenate([v, pin.aba(model, data, q, v, tau - model.damping * v)])

        solution = solve_ivp(rates, (times[k], times[k + 1]), state, method="DOP853",
                             rtol=1e-12, atol=1e-12)
        state = solution.y[:, -1]
        angles.append(state[:model.nq])
    return np.array(angles)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stop-time", type=float, default=2.0)
    parser.add_argument("--step", type=float, default=1e-3)
    parser.add_argument("--out", default="kuka_drive.csv")
    args = parser.parse_args(argv)
    times, angles, torques, outputs, rows = run(args.stop_time, args.step)
    reference = pinocchio_angles(times, angles[0], torques)
    difference = np.max(np.abs(angles - reference))
    header = ["time", *[f"lbr_iiwa_joint_{k}.phi" for k in range(1, 8)], *outputs]
    table = np.column_stack([times, angles, np.array(rows)])
    np.savetxt(args.out, table, delimiter=",", header=",".join(header), comments="")
    for joint, extra in DRIVES.items():
        k = int(joint[-1]) - 1
        print(f"{joint}: commanded {extra['phi_end']:+.3f} rad, reached {angles[-1, k]:+.4f} rad "
              f"at {times[-1]:.2f} s, largest drive torque {np.max(np.abs(torques[:, k])):.1f} N.m")
    print(f"largest joint-angle difference from Pinocchio over the run: {difference:.1e} rad")
    animation = Path(args.out).with_suffix(".glb")
    subprocess.run([fmu3d_executable(), "animate", args.out, "--fmu", str(HERE / "kuka.fmu"),
                    "-o", str(animation)], check=True, capture_output=True, text=True)
    print(f"wrote {args.out} and {animation} (fmu3d view {animation})")
    return difference


if __name__ == "__main__":
    os.chdir(HERE)
    main()
