//! The conversion subcommands: `spf synth`, `spf convert`, `spf build`, and
//! `spf pdfg` of a pair of formats.
//!
//! Every one synthesizes a conversion with [`synthesize`](spf::synth::synthesize::synthesize); `convert` runs it
//! in the interpreter and checks the result with the oracle, `build`
//! compiles it with a driver ([`super::driver`]).

use std::path::Path;

use spf::codegen::width::{IndexWidth, IndexWidths, WidthChoice, WidthChoices};
use spf::codegen::{c, rust};
use spf::iegen::pdfg::Pdfg;
use spf::iegen::syntax::SyntaxError;
use spf::synth::established::CoordinateFormat;
use spf::synth::fingerprint::Fingerprint;
#[cfg(test)]
use spf::synth::instance::Instance;
use spf::synth::instance_validation::validate_entries;
use spf::synth::synthesize::{synthesize_recorded, SynthError, Synthesized};
use spf::synth::tensor_io::{parse_checked_coo, FileError, ReadOptions, Symmetry};
use spf::synth::Descriptor;

use super::commands::load_format;
use super::driver::{self, CoordinateInput};
use super::engine::{Expected, Runner, Source};
use super::error::CliError;
use super::instance_file::{read_instance_entries, write_instance_when, Target};
use super::output::{emit, write_atomically};

/// What `spf synth` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SynthEmit {
    /// The conversion as a C99 function.
    C,
    /// The conversion as a Rust function.
    Rust,
    /// The synthesized computation in the `.comp` format.
    Ir,
    /// The computation's polyhedral dataflow graph as Graphviz DOT.
    Dot,
}

/// Where synthesized conversions come from: [`synthesize_pair`] on the
/// command line, the same synthesis without its record in tests
/// (`testing::synthesized`), or a conversion changed on purpose.
pub type Synthesizer<'a> = dyn Fn(&Descriptor, &Descriptor) -> Result<Synthesized, CliError> + 'a;

/// Synthesizes the conversion from `src` to `dst`.
///
/// # Errors
///
/// [`CliError::Usage`] naming a descriptor `spf check` rejects (the first
/// property that fails), or the pair and why synthesis failed.
pub fn synthesize_pair(src: &Descriptor, dst: &Descriptor) -> Result<Synthesized, CliError> {
    // A built-in format is checked by the test suite, not on every run.
    for d in [src, dst]
        .into_iter()
        .filter(|d| !spf::synth::builtin::is_builtin(d))
    {
        if let Some(f) = spf::synth::check::first_error(d) {
            return Err(CliError::Usage(format!(
                "{} is not a well-formed format (`spf check` rejects it): {}: {}",
                d.name, f.property, f.message
            )));
        }
    }
    // What an earlier run lowered and validated is reused (the record is
    // kept beside the compiled conversions).
    let record = super::native_cache::SynthesisRecord::open(None);
    let record: &dyn spf::synth::record::Record = match &record {
        Some(r) => r,
        None => &spf::synth::record::NoRecord,
    };
    synthesize_recorded(src, dst, record).map_err(|e| synthesis_error(src, dst, e))
}

/// The error of a pair that does not synthesize.
fn synthesis_error(src: &Descriptor, dst: &Descriptor, e: SynthError) -> CliError {
    match e {
        // Names the pair and the failing test tensor itself.
        SynthError::Validation(v) => CliError::Usage(v.to_string()),
        e => CliError::Usage(format!(
            "cannot synthesize the conversion {} -> {}: {e}",
            src.name, dst.name
        )),
    }
}

