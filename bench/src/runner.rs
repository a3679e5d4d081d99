//! The experiment: generate each matrix, build each converter with `spf
//! build`, run it and every baseline side by side on the same input in
//! the same run, verify every output, and collect the times.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use codegen::width::IndexWidth;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use synth::instance::Instance;
use synth::Descriptor;

use crate::conversions::{Baseline, Conversion};
use crate::input::{self, Compressed, Tensor};
use crate::timing::{measure, Summary, Timing};
use crate::{c, rustlibs, scipy, spf, verify};

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// matgen's scale, in (0, 1].
    pub scale: f64,
    /// Runs per measurement (the median is reported), at least.
    pub repeat: usize,
    /// Seconds each measurement covers at least: a conversion faster than
    /// `min_time / repeat` is run more often (the same number of times for
    /// the generated code and every baseline of the row, at most
    /// [`MAX_RUNS`]), so that the medians of small inputs are not noise.
    pub min_time: f64,
    /// Rounds: passes over the whole work, in each of which the generated
    /// converter (with the C in its process) and the other baselines are
    /// measured in turn; the converter and the C keep the round that was
    /// the fastest for both ([`fastest_pair`]), the others their fastest
    /// median.
    pub rounds: usize,
    /// matgen's seed (also the shuffle's).
    pub seed: u64,
    /// Catalog entries to run (all when empty).
    pub matrices: Vec<String>,
    /// Conversions to run (all when empty).
    pub conversions: Vec<Conversion>,
    /// Scratch directory: input files, converters, outputs.
    pub work_dir: PathBuf,
    /// The `spf` command that builds the converters.
    pub spf: spf::Spf,
    /// The Python interpreter for the scipy baseline; `None` skips it.
    pub python: Option<String>,
    /// A conversion to DIA or ELL is skipped on a matrix whose padded
    /// destination (NR x ND, NR x W) exceeds this many times its nnz: such
    /// a matrix is not banded (nobody converts it to DIA), and at full
    /// scale its DIA array would not fit in memory.
    pub max_padding: f64,
    /// Show a progress bar on standard error.
    pub progress: bool,
    /// The width of the index arrays of the converters and of the
    /// hand-written C timed in their process.
    pub index_width: IndexWidth,
}

/// How one measurement went.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Verified, and timed.
    Time(Summary),
    /// Ran, but its output is wrong: no time counts.
    Wrong(String),
    /// Could not run (unavailable for this input, out of memory, …).
    Failed(String),
}

impl Outcome {
    /// The median, when timed.
    pub fn median(&self) -> Option<f64> {
        match self {
            Outcome::Time(s) => Some(s.median),
            _ => None,
        }
    }
}

/// One conversion of one matrix: the generated converter and each
/// baseline, measured in the same run.
#[derive(Clone, Debug)]
pub struct Row {
    /// The conversion.
    pub conversion: Conversion,
    /// The catalog entry.
    pub matrix: String,
    /// Its extents (as generated at the scale).
    pub dims: Vec<i64>,
    /// Its stored entries.
    pub nnz: u64,
    /// Bytes of the source's arrays (as the converter reports them).
    pub input_bytes: u64,
    /// Bytes of the destination's arrays.
    pub output_bytes: u64,
    /// The generated converter.
    pub spf: Outcome,
    /// Each baseline that has the conversion.
    pub baselines: Vec<(Baseline, Outcome)>,
}

impl Row {
    /// `baseline`'s median over the generated converter's: above 1 the
    /// generated code is faster (for memcpy: the fraction of the bound the
    /// generated code reaches).
    pub fn ratio(&self, baseline: Baseline) -> Option<f64> {
        let ours = self.spf.median()?;
        let theirs = self
            .baselines
            .iter()
            .find(|(b, _)| *b == baseline)?
            .1
            .median()?;
        (ours > 0.0).then_some(theirs / ours)
    }
}

