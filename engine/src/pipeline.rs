//! A conversion from file to file, as `spf convert` runs it: the input
//! read (coordinates, or a JSON or `.npz` instance of the source) and
//! checked while the pair is synthesized on a second thread, the
//! conversion run ([`crate::runner`]), and the result written while it is
//! checked, kept only when the check passes.

use std::path::Path;

use iegen::syntax::SyntaxError;
use synth::established::CoordinateFormat;
use synth::fingerprint::Fingerprint;
#[cfg(test)]
use synth::instance::Instance;
use synth::instance_validation::validate_entries_allowing;
use synth::tensor_io::{parse_checked_coo, FileError, ReadOptions, Symmetry};
use synth::Descriptor;

use crate::coordinates::coo_layout;
use crate::files::{read_instance_entries, write_instance_when, Target};
use crate::observe::step;
use crate::route::Route;
use crate::runner::{Expected, Runner, Source};
use crate::synthesis::{synthesize_pair, Synthesizer};
use crate::Error;

/// Converts the file `input` (coordinates, or a JSON or `.npz` instance of
/// `sd`) to `dd` as `runner` says (compiled or in the interpreter,
/// [`crate::runner`]), checks the result unless told not to, and writes it
/// to `target` ([`Target`]: `.npz`, `.mtx`, `.tns` or JSON; JSON on
/// standard output without a path). `symmetry` says what a symmetric
/// Matrix Market input becomes; with `drop_zeros`, the result's explicit
/// zeros are removed ([`crate::zeros`]).
///
/// # Errors
///
/// Input errors (located for malformed files), synthesis errors, errors
/// of the engine, and an internal error when the result is wrong; nothing
/// is written then.
pub fn convert(
    sd: &Descriptor,
    dd: &Descriptor,
    input: &Path,
    target: &Target<'_>,
    runner: &Runner,
    symmetry: Symmetry,
    drop_zeros: bool,
) -> Result<(), Error> {
    let options = ReadOptions {
        symmetry,
        narrow: runner.reads_narrow(),
        allow_nonfinite: runner.allow_nonfinite,
        ..ReadOptions::default()
    };
    runner.exactly(&|| convert_once(sd, dd, input, target, runner, &options, drop_zeros))
}

