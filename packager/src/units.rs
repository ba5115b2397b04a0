//! Units of the FMU's variables: a Modelica unit string (`N.m`, `rad/s2`, `kg/m3`) as exponents
//! of the SI base units that FMI 2.0's `<BaseUnit>` names (kg, m, s, A, K, mol, cd, rad).
//!
//! Every value in the model is in SI, so a unit is always the product of powers of base units,
//! with factor 1 and offset 0.

/// The base units in the order of [`BaseUnits::exponents`], spelled as FMI 2.0's attributes.
pub const BASE_UNIT_NAMES: [&str; 8] = ["kg", "m", "s", "A", "K", "mol", "cd", "rad"];

/// Exponents of kg, m, s, A, K, mol, cd and rad.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BaseUnits {
    pub exponents: [i32; 8],
}

impl BaseUnits {
    /// Exponents in the order of [`BASE_UNIT_NAMES`].
    const fn of(exponents: [i32; 8]) -> Self {
        BaseUnits { exponents }
    }

    fn add(self, other: BaseUnits, power: i32) -> BaseUnits {
        let mut exponents = self.exponents;
        for (e, o) in exponents.iter_mut().zip(other.exponents) {
            *e += o * power;
        }
        BaseUnits { exponents }
    }

    /// The non-zero exponents with their base unit's name, in FMI's attribute order.
    pub fn nonzero(&self) -> impl Iterator<Item = (&'static str, i32)> + '_ {
        BASE_UNIT_NAMES
            .iter()
            .zip(self.exponents)
            .filter(|(_, e)| *e != 0)
            .map(|(name, e)| (*name, e))
    }
}

/// The SI units (base and coherent derived) a unit string may be built from.
const SYMBOLS: &[(&str, BaseUnits)] = &[
    ("kg", BaseUnits::of([1, 0, 0, 0, 0, 0, 0, 0])),
    ("m", BaseUnits::of([0, 1, 0, 0, 0, 0, 0, 0])),
    ("s", BaseUnits::of([0, 0, 1, 0, 0, 0, 0, 0])),
    ("A", BaseUnits::of([0, 0, 0, 1, 0, 0, 0, 0])),
    ("K", BaseUnits::of([0, 0, 0, 0, 1, 0, 0, 0])),
    ("mol", BaseUnits::of([0, 0, 0, 0, 0, 1, 0, 0])),
    ("cd", BaseUnits::of([0, 0, 0, 0, 0, 0, 1, 0])),
    ("rad", BaseUnits::of([0, 0, 0, 0, 0, 0, 0, 1])),
    ("N", BaseUnits::of([1, 1, -2, 0, 0, 0, 0, 0])),
    ("Pa", BaseUnits::of([1, -1, -2, 0, 0, 0, 0, 0])),
    ("J", BaseUnits::of([1, 2, -2, 0, 0, 0, 0, 0])),
    ("W", BaseUnits::of([1, 2, -3, 0, 0, 0, 0, 0])),
    ("Hz", BaseUnits::of([0, 0, -1, 0, 0, 0, 0, 0])),
    ("V", BaseUnits::of([1, 2, -3, -1, 0, 0, 0, 0])),
    ("Ohm", BaseUnits::of([1, 2, -3, -2, 0, 0, 0, 0])),
    ("H", BaseUnits::of([1, 2, -2, -2, 0, 0, 0, 0])),
];

/// Reads a unit string in Modelica syntax: factors joined by `.`, each a symbol with an optional
/// integer exponent (`m2`, `s-1`), optionally followed by one `/` and a denominator of the same
/// form (`N.m.s/rad`, `m/s2`). `1` is the dimensionless unit (`1/s` is allowed).
pub fn base_units(unit: &str) -> Result<BaseUnits, String> {
    let fail = |why: &str| format!("unit `{unit}`: {why}");
    let (numerator, denominator) = match unit.split_once('/') {
        Some((n, d)) => (n, Some(d)),
        None => (unit, None),
    };
    let mut result = product(numerator).map_err(|e| fail(&e))?;
    if let Some(denominator) = denominator {
        if denominator.contains('/') {
            return Err(fail("more than one `/`"));
        }
        if denominator == "1" {
            return Err(fail("division by `1`"));
        }
        result = result.add(product(denominator).map_err(|e| fail(&e))?, -1);
    }
    Ok(result)
}

fn product(text: &str) -> Result<BaseUnits, String> {
    if text == "1" {
        return Ok(BaseUnits::default());
    }
    let mut result = BaseUnits::default();
    for factor in text.split('.') {
        let split = factor
            .find(|c: char| c.is_ascii_digit() || c == '-' || c == '+')
            .unwrap_or(factor.len());
        let (symbol, power) = factor.split_at(split);
        let power: i32 = if power.is_empty() {
            1
        } else {
            power
                .parse()
                .map_err(|_| format!("`{power}` is not an integer exponent"))?
        };
        let units = SYMBOLS
            .iter()
            .find(|(name, _)| *name == symbol)
            .map(|(_, units)| *units)
            .ok_or_else(|| {
                if symbol.is_empty() {
                    "an empty factor".to_string()
                } else {
                    format!("`{symbol}` is not an SI unit this tool knows")
                }
            })?;
        result = result.add(units, power);
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exponents(unit: &str) -> Vec<(&'static str, i32)> {
        base_units(unit).expect("known unit").nonzero().collect()
    }

    #[test]
    fn the_units_of_the_variable_table() {
        assert_eq!(exponents("rad"), [("rad", 1)]);
        assert_eq!(exponents("rad/s"), [("s", -1), ("rad", 1)]);
        assert_eq!(exponents("rad/s2"), [("s", -2), ("rad", 1)]);
        assert_eq!(exponents("N.m"), [("kg", 1), ("m", 2), ("s", -2)]);
        assert_eq!(exponents("m/s2"), [("m", 1), ("s", -2)]);
        assert_eq!(exponents("N"), [("kg", 1), ("m", 1), ("s", -2)]);
        assert_eq!(exponents("m"), [("m", 1)]);
    }

    #[test]
    fn the_si_units_of_parameters() {
        assert_eq!(
            exponents("N.m.s/rad"),
            [("kg", 1), ("m", 2), ("s", -1), ("rad", -1)]
        );
        assert_eq!(
            exponents("N.m/rad"),
            [("kg", 1), ("m", 2), ("s", -2), ("rad", -1)]
        );
        assert_eq!(exponents("N.s/m"), [("kg", 1), ("s", -1)]);
        assert_eq!(exponents("kg.m2"), [("kg", 1), ("m", 2)]);
        assert_eq!(exponents("kg/m3"), [("kg", 1), ("m", -3)]);
        assert_eq!(exponents("m3/s2"), [("m", 3), ("s", -2)]);
        assert_eq!(exponents("Pa"), [("kg", 1), ("m", -1), ("s", -2)]);
        assert_eq!(exponents("1"), []);
        assert_eq!(exponents("1/s"), [("s", -1)]);
        assert_eq!(exponents("s-1"), [("s", -1)]);
    }

    #[test]
    fn every_si_unit_of_the_model_language_is_known() {
        for unit in fmu_runtime::model::units::UNITS {
            let si = unit.kind.si_unit();
            assert!(base_units(si).is_ok(), "{si}");
        }
    }

    #[test]
    fn unknown_and_malformed_units_are_refused() {
        for unit in ["deg", "rpm", "m//s", "m/s/s", "N..m", "", "m2x", "kg/1"] {
            assert!(base_units(unit).is_err(), "{unit}");
        }
        assert!(base_units("deg").unwrap_err().contains("`deg`"));
    }
}