/// `spf synth SRC DST --emit c|rust|ir|dot [-o OUT] [--index-width W]
/// [--pos-width W] [--crd-width W]` (auto prints 64-bit code: there is no
/// input to decide by).
pub fn synth(
    src: &str,
    dst: &str,
    what: SynthEmit,
    output: Option<&Path>,
    width: WidthChoices,
) -> Result<(), CliError> {
    let fixed = |c: WidthChoice| match c {
        WidthChoice::Fixed(w) => w,
        WidthChoice::Auto => IndexWidth::W64,
    };
    let sd = load_format(src)?;
    let dd = load_format(dst)?;
    let s = synthesize_pair(&sd, &dd)?;
    let widths = s.widths(IndexWidths {
        positions: fixed(width.positions),
        coordinates: fixed(width.coordinates),
    });
    let pair = format!("{} -> {}", sd.name, dd.name);
    let failed = |step: &str, e: String| {
        CliError::Usage(format!("{step} the synthesized conversion {pair}: {e}"))
    };
    let text = match what {
        SynthEmit::Ir => s.computation.to_string(),
        SynthEmit::Dot => Pdfg::build(&s.computation, &s.env())
            .map_err(|e| failed("drawing", e.to_string()))?
            .to_dot(),
        SynthEmit::C | SynthEmit::Rust => {
            let program = s.program().map_err(|e| failed("scanning", e.to_string()))?;
            let code = if what == SynthEmit::C {
                c::emit_c_with(&program, &widths)
            } else {
                rust::emit_rust_with(&program, &widths)
            };
            code.map_err(|e| failed("printing", e.to_string()))?
        }
    };
    emit(output, &text)
}

/// `spf pdfg FILE -o OUT` (a computation file) or `spf pdfg SRC DST -o OUT`
/// (the synthesized conversion between two formats).
pub fn pdfg(inputs: &[String], output: &Path) -> Result<(), CliError> {
    match inputs {
        [file] => super::commands::pdfg(Path::new(file), output),
        [src, dst] => {
            let sd = load_format(src)?;
            let dd = load_format(dst)?;
            let s = synthesize_pair(&sd, &dd)?;
            let failed = |e: String| {
                CliError::Usage(format!(
                    "drawing the synthesized conversion {} -> {}: {e}",
                    sd.name, dd.name
                ))
            };
            let graph = Pdfg::build(&s.computation, &s.env()).map_err(|e| failed(e.to_string()))?;
            let text = match output.extension().and_then(|e| e.to_str()) {
                Some("dot") | Some("gv") => graph.to_dot(),
                Some("svg") => graph.to_svg(),
                _ => {
                    return Err(CliError::Usage(format!(
                        "{}: the output must end in .dot or .svg",
                        output.display()
                    )))
                }
            };
            write_atomically(output, text.as_bytes())
        }
        _ => Err(CliError::Usage(format!(
            "spf pdfg takes a computation file or two formats (SRC DST), not {} arguments",
            inputs.len()
        ))),
    }
}

/// `spf convert SRC DST INPUT [-o OUT]`: converts INPUT (coordinates, or a
/// JSON or `.npz` instance of SRC) to DST as `runner` says (compiled or in
/// the interpreter, [`super::engine`]), checks the result unless told not
/// to, and writes it to `target` ([`Target`]: `.npz`, `.mtx`, `.tns` or
/// JSON, by `--to` or by OUT's name; JSON on standard output without `-o`
/// or with `-o -`). `symmetry` says what a symmetric Matrix Market input
/// becomes.
pub fn convert(
    src: &str,
    dst: &str,
    input: &Path,
    target: &Target<'_>,
    runner: &Runner,
    symmetry: Symmetry,
    drop_zeros: bool,
) -> Result<(), CliError> {
    let sd = super::instance_file::source_format(load_format(src)?, input);
    let dd = load_format(dst)?;
    let options = ReadOptions {
        symmetry,
        narrow: runner.reads_narrow(),
        ..ReadOptions::default()
    };
    runner.exactly(&|| convert_once(&sd, &dd, input, target, runner, &options, drop_zeros))
}

