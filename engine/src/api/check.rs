//! [`check`]: whether a format is well-formed and converts to and from
//! the built-in formats of its order: the report `spf check` prints.

use synth::check::{Finding, Severity};
use synth::synthesize::{check_pair, PairVerdict};

use super::format::Format;
use crate::Error;

/// What [`check`] found: the descriptor's properties, and how each pair
/// with the built-in formats of its order (or with one other format)
/// converts. Displays as `spf check` prints it.
#[derive(Debug)]
pub struct CheckReport {
    /// The format checked.
    pub format: String,
    /// Each property of the descriptor, held or not.
    pub findings: Vec<Finding>,
    /// Each pair tried, by `(source, destination)` name, and its verdict.
    pub pairs: Vec<(String, String, PairVerdict)>,
}

impl CheckReport {
    /// The properties that do not hold.
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count()
    }

    /// The pairs that do not convert.
    pub fn failed_pairs(&self) -> usize {
        self.pairs.iter().filter(|(_, _, v)| !v.is_ok()).count()
    }

    /// Whether every property holds and every pair converts.
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

/// One line of a report: a property, or a pair's verdict (a
/// counterexample's lines indented below it).
fn pair_line(src: &str, dst: &str, verdict: &PairVerdict) -> String {
    let shown = verdict.to_string().replace('\n', "\n    ");
    format!("pair {src} -> {dst}: {shown}")
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for finding in &self.findings {
            writeln!(f, "{finding}")?;
        }
        for (src, dst, verdict) in &self.pairs {
            writeln!(f, "{}", pair_line(src, dst, verdict))?;
        }
        Ok(())
    }
}

/// Checks `format`: its properties (z3 proves each), and, when they hold,
/// the conversions to and from every built-in format of its order.
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
/// (`spf check` prints them as they come).
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
            pairs.push((format.clone(), o.clone()));
            pairs.push((o.clone(), format.clone()));
        }
    }
    for (a, b) in pairs {
        let verdict = check_pair(a.descriptor(), b.descriptor());
        line(&pair_line(a.name(), b.name(), &verdict));
        report
            .pairs
            .push((a.name().to_string(), b.name().to_string(), verdict));
    }
    Ok(report)
}
