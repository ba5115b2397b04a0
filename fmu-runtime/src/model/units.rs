//! Units a model file may write after a value: their scale to SI and their quantity kind.

/// The largest magnitude of any value in SI units: the engine forms products of up to three
/// values (a density times a volume, a mass times a squared speed), which stay finite below
/// 1.8e308 when each factor is below this.
pub const MAX_MAGNITUDE: f64 = 1e100;

/// The speed of light [m/s]: no speed of a Newtonian mechanism comes near it.
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

/// Why a value is beyond what fmu3d simulates: the one place of the limits and their wording,
/// for the fields of a model file, parameter overrides and `fmi2SetReal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfRange {
    NotFinite,
    /// Above [`MAX_MAGNITUDE`].
    TooLarge,
    /// A velocity above [`SPEED_OF_LIGHT`].
    FasterThanLight,
}

impl OutOfRange {
    /// The first limit that `components` (a value or a vector, in SI units) of quantity `kind`
    /// (where known) break, if any.
    pub fn check(components: &[f64], kind: Option<Kind>) -> Option<OutOfRange> {
        if components.iter().any(|v| !v.is_finite()) {
            return Some(OutOfRange::NotFinite);
        }
        if components.iter().any(|v| v.abs() > MAX_MAGNITUDE) {
            return Some(OutOfRange::TooLarge);
        }
        let magnitude = components.iter().map(|v| v * v).sum::<f64>().sqrt();
        (kind == Some(Kind::Velocity) && magnitude > SPEED_OF_LIGHT)
            .then_some(OutOfRange::FasterThanLight)
    }

    /// What the value is: "is not finite", "is out of range", "is faster than light".
    pub fn what(self) -> &'static str {
        match self {
            OutOfRange::NotFinite => "is not finite",
            OutOfRange::TooLarge => "is out of range",
            OutOfRange::FasterThanLight => "is faster than light",
        }
    }

    /// The limit, to follow a colon.
    pub fn limit(self) -> String {
        match self {
            OutOfRange::NotFinite => "values must be finite".to_string(),
            OutOfRange::TooLarge => format!(
                "fmu3d takes values up to {MAX_MAGNITUDE:e} in SI units, so that products of them \
                 stay finite"
            ),
            OutOfRange::FasterThanLight => {
                format!("fmu3d simulates Newtonian mechanics, below {SPEED_OF_LIGHT} m/s")
            }
        }
    }
}

/// The physical quantity a field expects or a unit measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dimensionless,
    Length,
    Angle,
    Mass,
    Time,
    Force,
    Torque,
    TranslationalStiffness,
    TranslationalDamping,
    RotationalStiffness,
    RotationalDamping,
    Inertia,
    Density,
    Velocity,
    Acceleration,
    AngularVelocity,
    AngularAcceleration,
    GravitationalParameter,
    Pressure,
    Voltage,
    Current,
    Resistance,
    Inductance,
    /// Torque per current of a DC motor (= its back-EMF voltage per speed).
    MotorConstant,
    Power,
}

impl Kind {
    /// The kind of the time derivative of a quantity of this kind, where one is defined (a
    /// length's is a velocity); `None` for the others.
    pub fn per_second(self) -> Option<Kind> {
        match self {
            Kind::Length => Some(Kind::Velocity),
            Kind::Angle => Some(Kind::AngularVelocity),
            Kind::Velocity => Some(Kind::Acceleration),
            Kind::AngularVelocity => Some(Kind::AngularAcceleration),
            _ => None,
        }
    }

    /// The name with its indefinite article ("an angle", "a length").
    pub fn with_article(self) -> String {
        let name = self.name();
        let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {name}")
    }