/// One attempt of [`convert`] from `sd` to `dd` (a result whose
/// fingerprint differs from the input's is a [`CliError::Mismatch`], and
/// nothing is written).
fn convert_once(
    sd: &Descriptor,
    dd: &Descriptor,
    input: &Path,
    target: &Target<'_>,
    runner: &Runner,
    options: &ReadOptions,
    drop_zeros: bool,
) -> Result<(), CliError> {
    // Synthesis needs no input: it runs on a thread of its own while the
    // input is read and checked (an error of the input is reported first).
    let (source, synthesized) = std::thread::scope(|scope| {
        let verbose = runner.verbose;
        let synthesis = scope.spawn(move || {
            let started = std::time::Instant::now();
            let s = synthesize_pair(sd, dd);
            if verbose {
                eprintln!(
                    "spf: synthesized {} -> {} beside the reading ({:.3} s)",
                    sd.name,
                    dd.name,
                    started.elapsed().as_secs_f64()
                );
            }
            s
        });
        let source = read_source(sd, input, &synthesize_pair, runner, options);
        let synthesized = synthesis
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (source, synthesized)
    });
    let source = source?;
    let s = &synthesized?;
    let mut result = runner.convert(s, sd, dd, source)?;
    if drop_zeros {
        result = super::zeros::drop_zeros(dd, result, runner, &target.shown())?;
    }
    let shown = target
        .path
        .map_or("the result".into(), |p| p.display().to_string());
    // The result is written while it is checked, on a thread of its own,
    // and kept only when the check passes.
    let (verdict, written) = std::thread::scope(|scope| {
        let (commit, decided) = std::sync::mpsc::channel::<bool>();
        let (out, progress) = (&result.instance, runner.progress);
        let writer = scope.spawn(move || {
            progress.step(&format!("writing {shown}"), || {
                write_instance_when(dd, out, target, &|| decided.recv().unwrap_or(false))
            })
        });
        let verdict = runner.verify(s, dd, &result);
        let _ = commit.send(verdict.is_ok());
        (verdict, writer.join())
    });
    verdict?;
    let note = written.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
    if let Some(note) = note {
        eprintln!("spf: note: {}: {note}", target.shown());
    }
    Ok(())
}

/// [`convert`] with loaded formats and a given synthesizer: the destination
/// instance, validated against `dst` and equal to the input by the oracle
/// (unless `runner` does not verify).
///
/// # Errors
///
/// Input errors (located for malformed files), synthesis errors, and an
/// internal error when a synthesized conversion gives an invalid or wrong
/// result.
#[cfg(test)]
pub fn convert_file(
    src: &Descriptor,
    dst: &Descriptor,
    input: &Path,
    synth: &Synthesizer<'_>,
    runner: &Runner,
) -> Result<Instance, CliError> {
    runner.exactly(&|| {
        let source = read_source(src, input, synth, runner, &ReadOptions::default())?;
        let s = synth(src, dst)?;
        runner.run(&s, src, dst, source).map(|r| r.instance)
    })
}

/// The names a COO-like format gives to coordinates: one dense symbol and
/// one index array per dimension (in order), the number of entries, and the
/// value array ([`coo_layout`] reads them off a descriptor).
pub type CooLayout = CoordinateFormat;

/// The layout of a COO format: one symbol besides the dense ones (the
/// number of entries `count`), and one index array per dense dimension
/// `d`, in order, from `{[x] : 0 <= x < count}` to
/// `{[y] : 0 <= y < dense[d]}` (its rules are not looked at:
/// [`CoordinateFormat::of`] says when they hold by construction).
///
/// # Errors
///
/// [`CliError::Usage`] when the descriptor does not have that shape.
pub fn coo_layout(d: &Descriptor) -> Result<CooLayout, CliError> {
    use spf::iegen::Set;
    let others: Vec<&String> = d.symbols.iter().filter(|s| !d.dense.contains(s)).collect();
    let set = |text: String| text.parse::<Set>().ok();
    let shaped = d.ufs.len() == d.dense.len()
        && others.len() == 1
        && d.ufs.iter().zip(&d.dense).all(|(u, extent)| {
            let domain = set(format!("{{[x] : 0 <= x < {}}}", others[0]));
            let range = set(format!("{{[y] : 0 <= y < {extent}}}"));
            domain.as_ref() == Some(&u.domain) && range.as_ref() == Some(&u.range)
        });
    if !shaped {
        return Err(CliError::Usage(format!(
            "{} is not a coordinate format: it needs one index array per dimension and one \
             symbol for the number of entries",
            d.name
        )));
    }
    Ok(CooLayout {
        format: d.name.clone(),
        dims: d.dense.clone(),
        index: d.ufs.iter().map(|u| u.name.clone()).collect(),
        count: others[0].clone(),
        values: d.data_name.clone(),
    })
}

