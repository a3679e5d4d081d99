//! [`Route`]: a conversion as it runs, made directly or through a built-in
//! format when synthesis cannot make it directly.
//!
//! Synthesis may fail on a pair A → B (a construct it cannot lower for
//! that destination, or code validation refuses) while A → X and X → B
//! both synthesize and validate for some built-in format X. The route
//! A → X → B is then a correct conversion, because each of its steps is:
//! each step is a validated conversion, and each result is checked against
//! its input's entries, as a direct conversion's is.
//!
//! An intermediate must lose nothing and refuse nothing the direct
//! conversion would take, so it is a built-in format of the pair's order
//! that
//! - stores every entry of its dense shape (no condition on coordinates
//!   and no capacity, [`Representable::is_everything`]: a triangle's
//!   format would refuse the other triangle's entries), and
//! - has no padding (an explicit zero stays an entry, and its arrays grow
//!   with the entries, not with the shape: DIA of a matrix with thousands
//!   of diagonals would be mostly zeros).
//!
//! Of the intermediates whose two steps synthesize, the route takes the
//! one whose plans cost least by synthesis's estimate
//! ([`synth::plan::Plan::cost`], summed over the steps), the first in the
//! registry's order among equals.

use synth::representable::Representable;
use synth::synthesize::Synthesized;
use synth::Descriptor;

use crate::prepared::Prepared;
use crate::runner::{Runner, Source};
use crate::synthesis::Synthesizer;
use crate::Error;

/// One step of a route: a prepared conversion and its two formats.
struct Step {
    from: Descriptor,
    to: Descriptor,
    prepared: Prepared,
}

/// A conversion from one format to another, ready to run: one synthesized
/// step, or two through a built-in format (see the module documentation).
pub struct Route {
    steps: Vec<Step>,
}

/// The cheapest intermediate of a pair and its two steps, synthesized.
pub struct Via {
    /// The intermediate built-in format.
    pub format: Descriptor,
    /// Source → intermediate.
    pub first: Synthesized,
    /// Intermediate → destination.
    pub second: Synthesized,
}

impl Route {
    /// The conversion `src` → `dst` as `synth` makes it, else the cheapest
    /// route through a built-in format ([`cheapest_via`]).
    ///
    /// # Errors
    ///
    /// [`Error::Format`] for a descriptor that is not well-formed (no
    /// route is tried), and the direct pair's [`Error::Unsupported`] or
    /// [`Error::Refused`] when no route exists either (its reason then
    /// says so); [`Error::Internal`] when a computation cannot be scanned.
    pub fn new(
        src: &Descriptor,
        dst: &Descriptor,
        synth: &Synthesizer<'_>,
    ) -> Result<Route, Error> {
        let direct = match synth(src, dst) {
            Ok(s) => return Route::of_steps(vec![(src.clone(), dst.clone(), s)]),
            Err(e @ (Error::Unsupported { .. } | Error::Refused { .. })) => e,
            Err(e) => return Err(e),
        };
        match cheapest_via(src, dst, synth) {
            Some(v) => Route::of_steps(vec![
                (src.clone(), v.format.clone(), v.first),
                (v.format, dst.clone(), v.second),
            ]),
            None => Err(without_route(direct)),
        }
    }

    /// The route of these steps, each scanned into loops.
    fn of_steps(steps: Vec<(Descriptor, Descriptor, Synthesized)>) -> Result<Route, Error> {
        let steps = steps
            .into_iter()
            .map(|(from, to, s)| {
                Ok(Step {
                    from,
                    to,
                    prepared: Prepared::new(s)?,
                })
            })
            .collect::<Result<_, Error>>()?;
        Ok(Route { steps })
    }

    /// The intermediate format, when the route has one.
    pub fn via(&self) -> Option<&Descriptor> {
        (self.steps.len() > 1).then(|| &self.steps[0].to)
    }

    /// The last step: the conversion whose result is the route's.
    fn last_step(&self) -> &Step {
        self.steps.last().expect("a route has a step")
    }

    /// How the route goes (`RCSR -> COO -> JAD`), its formats by name.
    pub fn describe(&self) -> String {
        let mut names = vec![self.steps[0].from.name.as_str()];
        names.extend(self.steps.iter().map(|s| s.to.name.as_str()));
        names.join(" -> ")
    }