/// A conversion not run on a matrix, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Skip {
    /// The conversion.
    pub conversion: Conversion,
    /// The catalog entry.
    pub matrix: String,
    /// Why.
    pub reason: String,
}

/// Everything one run measured.
#[derive(Clone, Debug)]
pub struct Results {
    /// The scale.
    pub scale: f64,
    /// Runs per measurement, at least.
    pub repeat: usize,
    /// Seconds each measurement covers, at least (more runs when faster).
    pub min_time: f64,
    /// Rounds per measurement (the converter and the C: the round fastest
    /// for both; the other baselines: the fastest median).
    pub rounds: usize,
    /// The seed.
    pub seed: u64,
    /// The index width of the converters and the hand-written C.
    pub index_width: IndexWidth,
    /// What the reader should know: skipped baselines, their different work.
    pub notes: Vec<String>,
    /// The measurements.
    pub rows: Vec<Row>,
    /// Conversions not run on a matrix.
    pub skipped: Vec<Skip>,
}

/// The catalog entries `config` selects, or an error naming an unknown one.
fn selected_specs(config: &Config) -> Result<Vec<&'static matgen::MatrixSpec>, String> {
    if config.matrices.is_empty() {
        return Ok(matgen::catalog().iter().collect());
    }
    config
        .matrices
        .iter()
        .map(|name| {
            matgen::find(name).ok_or_else(|| {
                let names: Vec<&str> = matgen::catalog().iter().map(|s| s.name).collect();
                format!("unknown matrix `{name}`; valid: {}", names.join(", "))
            })
        })
        .collect()
}

fn selected_conversions(config: &Config) -> Vec<Conversion> {
    if config.conversions.is_empty() {
        Conversion::ALL.to_vec()
    } else {
        config.conversions.clone()
    }
}

/// The inputs of one matrix, prepared once for all its conversions.
struct Prepared {
    name: String,
    sorted: Tensor,
    shuffled: Option<Tensor>,
    sorted_file: PathBuf,
    shuffled_file: PathBuf,
    csr: Option<Compressed>,
    csc: Option<Compressed>,
    expected: BTreeMap<Vec<i64>, f64>,
}

impl Prepared {
    fn coo(&self, conv: Conversion) -> &Tensor {
        match &self.shuffled {
            Some(s) if conv.shuffled() => s,
            _ => &self.sorted,
        }
    }

    fn file(&self, conv: Conversion) -> &Path {
        if conv.shuffled() {
            &self.shuffled_file
        } else {
            &self.sorted_file
        }
    }

    fn compressed(&self, conv: Conversion) -> Option<&Compressed> {
        match conv.src() {
            "csr" => self.csr.as_ref(),
            "csc" => self.csc.as_ref(),
            _ => None,
        }
    }
}

fn prepare(
    spec: &matgen::MatrixSpec,
    convs: &[Conversion],
    config: &Config,
) -> Result<Prepared, String> {
    let sorted = input::generate(spec, config.scale, config.seed, false);
    let ext = if sorted.dims.len() == 3 { "tns" } else { "mtx" };
    let sorted_file = config.work_dir.join(format!("{}.{ext}", spec.name));
    let shuffled_file = config
        .work_dir
        .join(format!("{}.shuffled.{ext}", spec.name));
    let io = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    let shuffled = if convs.iter().any(|c| c.shuffled()) {
        let mut s = sorted.clone();
        s.shuffle(config.seed);
        input::write(&s, &shuffled_file).map_err(|e| io(&shuffled_file, e))?;
        Some(s)
    } else {
        None
    };
    if convs.iter().any(|c| !c.shuffled()) {
        input::write(&sorted, &sorted_file).map_err(|e| io(&sorted_file, e))?;
    }
    let csr = convs
        .iter()
        .any(|c| c.src() == "csr")
        .then(|| Compressed::from_coo(&sorted, true));
    let csc = convs
        .iter()
        .any(|c| c.src() == "csc")
        .then(|| Compressed::from_coo(&sorted, false));
    let expected = input::entries(&sorted);
    Ok(Prepared {
        name: spec.name.to_string(),
        sorted,
        shuffled,
        sorted_file,
        shuffled_file,
        csr,
        csc,
        expected,
    })
}