/// Reads INPUT as an instance of `src`, with its entries: a JSON or `.npz`
/// instance (validated), or a coordinate file made into COO (what the
/// reader guarantees is not checked again, [`CoordinateFormat`]) and, when
/// `src` is not that COO format, converted to `src` by synthesis (the
/// conversion's check compares its result with the coordinates' entries,
/// which are then the result's).
///
/// # Errors
///
/// Located errors for malformed files, [`CliError::Input`] for an instance
/// that violates its descriptor or coordinates of the wrong order.
pub fn read_source(
    src: &Descriptor,
    input: &Path,
    synth: &Synthesizer<'_>,
    runner: &Runner,
    options: &ReadOptions,
) -> Result<Source, CliError> {
    let shown = input.display().to_string();
    let problem = |message: String| CliError::Input {
        file: shown.clone(),
        message,
    };
    // Shown while the input is read (and a coordinate file checked; ends
    // before a conversion).
    let reading = std::cell::Cell::new(Some(runner.progress.start(&format!("reading {shown}"))));
    let file = super::instance_file::open(input)?;
    if !file.kind.is_coordinates() {
        let (instance, expected) = read_instance_entries(src, input, &file, &|d, inst| {
            // The check is a step of its own, after the reading's.
            drop(reading.take());
            runner
                .progress
                .step(&format!("checking the {} input", d.name), || {
                    runner.expected(d, inst)
                })
        })?;
        return Ok(Source { instance, expected });
    }
    let coords = parse_checked_coo(&file, input, options).map_err(|e| match e {
        FileError::Io { source, .. } => CliError::Read {
            path: shown.clone(),
            source,
        },
        FileError::Parse { error, .. } => CliError::Located {
            file: shown.clone(),
            error: SyntaxError {
                line: error.line,
                column: error.column,
                span: Default::default(),
                message: error.message,
            },
        },
        other => problem(other.to_string()),
    })?;
    // The text is parsed: its bytes (a decompressed copy, or a map) go.
    drop(file);
    let order = coords.order();
    if order != src.dense.len() {
        return Err(problem(format!(
            "the input has {} dimensions but {} has {}; {}",
            order,
            src.name,
            src.dense.len(),
            spf::synth::builtin::formats_of_order_hint(order)
        )));
    }
    let coo = spf::synth::builtin::coordinate_format(order).ok_or_else(|| {
        problem(format!(
            "coordinates of {order} dimensions are not supported (1 or more are)"
        ))
    })?;
    let source = match CoordinateFormat::of(&coo) {
        Some(f) if runner.is_exact() => {
            let (instance, entries) = f.instance(coords).map_err(|e| problem(e.to_string()))?;
            Source {
                instance,
                expected: Expected::Exact(entries),
            }
        }
        Some(f) => {
            let (instance, print) = f
                .instance_fingerprinted(coords)
                .map_err(|e| problem(e.to_string()))?;
            Source {
                instance,
                expected: Expected::Fingerprint(print),
            }
        }
        None => {
            let instance = coo_layout(&coo)?.instance_of(coords.into_tensor());
            let entries = validate_entries(&coo, &instance).map_err(|e| problem(e.to_string()))?;
            let expected = if runner.is_exact() {
                Expected::Exact(entries)
            } else {
                Expected::Fingerprint(Fingerprint::of_entries(&entries))
            };
            Source { instance, expected }
        }
    };
    if coo == *src {
        return Ok(source);
    }
    drop(reading.take());
    let s = synth(&coo, src)?;
    runner.run(&s, &coo, src, source)
}

/// What `spf build` takes beside the pair and the output.
pub struct BuildOptions<'a> {
    /// Where to write the program's C source too.
    pub emit_source: Option<&'a Path>,
    /// A hand-written conversion timed beside the generated one.
    pub baseline: Option<&'a Path>,
    /// Whether the program checks every result against its input.
    pub verify: bool,
    /// Extra compiler flags (split on whitespace), after spf's own.
    pub cflags: &'a str,
    /// The index widths.
    pub width: WidthChoices,
}

/// `spf build SRC DST -o BIN [--emit-source FILE.c] [--baseline B.c]`:
/// writes the C program of the conversion (see [`super::driver`]), with the
/// hand-written conversion in `B.c` timed beside it, and compiles it into
/// BIN.
pub fn build(
    src: &str,
    dst: &str,
    output: &Path,
    options: BuildOptions<'_>,
) -> Result<(), CliError> {
    let baseline = options.baseline.map(driver::Baseline::new).transpose()?;
    let sd = load_format(src)?;
    let dd = load_format(dst)?;
    let (source, note) = build_source(
        &sd,
        &dd,
        &synthesize_pair,
        baseline.as_ref(),
        options.verify,
        options.width,
    )?;
    if let Some(note) = note {
        eprintln!("spf: note: {}: {note}", output.display());
    }
    if let Some(path) = options.emit_source {
        write_atomically(path, source.as_bytes())?;
    }
    let extra: Vec<&str> = options.cflags.split_whitespace().collect();
    super::c_compiler::compile(&source, output, &extra)
}

