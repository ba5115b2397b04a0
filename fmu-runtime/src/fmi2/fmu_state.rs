//! FMU states (`fmi2GetFMUstate` and friends) and their serialized form.
//!
//! A state is an [`InstanceState`] boxed behind a magic number. The serialized form is a
//! little-endian byte string: a header (`FMU3DST4`), the GUID of the FMU it belongs to, then the
//! fields in order. Reading checks every length and refuses another FMU's state. The header
//! names the layout: `FMU3DST2` added the stick state of the contacts (anchored points),
//! `FMU3DST3` the anchored relative orientation of a stuck pair, `FMU3DST4` the slip direction
//! of a sliding pair and the rolling state; a state of another layout is refused.

use super::instance::{InstanceState, Setup};
use super::state::ModelState;
use super::types::Fmi2FmuState;
use crate::dynamics::contacts::Friction;
use crate::simulation::{InputSignal, Snapshot, MAX_INPUT_DERIVATIVE_ORDER};
use nalgebra::{Quaternion, UnitQuaternion, Vector3, Vector4};

const STATE_MAGIC: u64 = 0x464d_5533_4453_5441;
const HEADER: &[u8; 8] = b"FMU3DST4";

#[repr(C)]
pub struct FmuState {
    magic: u64,
    pub guid: String,
    pub state: InstanceState,
}

impl FmuState {
    pub fn new(guid: &str, state: InstanceState) -> FmuState {
        FmuState {
            magic: STATE_MAGIC,
            guid: guid.to_string(),
            state,
        }
    }

    /// Boxes the state for the host.
    pub fn into_raw(self) -> Fmi2FmuState {
        Box::into_raw(Box::new(self)).cast()
    }
}

/// The state behind a handle, if it is one of ours and alive.
///
/// # Safety
/// `state` must be null or a handle made by [`FmuState::into_raw`].
pub unsafe fn get<'a>(state: Fmi2FmuState) -> Option<&'a mut FmuState> {
    if state.is_null() || !state.cast::<FmuState>().is_aligned() {
        return None;
    }
    let state = state.cast::<FmuState>();
    // SAFETY: non-null, aligned, and by contract one of ours.
    unsafe {
        if (*state).magic != STATE_MAGIC {
            return None;
        }
        Some(&mut *state)
    }
}

/// Frees a state handle.
///
/// # Safety
/// As for [`get`]; the handle dangles afterwards.
pub unsafe fn free(state: Fmi2FmuState) -> bool {
    // SAFETY: forwarded contract.
    match unsafe { get(state) } {
        Some(s) => {
            s.magic = 0;
            // SAFETY: made by Box::into_raw in into_raw, not freed before (magic intact).
            drop(unsafe { Box::from_raw(state.cast::<FmuState>()) });
            true
        }
        None => false,
    }
}

fn state_code(state: ModelState) -> u32 {
    state as u32
}

fn state_from_code(code: u32) -> Option<ModelState> {
    ModelState::ALL.iter().copied().find(|s| *s as u32 == code)
}

/// The serialized bytes of a state.
pub fn serialize(state: &FmuState) -> Vec<u8> {
    let mut out = Writer(Vec::new());
    out.0.extend_from_slice(HEADER);
    out.bytes(state.guid.as_bytes());
    let s = &state.state;
    out.u32(state_code(s.state));
    out.option(s.setup.tolerance);
    out.f64(s.setup.start_time);
    out.option(s.setup.stop_time);
    out.u32(s.parameters.len() as u32);
    for p in &s.parameters {
        out.option(*p);
    }
    out.f64(s.last_successful_time);
    match &s.simulation {
        None => out.u32(0),
        Some(snapshot) => {
            out.u32(1);
            out.f64(snapshot.t);
            out.floats(&snapshot.y);
            out.floats(&snapshot.yp);
            out.u32(snapshot.signals.len() as u32);
            for signal in &snapshot.signals {
                out.u32(signal.variable as u32);
                out.f64(signal.value);
                for d in signal.derivatives {
                    out.f64(d);
                }
                out.f64(signal.t0);
                out.u32(u32::from(signal.jumped));
            }
            out.u32(snapshot.frictions.len() as u32);
            for &((a, b), friction) in &snapshot.frictions {
                out.u32(a as u32);
                out.u32(b as u32);
                match friction {
                    Friction::Slipping {
                        armed,
                        direction,
                        rolled,
                    } => {
                        out.u32(u32::from(armed));
                        direction.iter().for_each(|x| out.f64(*x));
                        out.u32(u32::from(rolled));
                    }
                    Friction::Rolling { armed } => out.u32(3 + u32::from(armed)),
                    Friction::Stuck { on_a, on_b, turn } => {
                        out.u32(2);
                        on_a.iter()
                            .chain(on_b.iter())
                            .chain(turn.coords.iter())
                            .for_each(|x| out.f64(*x));
                    }
                }
            }
            out.floats(&snapshot.cut_angles);
            out.u32(snapshot.contacts.len() as u32);
            for &(a, b) in &snapshot.contacts {
                out.u32(a as u32);
                out.u32(b as u32);
            }
        }
    }
    out.0
}