/// Why `conv` is not run on `t`, if it is not: a DIA or ELL destination
/// more than `max_padding` times larger than the matrix.
pub fn padding_skip(conv: Conversion, t: &Tensor, max_padding: f64) -> Option<String> {
    if !conv.padded() || t.is_empty() {
        return None;
    }
    let stats = t.stats();
    let (what, width) = if conv.dst() == "dia" {
        ("diagonals", stats.diagonals.unwrap_or(0))
    } else {
        ("slots per row", stats.max_row.unwrap_or(0))
    };
    let padded = t.dims[0] as f64 * width as f64;
    (padded > max_padding * t.len() as f64).then(|| {
        format!(
            "{width} {what}: the padded {} would hold {:.0}x the nonzeros (limit {max_padding}x)",
            conv.dst_format(),
            padded / t.len() as f64
        )
    })
}

fn outcome(r: Result<Timing, String>) -> Outcome {
    match r {
        Ok(t) => Outcome::Time(Summary::from(&t)),
        Err(e) if e.starts_with("wrong: ") => Outcome::Wrong(e["wrong: ".len()..].to_string()),
        Err(e) => Outcome::Failed(e),
    }
}

fn wrong(e: String) -> String {
    format!("wrong: {e}")
}

/// How a baseline's output is checked in a round.
#[derive(Clone, Copy)]
enum Check<'a> {
    /// The first round: against the generated converter's verified output
    /// when there is one, with the oracle otherwise.
    Against(Option<&'a Instance>),
    /// A later round: the first one verified this baseline's output (its
    /// code and input are the same), only the time is taken.
    Verified,
}

/// Measures one baseline other than the C (which the converter's program
/// times, [`paired_outcome`]) on one prepared matrix, its output checked as
/// `check` says.
#[allow(clippy::too_many_arguments)]
fn run_baseline(
    baseline: Baseline,
    conv: Conversion,
    p: &Prepared,
    dst: &Descriptor,
    check_output: Check,
    bytes: (u64, u64),
    repeat: usize,
    config: &Config,
) -> Outcome {
    let check = |inst: &Instance| match check_output {
        Check::Against(reference) => {
            verify::check_against(reference, dst, &p.expected, inst).map_err(wrong)
        }
        Check::Verified => Ok(()),
    };
    let to_rows = conv.dst() == "csr";
    let result: Result<Timing, String> = match baseline {
        Baseline::C => Err("timed in the converter's program (paired_outcome)".into()),
        Baseline::Sprs => {
            let input = match p.compressed(conv) {
                Some(m) => rustlibs::sprs_from_compressed(m),
                None => rustlibs::sprs_from_coo(p.coo(conv)),
            };
            measure(
                repeat,
                || rustlibs::sprs_convert(&input, to_rows),
                |inst| check(&inst),
            )
        }
        Baseline::Nalgebra => {
            let input = match p.compressed(conv) {
                Some(m) => rustlibs::nalgebra_from_csr(m),
                None => rustlibs::nalgebra_from_coo(p.coo(conv)),
            };
            input.and_then(|input| {
                measure(
                    repeat,
                    || rustlibs::nalgebra_convert(&input, to_rows),
                    |inst| check(&inst),
                )
            })
        }
        Baseline::Scipy => match &config.python {
            None => Err("scipy not available".into()),
            Some(python) => {
                let input = match p.compressed(conv) {
                    Some(m) => scipy::ScipyInput::Compressed(m),
                    None => scipy::ScipyInput::Coo(p.coo(conv)),
                };
                let dir = config.work_dir.join("scipy");
                scipy::convert(python, &dir, &input, conv.dst(), repeat).and_then(|(runs, inst)| {
                    check(&inst)?;
                    Ok(Timing { runs })
                })
            }
        },
        Baseline::Memcpy => {
            let (in_bytes, out_bytes) = (bytes.0 as usize, bytes.1 as usize);
            let src = vec![0x5au8; in_bytes];
            measure(
                repeat,
                || c::traffic(&src, in_bytes, out_bytes).map(|t| (t, ())),
                |()| Ok(()),
            )
        }
    };
    outcome(result)
}