/// The C program of the conversion `src` → `dst`, and a note when it cannot
/// read coordinate files (why not).
///
/// # Errors
///
/// Synthesis errors of the pair, and what [`driver::driver_source`] reports.
pub fn build_source(
    src: &Descriptor,
    dst: &Descriptor,
    synth: &Synthesizer<'_>,
    baseline: Option<&driver::Baseline>,
    verify: bool,
    width: WidthChoices,
) -> Result<(String, Option<String>), CliError> {
    let main = synth(src, dst)?;
    let to_coo;
    let verifier = if verify {
        // DRV_MAX_ORDER of the driver's runtime: the modes an entry holds.
        const MOST_MODES: usize = 8;
        let coo = spf::synth::builtin::coordinate_format(src.dense.len())
            .filter(|_| src.dense.len() <= MOST_MODES)
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "--verify compares coordinates of 1 to {MOST_MODES} dimensions, and {} has {}",
                    src.name,
                    src.dense.len()
                ))
            })?;
        let convert = |d: &Descriptor| -> Result<Option<Synthesized>, CliError> {
            if *d == coo {
                Ok(None)
            } else {
                synth(d, &coo).map(Some)
            }
        };
        to_coo = (convert(src)?, convert(dst)?);
        Some(driver::Verifier {
            coo: coo_layout(&coo)?,
            src_to_coo: to_coo.0.as_ref(),
            dst_to_coo: to_coo.1.as_ref(),
        })
    } else {
        None
    };
    let to_source;
    let coordinates = match spf::synth::builtin::coordinate_format(src.dense.len()) {
        None => CoordinateInput::Unsupported(format!(
            "{} has {} dimensions; coordinate files are read for 1 or more; give a JSON \
             instance of {}",
            src.name,
            src.dense.len(),
            src.name
        )),
        Some(coo) => {
            let layout = coo_layout(&coo)?;
            if coo == *src {
                CoordinateInput::Direct(layout)
            } else {
                match synth(&coo, src) {
                    Ok(s) => {
                        to_source = s;
                        CoordinateInput::Through {
                            coo: layout,
                            to_source: &to_source,
                        }
                    }
                    Err(e) => CoordinateInput::Unsupported(format!(
                        "coordinate files are not accepted ({e}); give a JSON instance of {}",
                        src.name
                    )),
                }
            }
        }
    };
    let note = match &coordinates {
        CoordinateInput::Unsupported(reason) => {
            Some(format!("reads JSON instances only: {reason}"))
        }
        _ => None,
    };
    Ok((
        driver::driver_source(&main, dst, &coordinates, baseline, verifier.as_ref(), width)?,
        note,
    ))
}

/// The tests' synthesizer: the synthesized conversions, each pair
/// synthesized once per test process (without the record
/// [`synthesize_pair`] keeps beside the user's compiled conversions), and
/// copies with one piece of the computation changed, for the tests that a
/// wrong conversion is caught.
#[cfg(test)]
pub(crate) mod testing {
    use std::sync::Mutex;

    use spf::iegen::computation::parse_computation;
    use spf::synth::synthesize::{synthesize, Synthesized};
    use spf::synth::Descriptor;

    use super::{synthesis_error, CliError};

    /// The conversion `src` → `dst` as synthesis makes it: what the tests
    /// pass where the commands pass [`super::synthesize_pair`].
    pub(crate) fn synthesized(src: &Descriptor, dst: &Descriptor) -> Result<Synthesized, CliError> {
        type Done = Vec<(Descriptor, Descriptor, Synthesized)>;
        static DONE: Mutex<Done> = Mutex::new(Vec::new());
        let done = |d: &Done| {
            d.iter()
                .find(|(s, t, _)| s == src && t == dst)
                .map(|(_, _, c)| c.clone())
        };
        if let Some(c) = done(&DONE.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(c);
        }
        // Synthesized without the lock: the tests synthesize other pairs
        // meanwhile.
        let c = synthesize(src, dst).map_err(|e| synthesis_error(src, dst, e))?;
        let mut d = DONE.lock().unwrap_or_else(|e| e.into_inner());
        if done(&d).is_none() {
            d.push((src.clone(), dst.clone(), c.clone()));
        }
        Ok(c)
    }