    /// Runs the route on `source` (an instance of its source format,
    /// validated): every step before the last is run and checked
    /// ([`Runner::run`]), the last only run ([`Runner::convert`]); the
    /// caller checks its result with [`Route::verify`].
    ///
    /// # Errors
    ///
    /// As [`Runner::run`].
    pub fn convert(&self, runner: &Runner, mut source: Source) -> Result<Source, Error> {
        let (last, before) = self.steps.split_last().expect("a route has a step");
        for step in before {
            source = runner.run(&step.prepared, &step.from, &step.to, source)?;
        }
        runner.convert(&last.prepared, &last.from, &last.to, source)
    }

    /// Checks a result of [`Route::convert`] as [`Runner::verify`] does.
    ///
    /// # Errors
    ///
    /// As [`Runner::verify`].
    pub fn verify(&self, runner: &Runner, out: &Source) -> Result<(), Error> {
        let last = self.last_step();
        runner.verify(last.prepared.synthesized(), &last.to, out)
    }

    /// [`Route::convert`] and [`Route::verify`]: the checked result.
    ///
    /// # Errors
    ///
    /// As both.
    pub fn run(&self, runner: &Runner, source: Source) -> Result<Source, Error> {
        let out = self.convert(runner, source)?;
        self.verify(runner, &out)?;
        Ok(out)
    }
}

/// The built-in formats a pair of `order` dense dimensions may be routed
/// through, other than `src` and `dst` (see the module documentation), in
/// the registry's order.
pub fn intermediates(src: &Descriptor, dst: &Descriptor) -> Vec<Descriptor> {
    synth::builtin::builtin_names_of_order(src.dense.len())
        .into_iter()
        .filter_map(|name| synth::builtin::load_format(name).ok())
        .filter(|x| x != src && x != dst && !x.padding)
        .filter(|x| Representable::of(x).is_everything())
        .collect()
}

/// The cheapest route `src` → X → `dst` whose steps `synth` makes, when
/// one exists (see the module documentation).
pub fn cheapest_via(src: &Descriptor, dst: &Descriptor, synth: &Synthesizer<'_>) -> Option<Via> {
    if src.dense.len() != dst.dense.len() {
        return None;
    }
    let mut best: Option<(f64, Via)> = None;
    for format in intermediates(src, dst) {
        let Ok(first) = synth(src, &format) else {
            continue;
        };
        // A route dearer than the best so far need not synthesize its
        // second step.
        if best
            .as_ref()
            .is_some_and(|(cost, _)| first.plan.cost >= *cost)
        {
            continue;
        }
        let Ok(second) = synth(&format, dst) else {
            continue;
        };
        let cost = first.plan.cost + second.plan.cost;
        if best.as_ref().is_none_or(|(c, _)| cost < *c) {
            best = Some((
                cost,
                Via {
                    format,
                    first,
                    second,
                },
            ));
        }
    }
    best.map(|(_, v)| v)
}