/// The most runs of one measurement ([`Config::min_time`]).
pub const MAX_RUNS: usize = 1001;

/// How many runs a measurement of a conversion whose median is `median`
/// seconds gets: `repeat`, or more when that covers less than `min_time`.
pub fn runs_for(config: &Config, median: f64) -> usize {
    let repeat = config.repeat.max(1);
    if median.is_nan() || median <= 0.0 || median * repeat as f64 >= config.min_time {
        return repeat;
    }
    let wanted = (config.min_time / median).ceil();
    // Odd, so that the median is one run.
    let wanted = if wanted >= MAX_RUNS as f64 {
        MAX_RUNS
    } else {
        wanted as usize | 1
    };
    wanted.max(repeat)
}

/// The hand-written C's outcome from a run of the converter's program,
/// which timed it beside the generated code ([`spf::run`]): its output
/// checked as `check` says.
fn paired_outcome(run: &spf::SpfRun, dst: &Descriptor, p: &Prepared, check: Check) -> Outcome {
    let Some(b) = &run.baseline else {
        return Outcome::Failed("the converter's program timed no baseline".into());
    };
    if let Check::Against(reference) = check {
        let Some(out) = &b.output else {
            return Outcome::Failed("the converter's program wrote no baseline output".into());
        };
        if let Err(e) = verify::check_against(reference, dst, &p.expected, out) {
            return Outcome::Wrong(e);
        }
    }
    Outcome::Time(b.summary)
}

/// The first round of a row: runs the generated converter `bin` on `p`
/// (with the hand-written C linked beside it, timed in the same process),
/// verifies both outputs, and measures every other baseline of `conv`
/// (verified against the converter's output). Returns the row and the runs
/// per measurement the later rounds use.
fn run_row(conv: Conversion, bin: &Path, p: &Prepared, config: &Config) -> (Row, usize) {
    let dst = synth::builtin::load_format(conv.dst()).expect("a built-in format");
    let out_json = config.work_dir.join("out.json");
    let c_json = config.work_dir.join("c-out.json");
    let mut row = Row {
        conversion: conv,
        matrix: p.name.clone(),
        dims: p.sorted.dims.clone(),
        nnz: p.sorted.len() as u64,
        input_bytes: 0,
        output_bytes: 0,
        spf: Outcome::Failed("not run".into()),
        baselines: Vec::new(),
    };
    let mut reference = None;
    let mut repeat = config.repeat;
    let mut c_outcome;
    match spf::run(bin, p.file(conv), repeat, &out_json, Some(&c_json)) {
        Err(e) => {
            c_outcome = Outcome::Failed(format!("in the converter's program: {e}"));
            row.spf = Outcome::Failed(e);
        }
        Ok(mut run) => {
            row.input_bytes = run.input_bytes;
            row.output_bytes = run.output_bytes;
            row.spf = match verify::check(&dst, &p.expected, &run.output) {
                Ok(()) => {
                    // A fast conversion: measured again with more runs, as
                    // its baselines will be (the C's outputs of the first
                    // run are verified below).
                    let first = std::mem::take(&mut run.output);
                    c_outcome = paired_outcome(&run, &dst, p, Check::Against(Some(&first)));
                    repeat = runs_for(config, run.summary.median);
                    if repeat > config.repeat {
                        if let Ok(again) = spf::run(bin, p.file(conv), repeat, &out_json, None) {
                            if matches!(c_outcome, Outcome::Time(_)) {
                                c_outcome = paired_outcome(&again, &dst, p, Check::Verified);
                            }
                            run = again;
                        }
                    }
                    reference = Some(first);
                    Outcome::Time(run.summary)
                }
                Err(e) => {
                    // The C checked with the oracle alone.
                    c_outcome = paired_outcome(&run, &dst, p, Check::Against(None));
                    Outcome::Wrong(e)
                }
            };
        }
    }
    for baseline in conv
        .baselines()
        .into_iter()
        .filter(|&b| b != Baseline::Scipy || config.python.is_some())
    // said once in the notes
    {
        let o = if baseline == Baseline::C {
            c_outcome.clone()
        } else if baseline == Baseline::Memcpy && row.output_bytes == 0 {
            Outcome::Failed("no byte counts: the generated converter did not run".into())
        } else {
            run_baseline(
                baseline,
                conv,
                p,
                &dst,
                Check::Against(reference.as_ref()),
                (row.input_bytes, row.output_bytes),
                repeat,
                config,
            )
        };
        row.baselines.push((baseline, o));
    }
    (row, repeat)
}