    /// The name used in error messages ("expected a length").
    pub fn name(self) -> &'static str {
        match self {
            Kind::Dimensionless => "pure number",
            Kind::Length => "length",
            Kind::Angle => "angle",
            Kind::Mass => "mass",
            Kind::Time => "time",
            Kind::Force => "force",
            Kind::Torque => "torque",
            Kind::TranslationalStiffness => "translational stiffness",
            Kind::TranslationalDamping => "translational damping",
            Kind::RotationalStiffness => "rotational stiffness",
            Kind::RotationalDamping => "rotational damping",
            Kind::Inertia => "moment of inertia",
            Kind::Density => "density",
            Kind::Velocity => "velocity",
            Kind::Acceleration => "acceleration",
            Kind::AngularVelocity => "angular velocity",
            Kind::AngularAcceleration => "angular acceleration",
            Kind::GravitationalParameter => "gravitational parameter",
            Kind::Pressure => "pressure",
            Kind::Voltage => "voltage",
            Kind::Current => "current",
            Kind::Resistance => "resistance",
            Kind::Inductance => "inductance",
            Kind::MotorConstant => "motor constant",
            Kind::Power => "power",
        }
    }

    /// The SI unit in Modelica notation.
    pub fn si_unit(self) -> &'static str {
        match self {
            Kind::Dimensionless => "1",
            Kind::Length => "m",
            Kind::Angle => "rad",
            Kind::Mass => "kg",
            Kind::Time => "s",
            Kind::Force => "N",
            Kind::Torque => "N.m",
            Kind::TranslationalStiffness => "N/m",
            Kind::TranslationalDamping => "N.s/m",
            Kind::RotationalStiffness => "N.m/rad",
            Kind::RotationalDamping => "N.m.s/rad",
            Kind::Inertia => "kg.m2",
            Kind::Density => "kg/m3",
            Kind::Velocity => "m/s",
            Kind::Acceleration => "m/s2",
            Kind::AngularVelocity => "rad/s",
            Kind::AngularAcceleration => "rad/s2",
            Kind::GravitationalParameter => "m3/s2",
            Kind::Pressure => "Pa",
            Kind::Voltage => "V",
            Kind::Current => "A",
            Kind::Resistance => "Ohm",
            Kind::Inductance => "H",
            Kind::MotorConstant => "N.m/A",
            Kind::Power => "W",
        }
    }

    /// The SI unit as exponents of the base units that FMI 2.0's `<BaseUnit>` names, for the
    /// unit definitions of modelDescription.xml. A value in SI has factor 1 and offset 0.
    pub fn base_units(self) -> BaseUnits {
        //                       kg  m   s   A   K mol cd rad
        let exponents = match self {
            Kind::Dimensionless => [0, 0, 0, 0, 0, 0, 0, 0],
            Kind::Length => [0, 1, 0, 0, 0, 0, 0, 0],
            Kind::Angle => [0, 0, 0, 0, 0, 0, 0, 1],
            Kind::Mass => [1, 0, 0, 0, 0, 0, 0, 0],
            Kind::Time => [0, 0, 1, 0, 0, 0, 0, 0],
            Kind::Force => [1, 1, -2, 0, 0, 0, 0, 0],
            Kind::Torque => [1, 2, -2, 0, 0, 0, 0, 0],
            Kind::TranslationalStiffness => [1, 0, -2, 0, 0, 0, 0, 0],
            Kind::TranslationalDamping => [1, 0, -1, 0, 0, 0, 0, 0],
            Kind::RotationalStiffness => [1, 2, -2, 0, 0, 0, 0, -1],
            Kind::RotationalDamping => [1, 2, -1, 0, 0, 0, 0, -1],
            Kind::Inertia => [1, 2, 0, 0, 0, 0, 0, 0],
            Kind::Density => [1, -3, 0, 0, 0, 0, 0, 0],
            Kind::Velocity => [0, 1, -1, 0, 0, 0, 0, 0],
            Kind::Acceleration => [0, 1, -2, 0, 0, 0, 0, 0],
            Kind::AngularVelocity => [0, 0, -1, 0, 0, 0, 0, 1],
            Kind::AngularAcceleration => [0, 0, -2, 0, 0, 0, 0, 1],
            Kind::GravitationalParameter => [0, 3, -2, 0, 0, 0, 0, 0],
            Kind::Pressure => [1, -1, -2, 0, 0, 0, 0, 0],
            Kind::Voltage => [1, 2, -3, -1, 0, 0, 0, 0],
            Kind::Current => [0, 0, 0, 1, 0, 0, 0, 0],
            Kind::Resistance => [1, 2, -3, -2, 0, 0, 0, 0],
            Kind::Inductance => [1, 2, -2, -2, 0, 0, 0, 0],
            Kind::MotorConstant => [1, 2, -2, -1, 0, 0, 0, 0],
            Kind::Power => [1, 2, -3, 0, 0, 0, 0, 0],
        };
        BaseUnits { exponents }
    }
}

/// The unit of a variable or parameter as written in modelDescription.xml and result headers:
/// its kind's SI unit, or nothing (a pure number written without a unit).
pub fn name(unit: Option<Kind>) -> &'static str {
    unit.map_or("", Kind::si_unit)
}

/// The base units in the order of [`BaseUnits::exponents`], spelled as FMI 2.0's attributes.
pub const BASE_UNIT_NAMES: [&str; 8] = ["kg", "m", "s", "A", "K", "mol", "cd", "rad"];

/// Exponents of kg, m, s, A, K, mol, cd and rad.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BaseUnits {
    pub exponents: [i32; 8],
}

impl BaseUnits {
    /// The non-zero exponents with their base unit's name, in FMI's attribute order.
    pub fn nonzero(&self) -> impl Iterator<Item = (&'static str, i32)> + '_ {
        BASE_UNIT_NAMES
            .iter()
            .zip(self.exponents)
            .filter(|(_, e)| *e != 0)
            .map(|(name, e)| (*name, e))
    }
}

/// A unit: its spelling, the factor that turns a value in it into SI, and what it measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    pub name: &'static str,
    pub scale: f64,
    pub kind: Kind,
}