/// The direct pair's error, saying no route exists either.
fn without_route(e: Error) -> Error {
    const NONE: &str = "no built-in format converts from the source and to the destination either";
    match e {
        Error::Unsupported { pair, reason } => Error::Unsupported {
            pair,
            reason: format!("{reason}; {NONE}"),
        },
        Error::Refused {
            message,
            counterexample,
        } => Error::Refused {
            message: format!("{message}\n{NONE}"),
            counterexample,
        },
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use synth::oracle::{compare, coordinate_entries, entries};
    use synth::tensor_io::read_file;

    use super::*;
    use crate::pipeline::convert_file;
    use crate::synthesis::testing::{format, matrix, synthesized};

    /// A CSR whose rows are stored bottom-up: RCSR -> JAD does not
    /// synthesize (JAD's row permutation ranks rows by length, which the
    /// reversed rows hide), while RCSR -> COO -> JAD does.
    fn rcsr() -> Descriptor {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/descriptors/rcsr.desc"
        );
        synth::builtin::load_format(path).expect("rcsr.desc loads")
    }

    #[test]
    fn intermediates_store_every_entry_without_padding() {
        let names: Vec<String> = intermediates(&format("csr"), &format("csc"))
            .into_iter()
            .map(|d| d.name)
            .collect();
        // The pair itself, padded formats, a triangle's and a 2:4 format's
        // are no intermediates.
        for not in ["CSR", "CSC", "DIA", "ELL", "BCSR", "SKYL", "SKYU", "NM24"] {
            assert!(!names.iter().any(|n| n == not), "{not} in {names:?}");
        }
        for yes in ["COO", "SCOO", "DCSR", "JAD"] {
            assert!(names.iter().any(|n| n == yes), "{yes} not in {names:?}");
        }
    }

    #[test]
    fn a_pair_synthesis_cannot_make_directly_converts_through_a_builtin() {
        let (coo, rcsr, jad) = (format("coo"), rcsr(), format("jad"));
        assert!(
            synthesized(&rcsr, &jad).is_err(),
            "the direct pair synthesizes"
        );
        let route = Route::new(&rcsr, &jad, &synthesized).expect("a route");
        let via = route.via().expect("an intermediate").clone();
        assert!(intermediates(&rcsr, &jad).contains(&via), "{}", via.name);
        assert_eq!(route.describe(), format!("RCSR -> {} -> JAD", via.name));
        // The route's result stores the file's entries, in a valid JAD.
        for m in ["pores_1.mtx", "lund_a.mtx", "jgl009.mtx"] {
            let m = matrix(m);
            let runner = crate::runner::Runner::interp();
            let a = convert_file(&coo, &rcsr, &m, &synthesized, &runner).expect("an RCSR");
            let expected = runner.expected(&rcsr, &a).expect("a valid RCSR");
            let out = route
                .run(
                    &runner,
                    Source {
                        instance: a,
                        expected,
                    },
                )
                .expect("converted")
                .instance;
            synth::instance_validation::validate(&jad, &out).expect("a valid JAD");
            let want = coordinate_entries(&read_file(&m, None).expect("readable"));
            compare(&want, &entries(&jad, &out).expect("readable")).expect("the same entries");
        }
    }

    #[test]
    fn the_cheapest_route_whose_steps_synthesize_is_taken() {
        let (csr, csc) = (format("csr"), format("csc"));
        // Only routes through DCSR synthesize: DCSR is taken.
        let only_dcsr = |a: &Descriptor, b: &Descriptor| {
            if a.name == "DCSR" || b.name == "DCSR" {
                synthesized(a, b)
            } else {
                Err(Error::Unsupported {
                    pair: format!("{} -> {}", a.name, b.name),
                    reason: "refused by the test".into(),
                })
            }
        };
        let route = Route::new(&csr, &csc, &only_dcsr).expect("a route");
        assert_eq!(route.describe(), "CSR -> DCSR -> CSC");
        // Every route open: the one of least estimated cost.
        let direct_refused = |a: &Descriptor, b: &Descriptor| {
            if (a.name.as_str(), b.name.as_str()) == ("CSR", "CSC") {
                only_dcsr(a, b)
            } else {
                synthesized(a, b)
            }
        };
        let via = cheapest_via(&csr, &csc, &direct_refused).expect("a route");
        let cost = |x: &Descriptor| {
            synthesized(&csr, x).expect("synthesizes").plan.cost
                + synthesized(x, &csc).expect("synthesizes").plan.cost
        };
        let least = intermediates(&csr, &csc)
            .iter()
            .map(cost)
            .fold(f64::INFINITY, f64::min);
        assert_eq!(cost(&via.format), least, "{}", via.format.name);
        // No route: the direct pair's error, saying so.
        let e = Route::new(&csr, &csc, &|a: &Descriptor, b: &Descriptor| {
            Err::<Synthesized, _>(Error::Unsupported {
                pair: format!("{} -> {}", a.name, b.name),
                reason: "refused by the test".into(),
            })
        })
        .err()
        .expect("no route");
        assert_eq!(
            e.to_string(),
            "cannot synthesize the conversion CSR -> CSC: refused by the test; no built-in \
             format converts from the source and to the destination either"
        );
        // A descriptor that is not well-formed is not routed.
        let e = Route::new(&csr, &csc, &|_: &Descriptor, _: &Descriptor| {
            Err::<Synthesized, _>(Error::Format("not well-formed".into()))
        })
        .err()
        .expect("an error");
        assert!(matches!(e, Error::Format(_)), "{e}");
    }
}