/// The times of the generated code and the C from one run of the
/// converter's program, when both were timed.
type Pair = (Summary, Summary);

/// The row's generated-code and C times, when both are timed.
fn pair_of(row: &Row) -> Option<Pair> {
    let Outcome::Time(ours) = &row.spf else {
        return None;
    };
    match row.baselines.iter().find(|(b, _)| *b == Baseline::C)? {
        (_, Outcome::Time(theirs)) => Some((*ours, *theirs)),
        _ => None,
    }
}

/// Of the rounds' pairs, the fastest for both together (the smallest sum
/// of the two medians): both times come from one process, which met one
/// memory draw (the fastest of each side could come from different
/// rounds), and a round in which either side was disturbed has the larger
/// sum, so it is not the one kept; the generated code's time is then its
/// fastest but for a few percent, as the other baselines' are.
pub fn fastest_pair(pairs: &[Pair]) -> Option<Pair> {
    pairs
        .iter()
        .min_by(|a, b| (a.0.median + a.1.median).total_cmp(&(b.0.median + b.1.median)))
        .copied()
}

/// A later round of `row`: the generated converter (with the C beside it)
/// and each other baseline measured once more (only those that were timed:
/// a wrong or failed one is said once). The converter's run adds to
/// `pairs` when it timed both (the run picks among them, [`fastest_pair`]);
/// without a timed C, the generated code keeps its faster median, as
/// every other baseline does. Outputs are not checked again: the first
/// round verified them, and code and input are the same.
fn measure_again(
    row: &mut Row,
    pairs: &mut Vec<Pair>,
    bin: &Path,
    p: &Prepared,
    repeat: usize,
    config: &Config,
) {
    let conv = row.conversion;
    let dst = synth::builtin::load_format(conv.dst()).expect("a built-in format");
    if let Outcome::Time(best) = &row.spf {
        let out_json = config.work_dir.join("out.json");
        if let Ok(again) = spf::run(bin, p.file(conv), repeat, &out_json, None) {
            match paired_outcome(&again, &dst, p, Check::Verified) {
                Outcome::Time(c) if !pairs.is_empty() => pairs.push((again.summary, c)),
                _ => {
                    if again.summary.median < best.median {
                        row.spf = Outcome::Time(again.summary);
                    }
                }
            }
        }
    }
    let bytes = (row.input_bytes, row.output_bytes);
    for (baseline, outcome) in &mut row.baselines {
        if *baseline == Baseline::C || !matches!(outcome, Outcome::Time(_)) {
            continue;
        }
        let o = run_baseline(
            *baseline,
            conv,
            p,
            &dst,
            Check::Verified,
            bytes,
            repeat,
            config,
        );
        *outcome = faster(
            std::mem::replace(outcome, Outcome::Failed(String::new())),
            o,
        );
    }
}