const DEG: f64 = std::f64::consts::PI / 180.0;

/// Every unit the language knows.
pub const UNITS: &[Unit] = &[
    Unit {
        name: "1",
        scale: 1.0,
        kind: Kind::Dimensionless,
    },
    Unit {
        name: "m",
        scale: 1.0,
        kind: Kind::Length,
    },
    Unit {
        name: "cm",
        scale: 1e-2,
        kind: Kind::Length,
    },
    Unit {
        name: "mm",
        scale: 1e-3,
        kind: Kind::Length,
    },
    Unit {
        name: "km",
        scale: 1e3,
        kind: Kind::Length,
    },
    Unit {
        name: "rad",
        scale: 1.0,
        kind: Kind::Angle,
    },
    Unit {
        name: "deg",
        scale: DEG,
        kind: Kind::Angle,
    },
    Unit {
        name: "kg",
        scale: 1.0,
        kind: Kind::Mass,
    },
    Unit {
        name: "g",
        scale: 1e-3,
        kind: Kind::Mass,
    },
    Unit {
        name: "s",
        scale: 1.0,
        kind: Kind::Time,
    },
    Unit {
        name: "ms",
        scale: 1e-3,
        kind: Kind::Time,
    },
    Unit {
        name: "N",
        scale: 1.0,
        kind: Kind::Force,
    },
    Unit {
        name: "kN",
        scale: 1e3,
        kind: Kind::Force,
    },
    Unit {
        name: "N.m",
        scale: 1.0,
        kind: Kind::Torque,
    },
    Unit {
        name: "N/m",
        scale: 1.0,
        kind: Kind::TranslationalStiffness,
    },
    Unit {
        name: "N/mm",
        scale: 1e3,
        kind: Kind::TranslationalStiffness,
    },
    Unit {
        name: "kN/m",
        scale: 1e3,
        kind: Kind::TranslationalStiffness,
    },
    Unit {
        name: "N.s/m",
        scale: 1.0,
        kind: Kind::TranslationalDamping,
    },
    Unit {
        name: "N.m/rad",
        scale: 1.0,
        kind: Kind::RotationalStiffness,
    },
    Unit {
        name: "N.m/deg",
        scale: 1.0 / DEG,
        kind: Kind::RotationalStiffness,
    },
    Unit {
        name: "N.m.s/rad",
        scale: 1.0,
        kind: Kind::RotationalDamping,
    },
    Unit {
        name: "kg.m2",
        scale: 1.0,
        kind: Kind::Inertia,
    },
    Unit {
        name: "g.cm2",
        scale: 1e-7,
        kind: Kind::Inertia,
    },
    Unit {
        name: "kg/m3",
        scale: 1.0,
        kind: Kind::Density,
    },
    Unit {
        name: "g/cm3",
        scale: 1e3,
        kind: Kind::Density,
    },
    Unit {
        name: "m/s",
        scale: 1.0,
        kind: Kind::Velocity,
    },
    Unit {
        name: "mm/s",
        scale: 1e-3,
        kind: Kind::Velocity,
    },
    Unit {
        name: "km/h",
        scale: 1.0 / 3.6,
        kind: Kind::Velocity,
    },
    Unit {
        name: "m/s2",
        scale: 1.0,
        kind: Kind::Acceleration,
    },
    Unit {
        name: "rad/s",
        scale: 1.0,
        kind: Kind::AngularVelocity,
    },
    Unit {
        name: "deg/s",
        scale: DEG,
        kind: Kind::AngularVelocity,
    },
    Unit {
        name: "rpm",
        scale: 2.0 * std::f64::consts::PI / 60.0,
        kind: Kind::AngularVelocity,
    },
    Unit {
        name: "rad/s2",
        scale: 1.0,
        kind: Kind::AngularAcceleration,
    },
    Unit {
        name: "m3/s2",
        scale: 1.0,
        kind: Kind::GravitationalParameter,
    },
    Unit {
        name: "Pa",
        scale: 1.0,
        kind: Kind::Pressure,
    },
    Unit {
        name: "kPa",
        scale: 1e3,
        kind: Kind::Pressure,
    },
    Unit {
        name: "MPa",
        scale: 1e6,
        kind: Kind::Pressure,
    },
    Unit {
        name: "GPa",
        scale: 1e9,
        kind: Kind::Pressure,
    },
    Unit {
        name: "V",
        scale: 1.0,
        kind: Kind::Voltage,
    },
    Unit {
        name: "mV",
        scale: 0.001,
        kind: Kind::Voltage,
    },
    Unit {
        name: "kV",
        scale: 1000.0,
        kind: Kind::Voltage,
    },
    Unit {
        name: "A",
        scale: 1.0,
        kind: Kind::Current,
    },
    Unit {
        name: "mA",
        scale: 0.001,
        kind: Kind::Current,
    },
    Unit {
        name: "Ohm",
        scale: 1.0,
        kind: Kind::Resistance,
    },
    Unit {
        name: "mOhm",
        scale: 0.001,
        kind: Kind::Resistance,
    },
    Unit {
        name: "kOhm",
        scale: 1000.0,
        kind: Kind::Resistance,
    },
    Unit {
        name: "H",
        scale: 1.0,
        kind: Kind::Inductance,
    },
    Unit {
        name: "mH",
        scale: 0.001,
        kind: Kind::Inductance,
    },
    Unit {
        name: "uH",
        scale: 1e-06,
        kind: Kind::Inductance,
    },
    Unit {
        name: "N.m/A",
        scale: 1.0,
        kind: Kind::MotorConstant,
    },
    Unit {
        name: "V.s/rad",
        scale: 1.0,
        kind: Kind::MotorConstant,
    },
    Unit {
        name: "W",
        scale: 1.0,
        kind: Kind::Power,
    },
    Unit {
        name: "kW",
        scale: 1e3,
        kind: Kind::Power,
    },
];