/// One attempt of [`convert`] from `sd` to `dd` (a result whose
/// fingerprint differs from the input's is a [`Error::Mismatch`], and
/// nothing is written).
fn convert_once(
    sd: &Descriptor,
    dd: &Descriptor,
    input: &Path,
    target: &Target<'_>,
    runner: &Runner,
    options: &ReadOptions,
    drop_zeros: bool,
) -> Result<(), Error> {
    // Synthesis needs no input: it runs on a thread of its own while the
    // input is read and checked (an error of the input is reported first).
    let (source, synthesized) = std::thread::scope(|scope| {
        let observer = &*runner.observer;
        let synthesis = scope.spawn(move || {
            let started = std::time::Instant::now();
            let route = Route::new(sd, dd, &synthesize_pair);
            if observer.wants_details() {
                let how = match route.as_ref().ok().filter(|r| r.via().is_some()) {
                    Some(r) => format!(
                        "; {} -> {} does not synthesize directly, so it converts as {}",
                        sd.name,
                        dd.name,
                        r.describe()
                    ),
                    None => String::new(),
                };
                observer.detail(&format!(
                    "spf: synthesized {} -> {} beside the reading ({:.3} s){how}",
                    sd.name,
                    dd.name,
                    started.elapsed().as_secs_f64()
                ));
            }
            route
        });
        let source = read_source(sd, input, &synthesize_pair, runner, options);
        let synthesized = synthesis
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (source, synthesized)
    });
    let source = source?;
    let route = &synthesized?;
    let mut result = route.convert(runner, source)?;
    if drop_zeros {
        result = crate::zeros::drop_zeros(dd, result, runner, &target.shown())?;
    }
    let shown = target
        .path
        .map_or("the result".into(), |p| p.display().to_string());
    // The result is written while it is checked, on a thread of its own,
    // and kept only when the check passes.
    let (verdict, written) = std::thread::scope(|scope| {
        let (commit, decided) = std::sync::mpsc::channel::<bool>();
        let (out, observer) = (&result.instance, &*runner.observer);
        let writer = scope.spawn(move || {
            step(observer, &format!("writing {shown}"), || {
                write_instance_when(dd, out, target, &|| decided.recv().unwrap_or(false))
            })
        });
        let verdict = route.verify(runner, &result);
        let _ = commit.send(verdict.is_ok());
        (verdict, writer.join())
    });
    verdict?;
    let note = written.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
    if let Some(note) = note {
        runner.observer.note(&format!("{}: {note}", target.shown()));
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
) -> Result<Instance, Error> {
    runner.exactly(&|| {
        let source = read_source(src, input, synth, runner, &ReadOptions::default())?;
        Route::new(src, dst, synth)?
            .run(runner, source)
            .map(|r| r.instance)
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
/// Located errors for malformed files, [`Error::Input`] for an instance
/// that violates its descriptor or coordinates of the wrong order.
pub fn read_source(
    src: &Descriptor,
    input: &Path,
    synth: &Synthesizer<'_>,
    runner: &Runner,
    options: &ReadOptions,
) -> Result<Source, Error> {
    let shown = input.display().to_string();
    let problem = |message: String| Error::Input {
        file: shown.clone(),
        message,
    };
    // Shown while the input is read (and a coordinate file checked; ends
    // before a conversion).
    let reading = std::cell::Cell::new(Some(runner.observer.begin(&format!("reading {shown}"))));
    let file = crate::files::open(input)?;
    if !file.kind.is_coordinates() {
        let (instance, expected) = read_instance_entries(src, input, &file, &|d, inst| {
            // The check is a step of its own, after the reading's.
            drop(reading.take());
            step(
                &*runner.observer,
                &format!("checking the {} input", d.name),
                || runner.expected(d, inst),
            )
        })?;
        return Ok(Source { instance, expected });
    }
    let coords = parse_checked_coo(&file, input, options).map_err(|e| match e {
        FileError::Io { source, .. } => Error::Read {
            path: shown.clone(),
            source,
        },
        FileError::Parse { error, .. } => Error::Located {
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
            synth::builtin::formats_of_order_hint(order)
        )));
    }
    let coo = synth::builtin::coordinate_format(order).ok_or_else(|| {
        problem(format!(
            "coordinates of {order} dimensions are not supported (1 or more are)"
        ))
    })?;
    let allow = runner.allow_nonfinite;
    let source = match CoordinateFormat::of(&coo).map(|f| f.allowing_nonfinite(allow)) {
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
            let instance = coo_layout(&coo)?.instance_of_read(coords);
            let entries = validate_entries_allowing(&coo, &instance, allow)
                .map_err(|e| problem(e.to_string()))?;
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
    Route::new(&coo, src, synth)?.run(runner, source)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::coordinates::coo_layout;
    use codegen::width::{IndexWidth, IndexWidths};
    use synth::instance::Values;
    use synth::instance_validation::validate;
    use synth::oracle::{compare, coordinate_entries, entries};
    use synth::tensor_io::read_coo_file;
    use synth::tensor_io::read_file;

    use super::*;
    use crate::synthesis::testing::{altered, data, format, matrix, synthesized};

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
        assert_eq!(out.arrays["row"], Values::Int(vec![0, 0, 2, 2, 3].into()));
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
        assert!(matches!(e, Error::Input { .. }), "{e}");
        assert!(e.to_string().contains("rowptr is not nondecreasing"), "{e}");
        // Malformed JSON: located.
        let broken = dir.join("broken.json");
        std::fs::write(&broken, "{\"format\": \"CSR\",\n  \"symbols\": [}").expect("w");
        let e = convert_file(&csr, &coo, &broken, &synthesized, &Runner::interp()).unwrap_err();
        assert!(matches!(e, Error::Located { .. }), "{e}");
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
        assert!(matches!(e, Error::Read { .. }), "{e}");
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