    /// [`synthesized`] `src` → `dst` with `from` replaced by `to` in the
    /// text of its computation (the `.comp` format), which must hold
    /// `from`: a wrong conversion, for the checks that catch one.
    pub(crate) fn altered(src: &Descriptor, dst: &Descriptor, from: &str, to: &str) -> Synthesized {
        let mut c = synthesized(src, dst).expect("the pair synthesizes");
        let text = c.computation.to_string();
        assert!(text.contains(from), "no `{from}` in\n{text}");
        c.computation = parse_computation(&text.replace(from, to)).expect("the change parses");
        c
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use spf::synth::instance::Values;
    use spf::synth::instance_validation::validate;
    use spf::synth::oracle::{compare, coordinate_entries, entries};
    use spf::synth::tensor_io::read_coo_file;
    use spf::synth::tensor_io::read_file;

    use super::testing::{altered, synthesized};
    use super::*;

    fn format(name: &str) -> Descriptor {
        spf::synth::builtin::load_format(name).expect("built-in format")
    }

    fn data(name: &str) -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/synth/tests/data")).join(name)
    }

    /// A test matrix of the repository; a missing file fails the test.
    fn matrix(name: &str) -> PathBuf {
        let path =
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/matrices")).join(name);
        assert!(path.is_file(), "test matrix {} is missing", path.display());
        path
    }