pub fn lookup(name: &str) -> Option<&'static Unit> {
    UNITS.iter().find(|u| u.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exponents of an SI unit string (`N.m.s/rad`), read symbol by symbol: an oracle for the
    /// table of [`Kind::base_units`] written from the definitions of the derived units.
    fn parse(unit: &str) -> [i32; 8] {
        let symbols: [(&str, [i32; 8]); 13] = [
            ("kg", [1, 0, 0, 0, 0, 0, 0, 0]),
            ("m", [0, 1, 0, 0, 0, 0, 0, 0]),
            ("s", [0, 0, 1, 0, 0, 0, 0, 0]),
            ("A", [0, 0, 0, 1, 0, 0, 0, 0]),
            ("rad", [0, 0, 0, 0, 0, 0, 0, 1]),
            ("N", [1, 1, -2, 0, 0, 0, 0, 0]),
            ("Pa", [1, -1, -2, 0, 0, 0, 0, 0]),
            ("J", [1, 2, -2, 0, 0, 0, 0, 0]),
            ("W", [1, 2, -3, 0, 0, 0, 0, 0]),
            ("V", [1, 2, -3, -1, 0, 0, 0, 0]),
            ("Ohm", [1, 2, -3, -2, 0, 0, 0, 0]),
            ("H", [1, 2, -2, -2, 0, 0, 0, 0]),
            ("1", [0; 8]),
        ];
        let mut total = [0; 8];
        let (numerator, denominator) = unit.split_once('/').unwrap_or((unit, "1"));
        for (part, sign) in [(numerator, 1), (denominator, -1)] {
            for factor in part.split('.') {
                let split = factor.find(|c: char| c.is_ascii_digit() && factor != "1");
                let (symbol, power) = match split {
                    Some(i) => (&factor[..i], factor[i..].parse::<i32>().expect("a power")),
                    None => (factor, 1),
                };
                let (_, base) = symbols
                    .iter()
                    .find(|(name, _)| *name == symbol)
                    .unwrap_or_else(|| panic!("`{symbol}` in `{unit}`"));
                for (t, b) in total.iter_mut().zip(base) {
                    *t += sign * power * b;
                }
            }
        }
        total
    }

    #[test]
    fn base_units_are_those_of_the_si_unit() {
        for unit in UNITS {
            let kind = unit.kind;
            assert_eq!(
                kind.base_units().exponents,
                parse(kind.si_unit()),
                "{kind:?}: {}",
                kind.si_unit()
            );
        }
        let exponents = |kind: Kind| kind.base_units().nonzero().collect::<Vec<_>>();
        assert_eq!(exponents(Kind::Torque), [("kg", 1), ("m", 2), ("s", -2)]);
        assert_eq!(
            exponents(Kind::RotationalDamping),
            [("kg", 1), ("m", 2), ("s", -1), ("rad", -1)]
        );
        assert_eq!(
            exponents(Kind::AngularAcceleration),
            [("s", -2), ("rad", 1)]
        );
        assert_eq!(exponents(Kind::Dimensionless), []);
    }

    #[test]
    fn scales() {
        assert!((lookup("deg").unwrap().scale - 0.017453292519943295).abs() < 1e-15);
        assert_eq!(lookup("g/cm3").unwrap().scale, 1000.0);
        assert_eq!(lookup("N.m.s/rad").unwrap().kind.si_unit(), "N.m.s/rad");
        assert!(lookup("furlong").is_none());
    }
}