/// Of two measurements of the same thing, the one with the smaller median;
/// a wrong or failed one wins (it is reported, not timed).
fn faster(a: Outcome, b: Outcome) -> Outcome {
    match (&a, &b) {
        (Outcome::Time(x), Outcome::Time(y)) if y.median < x.median => b,
        (Outcome::Time(_), Outcome::Time(_)) => a,
        (Outcome::Time(_), _) => b,
        _ => a,
    }
}

/// Runs the experiment `config` describes.
pub fn run(config: &Config) -> Result<Results, String> {
    let specs = selected_specs(config)?;
    let convs = selected_conversions(config);
    std::fs::create_dir_all(&config.work_dir)
        .map_err(|e| format!("{}: {e}", config.work_dir.display()))?;
    let mut notes = Vec::new();
    match &config.python {
        None => notes.push("scipy: skipped (not requested)".to_string()),
        Some(py) => match scipy::detect_or_install(py) {
            Ok(v) => notes.push(format!(
                "scipy {v}: indices stored as int32 where they fit (spf and the hand-written C here: {}-bit; sprs and nalgebra-sparse: 64-bit)",
                config.index_width
            )),
            Err(e) => notes.push(format!("scipy: skipped ({e})")),
        },
    }
    let python = config
        .python
        .as_ref()
        .filter(|py| scipy::detect(py).is_ok())
        .cloned();
    let config = &Config {
        python,
        ..config.clone()
    };

    // The work: (matrix, its conversions).
    let work: Vec<(&matgen::MatrixSpec, Vec<Conversion>)> = specs
        .into_iter()
        .map(|s| {
            let cs = convs
                .iter()
                .copied()
                .filter(|c| c.order() == s.dims.len())
                .collect::<Vec<_>>();
            (s, cs)
        })
        .filter(|(_, cs)| !cs.is_empty())
        .collect();
    let total: usize = work.iter().map(|(_, cs)| cs.len()).sum();

    // Build each converter once.
    let bin_dir = config.work_dir.join("bin");
    std::fs::create_dir_all(&bin_dir).map_err(|e| format!("{}: {e}", bin_dir.display()))?;
    // The baselines' files written first, then the builds (a compiler run
    // each) on every processor.
    let mut builds = Vec::new();
    for conv in work.iter().flat_map(|(_, cs)| cs.iter().copied()) {
        if !builds.iter().any(|(c, _, _)| *c == conv) {
            let bin = bin_dir.join(format!("{}_{}", conv.src(), conv.dst()));
            let baseline =
                c::paired_baseline(&config.work_dir.join("c"), conv, config.index_width)?;
            builds.push((conv, bin, baseline));
        }
    }
    let built: Vec<Result<(), String>> = builds
        .par_iter()
        .map(|(conv, bin, baseline)| {
            config.spf.build(
                conv.src(),
                conv.dst(),
                bin,
                Some(baseline),
                config.index_width,
            )
        })
        .collect();
    // The first conversion's failure, as a build one after the other gives.
    built.into_iter().collect::<Result<(), String>>()?;
    let bins: BTreeMap<Conversion, PathBuf> = builds
        .into_iter()
        .map(|(conv, bin, _)| (conv, bin))
        .collect();

    let bar = if config.progress {
        let bar = ProgressBar::new((total * config.rounds.max(1)) as u64);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    // Rounds are passes over the whole work, minutes apart, so that a slow
    // spell of the machine or an unlucky process meets one round of a
    // measurement, not all of them. The inputs are generated again for
    // each pass (matgen is deterministic): nothing is held between passes
    // but the rows.
    let mut rows: Vec<(Row, usize, Vec<Pair>)> = Vec::new();
    let mut skipped = Vec::new();
    for round in 0..config.rounds.max(1) {
        let mut next = 0;
        for (spec, cs) in &work {
            bar.set_message(format!("{}: generating (round {})", spec.name, round + 1));
            let p = prepare(spec, cs, config)?;
            for &conv in cs {
                bar.set_message(format!("{}: {conv} (round {})", spec.name, round + 1));
                if let Some(reason) = padding_skip(conv, &p.sorted, config.max_padding) {
                    if round == 0 {
                        skipped.push(Skip {
                            conversion: conv,
                            matrix: spec.name.to_string(),
                            reason,
                        });
                    }
                } else if round == 0 {
                    let (row, repeat) = run_row(conv, &bins[&conv], &p, config);
                    let pairs = pair_of(&row).into_iter().collect();
                    rows.push((row, repeat, pairs));
                } else {
                    let (row, repeat, pairs) = &mut rows[next];
                    measure_again(row, pairs, &bins[&conv], &p, *repeat, config);
                    next += 1;
                }
                bar.inc(1);
            }
            for f in [&p.sorted_file, &p.shuffled_file] {
                let _ = std::fs::remove_file(f);
            }
        }
    }
    bar.finish_and_clear();
    let rows = rows
        .into_iter()
        .map(|(mut row, _, pairs)| {
            if let Some((ours, theirs)) = fastest_pair(&pairs) {
                row.spf = Outcome::Time(ours);
                for (b, o) in &mut row.baselines {
                    if *b == Baseline::C {
                        *o = Outcome::Time(theirs);
                    }
                }
            }
            row
        })
        .collect();
    Ok(Results {
        scale: config.scale,
        repeat: config.repeat,
        min_time: config.min_time,
        rounds: config.rounds,
        seed: config.seed,
        index_width: config.index_width,
        notes,
        rows,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(repeat: usize, min_time: f64) -> Config {
        Config {
            scale: 0.05,
            repeat,
            min_time,
            rounds: 1,
            seed: 1,
            matrices: Vec::new(),
            conversions: Vec::new(),
            work_dir: PathBuf::from("."),
            spf: spf::Spf {
                exe: PathBuf::from("spf"),
            },
            python: None,
            max_padding: 16.0,
            progress: false,
            index_width: IndexWidth::W64,
        }
    }

    #[test]
    fn the_faster_measurement_wins_and_errors_stay() {
        let t = |median| {
            Outcome::Time(Summary {
                runs: 1,
                median,
                min: median,
                max: median,
            })
        };
        assert_eq!(faster(t(2.0), t(1.0)), t(1.0));
        assert_eq!(faster(t(1.0), t(2.0)), t(1.0));
        let wrong = Outcome::Wrong("x".into());
        assert_eq!(faster(t(1.0), wrong.clone()), wrong);
        assert_eq!(faster(wrong.clone(), t(1.0)), wrong);
    }

    #[test]
    fn the_fastest_pair_is_kept_whole() {
        let s = |median| Summary {
            runs: 1,
            median,
            min: median,
            max: median,
        };
        // The generated code was fastest in the first round, the C in the
        // third: the second round is the fastest for both together, and
        // both times come from it.
        let pairs = [(s(1.0), s(3.0)), (s(1.5), s(1.5)), (s(3.0), s(1.0))];
        assert_eq!(fastest_pair(&pairs), Some((s(1.5), s(1.5))));
        assert_eq!(fastest_pair(&pairs[2..]), Some((s(3.0), s(1.0))));
        assert_eq!(fastest_pair(&[]), None);
    }

    #[test]
    fn fast_conversions_get_more_runs_up_to_a_limit() {
        let c = config(5, 0.05);
        // 5 runs of 20 ms cover 0.1 s: as asked.
        assert_eq!(runs_for(&c, 0.02), 5);
        // 1 ms: 50 runs, odd for a single median run.
        assert_eq!(runs_for(&c, 0.001), 51);
        // 1 µs: at most MAX_RUNS.
        assert_eq!(runs_for(&c, 1e-6), MAX_RUNS);
        // Nothing measured, or no minimum: the repeat count.
        assert_eq!(runs_for(&c, 0.0), 5);
        assert_eq!(runs_for(&config(7, 0.0), 1e-6), 7);
    }
}
