//! [`check`]: whether a format is well-formed and converts to and from
//! the built-in formats of its order, directly or routed through another
//! ([`crate::route`]): the report `spf check` prints.

use synth::check::{Finding, Severity};
use synth::synthesize::{check_pair, PairVerdict};

use super::format::Format;
use crate::route::cheapest_via;
use crate::synthesis::synthesize_pair;
use crate::Error;

/// How one pair converts: synthesized directly (the verdict), and when not,
/// the built-in format a route goes through, if one does.
#[derive(Debug)]
pub struct PairCheck {
    /// The source format's name.
    pub src: String,
    /// The destination format's name.
    pub dst: String,
    /// The direct conversion's verdict.
    pub verdict: PairVerdict,
    /// The intermediate of the route `spf convert` takes when the direct
    /// conversion fails; `None` when it converts directly or no route
    /// exists.
    pub via: Option<String>,
}

impl PairCheck {
    /// Whether the pair converts, directly or routed.
    pub fn converts(&self) -> bool {
        self.verdict.is_ok() || self.via.is_some()
    }

    /// The verdict, and under a failed one the route or that none exists
    /// (later lines indented): the report's line after `pair A -> B: `.
    pub fn message(&self) -> String {
        let verdict = self.verdict.to_string().replace('\n', "\n    ");
        let (src, dst) = (&self.src, &self.dst);
        match (&self.via, self.verdict.is_ok()) {
            (_, true) => verdict,
            (Some(x), false) => format!(
                "{verdict}\n    converts through {x}: {src} -> {x} -> {dst}, each step validated"
            ),
            (None, false) => format!(
                "{verdict}\n    no route: no built-in format converts from {src} and to {dst}"
            ),
        }
    }
}

impl std::fmt::Display for PairCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pair {} -> {}: {}", self.src, self.dst, self.message())
    }
}

/// What [`check`] found: the descriptor's properties, and how each pair
/// with the built-in formats of its order (or with one other format)
/// converts. Displays as `spf check` prints it.
#[derive(Debug)]
pub struct CheckReport {
    /// The format checked.
    pub format: String,
    /// Each property of the descriptor, held or not.
    pub findings: Vec<Finding>,
    /// Each pair tried and how it converts.
    pub pairs: Vec<PairCheck>,
}

impl CheckReport {
    /// The properties that do not hold.
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count()
    }

    /// The pairs that do not convert, directly or routed.
    pub fn failed_pairs(&self) -> usize {
        self.pairs.iter().filter(|p| !p.converts()).count()
    }

    /// The pairs that convert only through another format.
    pub fn routed_pairs(&self) -> usize {
        self.pairs
            .iter()
            .filter(|p| !p.verdict.is_ok() && p.converts())
            .count()
    }

    /// Whether every property holds and every pair converts, directly or
    /// routed.
    pub fn holds(&self) -> bool {
        self.errors() == 0 && self.failed_pairs() == 0
    }

    /// What does not hold, in a line (`1 property of X does not hold; 2 of
    /// 30 conversions do not convert`), when something does not.
    pub fn summary(&self) -> Option<String> {
        let (errors, failed) = (self.errors(), self.failed_pairs());
        let mut what = Vec::new();
        if errors > 0 {
            let (noun, verb) = if errors == 1 {
                ("property", "does")
            } else {
                ("properties", "do")
            };
            what.push(format!(
                "{errors} {noun} of {} {verb} not hold",
                self.format
            ));
        }
        if failed > 0 {
            what.push(format!(
                "{failed} of {} conversions {} not convert",
                self.pairs.len(),
                if failed == 1 { "does" } else { "do" }
            ));
        }
        (!what.is_empty()).then(|| what.join("; "))
    }
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for finding in &self.findings {
            writeln!(f, "{finding}")?;
        }
        for pair in &self.pairs {
            writeln!(f, "{pair}")?;
        }
        Ok(())
    }
}

/// Checks `format`: its properties (z3 proves each), and, when they hold,
/// the conversions to and from every built-in format of its order. A pair
/// synthesis cannot make directly is tried through a built-in format, as
/// a conversion would route it ([`crate::route`]).
///
/// ```
/// let report = engine::check(&engine::Format::builtin("csr")?)?;
/// assert!(report.holds(), "{report}");
/// # Ok::<(), engine::Error>(())
/// ```
///
/// # Errors
///
/// None today beyond a built-in format that does not load (a bug).
pub fn check(format: &Format) -> Result<CheckReport, Error> {
    check_each(format, None, &mut |_| {})
}

/// [`check`] against one `other` format only (both directions) when it is
/// given, telling `line` each line of the report as soon as it is known
/// (`spf check` prints them as they come). With `other`, the properties of
/// a descriptor that is not built in are checked too, and only those that
/// do not hold are reported.
///
/// # Errors
///
/// As [`check`].
pub fn check_each(
    format: &Format,
    other: Option<&Format>,
    line: &mut dyn FnMut(&str),
) -> Result<CheckReport, Error> {
    let d = format.descriptor();
    let mut report = CheckReport {
        format: format.name().to_string(),
        findings: Vec::new(),
        pairs: Vec::new(),
    };
    let mut pairs = Vec::new();
    match other {
        None => {
            report.findings = synth::check::check(d);
            for finding in &report.findings {
                line(&finding.to_string());
            }
            if report.errors() == 0 {
                for name in synth::builtin::builtin_names() {
                    let b = Format::load(name)?;
                    if b.order() == format.order() {
                        pairs.push((format.clone(), b.clone()));
                        if b != *format {
                            pairs.push((b, format.clone()));
                        }
                    }
                }
            }
        }
        Some(o) => {
            // Whether the descriptors hold decides the exit status: the
            // properties that do not are reported (a built-in format's
            // hold, as the test suite checks).
            for f in [format, o] {
                if synth::builtin::is_builtin(f.descriptor()) {
                    continue;
                }
                let findings = synth::check::check(f.descriptor());
                for finding in findings.into_iter().filter(|f| f.severity != Severity::Ok) {
                    line(&finding.to_string());
                    report.findings.push(finding);
                }
            }
            pairs.push((format.clone(), o.clone()));
            pairs.push((o.clone(), format.clone()));
        }
    }
    for (a, b) in pairs {
        let verdict = check_pair(a.descriptor(), b.descriptor());
        // The route `spf convert` takes, found as it finds it.
        let via = match verdict.is_ok() {
            true => None,
            false => cheapest_via(a.descriptor(), b.descriptor(), &synthesize_pair)
                .map(|v| v.format.name),
        };
        let pair = PairCheck {
            src: a.name().to_string(),
            dst: b.name().to_string(),
            verdict,
            via,
        };
        line(&pair.to_string());
        report.pairs.push(pair);
    }
    Ok(report)
}
