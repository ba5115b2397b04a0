#!/bin/sh
# The crank (crank.m3d) and the drive train (drive_train.fmu, built with pythonfmu from
# drive_train.py) as one SSP 1.0 system: the connections of libcosim_master.py, the reflected
# motor inertia J_m*ratio^2 = 2e-5 kg.m2 * 10^2 as the crank's J_drive, a 1 ms step.
# Run from this folder; `fmu3d` is the release build or the one on PATH.
set -e
FMU3D=${FMU3D:-../../target/release/fmu3d}
[ -x "$FMU3D" ] || FMU3D=fmu3d
[ -f drive_train.fmu ] || python -m pythonfmu build -f drive_train.py -d .
"$FMU3D" ssp crank.m3d --fmu drive_crank=drive_train.fmu \
    --connect drive_crank.tau_load=crank.crank.tau \
    --connect crank.crank.phi=drive_crank.phi_load \
    --connect crank.crank.w=drive_crank.w_load --connect crank.crank.a=drive_crank.a_load \
    --param crank.J_drive=0.002 --step 0.001 --stop-time 2 -o ssp_crank_drive.ssp
