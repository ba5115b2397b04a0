//! The model's settings: `gravity` and `experiment`.

use super::*;

impl<'a> Evaluator<'a> {
    pub(super) fn gravity_spec(
        &self,
        kind: &Ident,
        body: Option<&Block>,
        scope: &Scope,
    ) -> Result<GravitySpec, Diag> {
        const KINDS: [&str; 3] = ["none", "uniform", "point"];
        let empty = Block {
            entries: Vec::new(),
            pos: kind.pos,
        };
        let b = body.unwrap_or(&empty);
        match kind.name.as_str() {
            "none" => {
                Fields::new(b, &[], &[], "gravity none")?;
                Ok(GravitySpec::None)
            }
            "uniform" => {
                let f = Fields::new(b, &["g"], &[], "gravity uniform")?;
                match f.get("g") {
                    Some(e) => Ok(GravitySpec::Uniform {
                        acceleration: self.vec3(e, scope, Kind::Acceleration, "g")?,
                    }),
                    None => Ok(GravitySpec::default()),
                }
            }
            "point" => {
                let f = Fields::new(b, &["center", "mu"], &[], "gravity point")?;
                let center = match f.get("center") {
                    Some(e) => self.vec3(e, scope, Kind::Length, "center")?,
                    None => Vector3::zeros(),
                };
                let mu = self.positive(
                    f.require("mu", kind.pos)?,
                    scope,
                    Kind::GravitationalParameter,
                    "mu",
                )?;
                Ok(GravitySpec::Point { center, mu })
            }
            other => Err(
                Diag::new(kind.pos, format!("unknown kind of gravity `{other}`"))
                    .with_help(did_you_mean(other, KINDS)),
            ),
        }
    }

    pub(super) fn experiment_spec(&self, b: &Block, scope: &Scope) -> Result<ExperimentSpec, Diag> {
        let f = Fields::new(
            b,
            &["start_time", "stop_time", "interval", "tolerance"],
            &[],
            "experiment",
        )?;
        let mut e = ExperimentSpec::default();
        if let Some(x) = f.get("start_time") {
            e.start_time = self.num(x, scope, Kind::Time, "start_time")?;
        }
        if let Some(x) = f.get("stop_time") {
            e.stop_time = self.num(x, scope, Kind::Time, "stop_time")?;
            if e.stop_time <= e.start_time {
                return Err(Diag::new(
                    x.pos,
                    format!(
                        "`stop_time` ({} s) must be after `start_time` ({} s)",
                        e.stop_time, e.start_time
                    ),
                ));
            }
        }
        if let Some(x) = f.get("interval") {
            e.interval = self.positive(x, scope, Kind::Time, "interval")?;
        }
        if let Some(x) = f.get("tolerance") {
            e.tolerance = self.positive(x, scope, Kind::Dimensionless, "tolerance")?;
            if e.tolerance >= 1.0 {
                return Err(Diag::new(
                    x.pos,
                    "`tolerance` is a relative tolerance and must be less than 1",
                ));
            }
        }
        if e.stop_time <= e.start_time {
            return Err(Diag::new(b.pos, "`stop_time` must be after `start_time`"));
        }
        Ok(e)
    }
}