/// Reads serialized bytes back; `guid` is the GUID of the instance they are meant for.
pub fn deserialize(bytes: &[u8], guid: &str) -> Result<FmuState, String> {
    let mut r = Reader { bytes, at: 0 };
    let broken = || "the serialized FMU state is truncated or corrupt".to_string();
    if r.take(HEADER.len()).ok_or_else(broken)? != HEADER {
        return Err("these bytes are not a serialized fmu3d FMU state".into());
    }
    let saved_guid =
        String::from_utf8(r.bytes().ok_or_else(broken)?.to_vec()).map_err(|_| broken())?;
    if saved_guid != guid {
        return Err(format!("the serialized state belongs to the FMU with GUID {saved_guid}, not to this one ({guid})"));
    }
    let state = state_from_code(r.u32().ok_or_else(broken)?).ok_or_else(broken)?;
    let tolerance = r.option().ok_or_else(broken)?;
    let start_time = r.f64().ok_or_else(broken)?;
    let stop_time = r.option().ok_or_else(broken)?;
    let count = r.u32().ok_or_else(broken)? as usize;
    let mut parameters = Vec::new();
    for _ in 0..count {
        parameters.push(r.option().ok_or_else(broken)?);
    }
    let last_successful_time = r.f64().ok_or_else(broken)?;
    let simulation = match r.u32().ok_or_else(broken)? {
        0 => None,
        1 => {
            let t = r.f64().ok_or_else(broken)?;
            let y = r.floats().ok_or_else(broken)?;
            let yp = r.floats().ok_or_else(broken)?;
            let count = r.u32().ok_or_else(broken)? as usize;
            let mut signals = Vec::new();
            for _ in 0..count {
                let variable = r.u32().ok_or_else(broken)? as usize;
                let value = r.f64().ok_or_else(broken)?;
                let mut derivatives = [0.0; MAX_INPUT_DERIVATIVE_ORDER];
                for d in &mut derivatives {
                    *d = r.f64().ok_or_else(broken)?;
                }
                let t0 = r.f64().ok_or_else(broken)?;
                let jumped = r.u32().ok_or_else(broken)? != 0;
                signals.push(InputSignal {
                    variable,
                    value,
                    derivatives,
                    t0,
                    jumped,
                });
            }
            let count = r.u32().ok_or_else(broken)? as usize;
            let mut frictions = Vec::new();
            for _ in 0..count {
                let a = r.u32().ok_or_else(broken)? as usize;
                let b = r.u32().ok_or_else(broken)? as usize;
                let friction = match r.u32().ok_or_else(broken)? {
                    tag @ (0 | 1) => Friction::Slipping {
                        armed: tag == 1,
                        direction: Vector3::new(
                            r.f64().ok_or_else(broken)?,
                            r.f64().ok_or_else(broken)?,
                            r.f64().ok_or_else(broken)?,
                        ),
                        rolled: r.u32().ok_or_else(broken)? != 0,
                    },
                    tag @ (3 | 4) => Friction::Rolling { armed: tag == 4 },
                    2 => {
                        let mut point = || -> Option<Vector3<f64>> {
                            Some(Vector3::new(r.f64()?, r.f64()?, r.f64()?))
                        };
                        let on_a = point().ok_or_else(broken)?;
                        let on_b = point().ok_or_else(broken)?;
                        let coords = Vector4::new(
                            r.f64().ok_or_else(broken)?,
                            r.f64().ok_or_else(broken)?,
                            r.f64().ok_or_else(broken)?,
                            r.f64().ok_or_else(broken)?,
                        );
                        // Written from a unit quaternion: not normalized again, so that a
                        // restored state repeats the original to the last bit.
                        let turn = UnitQuaternion::new_unchecked(Quaternion::from(coords));
                        Friction::Stuck { on_a, on_b, turn }
                    }
                    _ => return Err(broken()),
                };
                frictions.push(((a, b), friction));
            }
            let cut_angles = r.floats().ok_or_else(broken)?;
            let count = r.u32().ok_or_else(broken)? as usize;
            let mut contacts = Vec::new();
            for _ in 0..count {
                let a = r.u32().ok_or_else(broken)? as usize;
                let b = r.u32().ok_or_else(broken)? as usize;
                contacts.push((a, b));
            }
            Some(Snapshot {
                t,
                y,
                yp,
                signals,
                frictions,
                cut_angles,
                contacts,
            })
        }
        _ => return Err(broken()),
    };
    if r.at != bytes.len() {
        return Err(broken());
    }
    Ok(FmuState::new(
        guid,
        InstanceState {
            state,
            setup: Setup {
                tolerance,
                start_time,
                stop_time,
            },
            parameters,
            last_successful_time,
            simulation,
        },
    ))
}

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn option(&mut self, v: Option<f64>) {
        self.u32(u32::from(v.is_some()));
        self.f64(v.unwrap_or(0.0));
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
    }
    fn floats(&mut self, v: &[f64]) {
        self.u32(v.len() as u32);
        v.iter().for_each(|x| self.f64(*x));
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(slice)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn option(&mut self) -> Option<Option<f64>> {
        let present = self.u32()?;
        let value = self.f64()?;
        match present {
            0 => Some(None),
            1 => Some(Some(value)),
            _ => None,
        }
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn floats(&mut self) -> Option<Vec<f64>> {
        let n = self.u32()? as usize;
        // A count beyond the bytes left is corrupt: refused before allocating for it.
        if n > (self.bytes.len() - self.at) / 8 {
            return None;
        }
        (0..n).map(|_| self.f64()).collect()
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    fn sample() -> FmuState {
        FmuState::new(
            "{guid}",
            InstanceState {
                state: ModelState::StepComplete,
                setup: Setup {
                    tolerance: Some(1e-7),
                    start_time: 0.5,
                    stop_time: None,
                },
                parameters: vec![None, Some(2.5)],
                last_successful_time: 1.25,
                simulation: Some(Snapshot {
                    t: 1.25,
                    y: vec![1.0, -2.0],
                    yp: vec![0.5, f64::MIN_POSITIVE],
                    signals: vec![InputSignal {
                        variable: 3,
                        value: 4.0,
                        derivatives: [1.0, 2.0, 3.0],
                        t0: 1.0,
                        jumped: true,
                    }],
                    frictions: vec![
                        ((0, 1), Friction::slipping(false)),
                        ((0, 2), Friction::Rolling { armed: false }),
                        ((0, 3), Friction::Rolling { armed: true }),
                        (
                            (0, 7),
                            Friction::Stuck {
                                on_a: Vector3::new(1.0, 2.0, 3.0),
                                on_b: Vector3::new(-1.0, 0.5, f64::MIN_POSITIVE),
                                turn: UnitQuaternion::from_euler_angles(0.1, -0.2, 0.3),
                            },
                        ),
                        (
                            (3, 100_000),
                            Friction::Slipping {
                                armed: true,
                                direction: Vector3::new(0.6, -0.8, 0.0),
                                rolled: false,
                            },
                        ),
                        (
                            (4, 5),
                            Friction::Slipping {
                                armed: false,
                                direction: Vector3::zeros(),
                                rolled: true,
                            },
                        ),
                    ],
                    cut_angles: vec![7.5],
                    contacts: vec![(0, 1), (2, 9)],
                }),
            },
        )
    }

    #[test]
    fn round_trip_is_exact() {
        let state = sample();
        let bytes = serialize(&state);
        let back = deserialize(&bytes, "{guid}").map(|back| back.state);
        assert_eq!(back, Ok(state.state));
    }

    #[test]
    fn every_truncation_and_a_foreign_guid_are_refused() {
        let bytes = serialize(&sample());
        for n in 0..bytes.len() {
            assert!(
                deserialize(&bytes[..n], "{guid}").is_err(),
                "truncated at {n}"
            );
        }
        let error = deserialize(&bytes, "{other}").err().unwrap_or_default();
        assert!(error.contains("belongs to the FMU with GUID"));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(deserialize(&longer, "{guid}").is_err());
    }
}