    fn temp(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spf-conv-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    /// The entries of a coordinate file, read independently of `convert`.
    fn file_entries(path: &Path) -> std::collections::BTreeMap<Vec<i64>, f64> {
        coordinate_entries(&read_file(path, None).expect("readable"))
    }

    #[test]
    fn coordinates_become_coo_and_then_csr() {
        let (coo, csr) = (format("coo"), format("csr"));
        for m in [
            data("small.mtx"),
            matrix("pores_1.mtx"),
            matrix("jgl009.mtx"),
            matrix("lund_a.mtx"),
        ] {
            let out =
                convert_file(&coo, &csr, &m, &synthesized, &Runner::interp()).expect("converted");
            assert_eq!(out.format, "CSR");
            validate(&csr, &out).expect("a valid CSR instance");
            let got = entries(&csr, &out).expect("readable");
            compare(&file_entries(&m), &got).expect("the same entries");
        }
        // small.mtx is csr_small.json's matrix.
        let out = convert_file(
            &coo,
            &csr,
            &data("small.mtx"),
            &synthesized,
            &Runner::interp(),
        )
        .expect("converted");
        let mut want = Instance::from_json(
            &std::fs::read_to_string(data("csr_small.json")).expect("readable"),
        )
        .expect("an instance");
        // The result records the width it was computed at.
        want.index_width = Some(IndexWidths::uniform(IndexWidth::W64));
        assert_eq!(out, want);
    }

    #[test]
    fn coordinates_are_converted_to_a_source_that_is_not_coo() {
        // .mtx -> COO -> (synthesized) CSR -> (synthesized) COO.
        let (coo, csr) = (format("coo"), format("csr"));
        let m = matrix("lund_a.mtx");
        let out = convert_file(&csr, &coo, &m, &synthesized, &Runner::interp()).expect("converted");
        validate(&coo, &out).expect("a valid COO instance");
        compare(&file_entries(&m), &entries(&coo, &out).expect("readable")).expect("same");
        // A JSON instance of the source is read as it is.
        let out = convert_file(
            &csr,
            &coo,
            &data("csr_small.json"),
            &synthesized,
            &Runner::interp(),
        )
        .expect("ok");
        assert_eq!(out.symbols["NNZ"], 5);
        assert_eq!(out.arrays["row"], Values::Int(vec![0, 0, 2, 2, 3]));
    }

    #[test]
    fn invalid_inputs_are_reported_with_their_file() {
        let (coo, csr) = (format("coo"), format("csr"));
        let dir = temp("invalid");
        // Non-monotone rowptr.
        let text = std::fs::read_to_string(data("csr_small.json")).expect("read");
        let bad = dir.join("bad.json");
        std::fs::write(&bad, text.replace("[0, 2, 2, 4, 5]", "[0, 3, 2, 4, 5]")).expect("w");
        let e = convert_file(&csr, &coo, &bad, &synthesized, &Runner::interp()).unwrap_err();
        assert!(matches!(e, CliError::Input { .. }), "{e}");
        assert!(e.to_string().contains("rowptr is not nondecreasing"), "{e}");
        // Malformed JSON: located.
        let broken = dir.join("broken.json");
        std::fs::write(&broken, "{\"format\": \"CSR\",\n  \"symbols\": [}").expect("w");
        let e = convert_file(&csr, &coo, &broken, &synthesized, &Runner::interp()).unwrap_err();
        assert!(matches!(e, CliError::Located { .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("{}:2:", broken.display())),
            "{e}"
        );
        // An instance of another format.
        let e = convert_file(
            &coo,
            &csr,
            &data("csr_small.json"),
            &synthesized,
            &Runner::interp(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("not `COO`"), "{e}");
        // A malformed Matrix Market file: located, as tensor_io says.
        let wrong = matrix("wrong.mtx");
        let e = convert_file(&coo, &csr, &wrong, &synthesized, &Runner::interp()).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}:3:1: row index 0 is out of range 1..=2: Matrix Market indices are 1-based, \
                 and this one looks 0-based",
                wrong.display()
            )
        );
        // Coordinates of the wrong order.
        let e = convert_file(
            &coo,
            &csr,
            &data("small.tns"),
            &synthesized,
            &Runner::interp(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("3 dimensions but COO has 2"), "{e}");
        // A missing file.
        let e = convert_file(
            &coo,
            &csr,
            &dir.join("none.mtx"),
            &synthesized,
            &Runner::interp(),
        )
        .unwrap_err();
        assert!(matches!(e, CliError::Read { .. }), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_wrong_conversion_is_an_internal_error() {
        let (coo, csr) = (format("coo"), format("csr"));
        // Values copied in source order instead of through the permutation.
        let wrong = altered(&coo, &csr, "A_out(p) = A(n_src)", "A_out(p) = A(p)");
        // Caught in the interpreter's checks and in the compiled ones
        // (native_check.rs): a result the compiled check passed would not
        // be checked again, so an unsorted CSR below is the compiled
        // rule check's catch, and the changed values are found in the
        // entries it enumerates.
        let cache = temp("wrong-conversion-cache");
        for runner in [&Runner::interp(), &Runner::native_in(&cache)] {
            let synth = |_: &Descriptor, _: &Descriptor| Ok(wrong.clone());
            let e = convert_file(&coo, &csr, &data("small.mtx"), &synth, runner).unwrap_err();
            let text = e.to_string();
            assert!(
                text.starts_with(
                    "internal error: the synthesized conversion COO -> CSR passed validation, but on \
                     this input: the result stores other entries than the input"
                ),
                "{text}"
            );
            // From an instance file: the result is compared with the entries
            // its validation read.
            let wrong_values = altered(&csr, &coo, "A_out(n) = A(k)", "A_out(n) = A(0)");
            let synth = |s: &Descriptor, d: &Descriptor| match (s.name.as_str(), d.name.as_str()) {
                ("CSR", "COO") => Ok(wrong_values.clone()),
                _ => synthesized(s, d),
            };
            let e = convert_file(&csr, &coo, &data("csr_small.json"), &synth, runner).unwrap_err();
            assert!(
                e.to_string().contains(
                    "passed validation, but on this input: the result stores other entries"
                ),
                "{e}"
            );
            // A conversion that leaves an output unsorted is invalid.
            let unsorted = altered(&coo, &csr, "P.key(1, p)", "P.key(1, NP - 1 - p)");
            let synth = |_: &Descriptor, _: &Descriptor| Ok(unsorted.clone());
            let e = convert_file(&coo, &csr, &data("small.mtx"), &synth, runner).unwrap_err();
            assert!(
                e.to_string()
                    .contains("but on this input: the result breaks a rule of CSR"),
                "{e}"
            );
        }
        let _ = std::fs::remove_dir_all(&cache);
    }

    #[test]
    fn coo_layouts() {
        let l = coo_layout(&format("coo3d")).expect("a coordinate format");
        assert_eq!(l.dims, ["NR", "NC", "NZ"]);
        assert_eq!(l.index, ["row", "col", "z"]);
        assert_eq!((l.count.as_str(), l.values.as_str()), ("NNZ", "A"));
        let t = read_coo_file(&data("small.tns"), &ReadOptions::default()).expect("readable");
        let inst = l.instance_of(t);
        validate(&format("coo3d"), &inst).expect("valid");
        assert!(coo_layout(&format("csr")).is_err());
    }
}
