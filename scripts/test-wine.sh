#!/usr/bin/env bash
# The tests of the FMI C API against the Windows build of the runtime, run under Wine: the same
# test sources as on Linux, cross-compiled for x86_64-win7-windows-gnu with the toolchain of the
# DLL (scripts/windows-env.sh), each test executable run by Wine's 64-bit loader as cargo's runner.
#
#   - the call matrix and the FMI boundary (tests/tests: fmi2_api, fuzz_fmi, discard,
#     model_exchange, feedthrough, out_of_range, output_derivatives; through tests/fmi2_host.rs);
#   - the engine's saved states, which fmi2GetFMUstate hands out (simulation_api, drives,
#     rolling_stick and static_friction: the tests of a restore);
#   - the runtime's own unit tests of the FMI layer (modules fmi2 and fmu: FMU-state serialization,
#     resource URIs with a drive letter, the logger, the GUID).
#
# Run `bash scripts/setup.sh --python` first (it installs MinGW-w64, Debian's Rust and Wine).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/windows-env.sh
if ! windows_toolchain_present || ! wine64=$(wine64_loader); then
  echo "error: the Windows toolchain or Wine is missing: run bash scripts/setup.sh --python" >&2
  exit 1
fi
windows_toolchain_env
# A Wine prefix of its own (created on the first run), not the user's ~/.wine. Wine's "fixme"
# lines hidden, and the complaints of its desktop process that finds no display (winediag,
# systray); its other errors kept.
export WINEPREFIX="$PWD/target/wineprefix" WINEDEBUG=fixme-all,-winediag,-systray
export WINELOADER="$wine64"
# The test harness (`test`) is built from source like the standard library.
wine_test() {
  /usr/bin/cargo test --release --target "$win_target" -Zbuild-std=std,panic_unwind,test \
    --no-fail-fast --config "target.$win_target.runner = ['$wine64']" "$@"
}
# Names given to the script replace each group's filter: `bash scripts/test-wine.sh fmu_state`.
if [ $# -gt 0 ]; then
  fmi_filters=("$@") state_filters=("$@") unit_filters=("$@")
else
  fmi_filters=()
  state_filters=(a_saved_state_of_another_model_is_refused snapshots_hold_the_drive_states
    a_restored_state_keeps)
  unit_filters=(fmi2:: fmu::)
fi
status=0
echo "== under Wine: the FMI call matrix, the fuzzer and the FMI boundary"
wine_test -p fmu3d-tests --test fmi2_api --test fuzz_fmi --test discard --test model_exchange \
  --test feedthrough --test out_of_range --test output_derivatives -- "${fmi_filters[@]}" \
  || status=1
echo "== under Wine: the engine's saved states (what fmi2GetFMUstate hands out)"
wine_test -p fmu3d-tests --test simulation_api --test drives --test rolling_stick \
  --test static_friction -- "${state_filters[@]}" || status=1
echo "== under Wine: the runtime's unit tests of the FMI layer"
wine_test -p fmu-runtime --lib -- "${unit_filters[@]}" || status=1
exit "$status"
