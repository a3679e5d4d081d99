//! The subcommands.

use std::path::{Path, PathBuf};

use spf::codegen::interp::{self, Memory};
use spf::codegen::{c, rust, scan};
use spf::iegen::calc::Calculator;
use spf::iegen::computation::{parse_computation, Computation};
use spf::iegen::pdfg::Pdfg;
use spf::iegen::UfEnvironment;

use super::data;
use super::error::CliError;
use engine::files::{OutputKind, Target};
use engine::output::{emit, read_input, write_atomically};

/// `spf calc [FILE]`: runs a calculator program, printing as it goes.
pub fn calc(file: Option<&Path>) -> Result<(), CliError> {
    use std::io::Write;
    let (name, text) = read_input(file)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut write_error = None;
    let result = Calculator::new().run(&text, &mut |line| {
        if write_error.is_none() {
            if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
                write_error = Some(e);
            }
        }
    });
    if let Some(source) = write_error {
        return Err(CliError::Write {
            path: "<stdout>".into(),
            source,
        });
    }
    result.map_err(|error| CliError::Located { file: name, error })
}

/// Reads and validates a computation file.
fn load(file: &Path) -> Result<(String, Computation), CliError> {
    let (name, text) = read_input(Some(file))?;
    let comp = parse_computation(&text).map_err(|error| CliError::Located {
        file: name.clone(),
        error,
    })?;
    Ok((name, comp))
}

/// The backends `spf codegen` can emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Language {
    /// C99 (compiles with `cc -O3 -Wall -Werror`).
    C,
    /// Rust (compiles with `rustc -D warnings`).
    Rust,
}

/// `spf codegen FILE --emit c|rust [-o OUT]`.
pub fn codegen(file: &Path, language: Language, output: Option<&Path>) -> Result<(), CliError> {
    let (name, comp) = load(file)?;
    let input = |message: String| CliError::Input {
        file: name.clone(),
        message,
    };
    let program = scan(&comp, &UfEnvironment::new()).map_err(|e| input(e.to_string()))?;
    let code = match language {
        Language::C => c::emit_c(&program),
        Language::Rust => rust::emit_rust(&program),
    }
    .map_err(|e| input(e.to_string()))?;
    emit(output, &code)
}

/// `spf run FILE [--data JSON] [NAME=VALUE...] [-o OUT.json]`: runs the
/// computation in the interpreter and prints the live-out data as JSON.
pub fn run(
    file: &Path,
    data_file: Option<&Path>,
    assignments: &[String],
    output: Option<&Path>,
) -> Result<(), CliError> {
    let (name, comp) = load(file)?;
    let mut memory = Memory::new();
    if let Some(path) = data_file {
        let (data_name, text) = read_input(Some(path))?;
        data::from_json(&comp, &data_name, &text, &mut memory)?;
    }
    for a in assignments {
        data::from_assignment(&comp, a, &mut memory)?;
    }
    data::allocate_outputs(&comp, &mut memory)?;
    let input = |message: String| CliError::Input {
        file: name.clone(),
        message,
    };
    let program = scan(&comp, &UfEnvironment::new()).map_err(|e| input(e.to_string()))?;
    interp::run(&program, &mut memory, None).map_err(|e| input(e.to_string()))?;
    emit(output, data::results_json(&comp, &memory))
}

/// `spf pdfg FILE -o OUT.dot|OUT.svg`.
pub fn pdfg(file: &Path, output: &Path) -> Result<(), CliError> {
    let (name, comp) = load(file)?;
    let input = |message: String| CliError::Input {
        file: name.clone(),
        message,
    };
    let graph = Pdfg::build(&comp, &UfEnvironment::new()).map_err(|e| input(e.to_string()))?;
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

/// Borrows an optional path argument.
pub fn path(p: &Option<PathBuf>) -> Option<&Path> {
    p.as_deref()
}

/// Loads a format given by built-in name or descriptor path.
pub fn load_format(name: &str) -> Result<spf::synth::Descriptor, CliError> {
    spf::Format::load(name).map(|f| f.descriptor().clone())
}

/// `spf check FMT [OTHER]`: validates a descriptor with z3 and explains
/// each finding, then tries its conversions ([`spf::check_each`]),
/// printing each line as it is known. An error when a property does not
/// hold; `Some` of what does not convert when the descriptor holds but a
/// pair converts neither directly nor routed (the command's exit status
/// 3).
pub fn check(format: &str, other: Option<&str>) -> Result<Option<String>, CliError> {
    let f = spf::Format::load(format)?;
    let o = other.map(spf::Format::load).transpose()?;
    let mut printed = Ok(());
    let report = spf::check_each(&f, o.as_ref(), &mut |line| {
        if printed.is_ok() {
            printed = emit(None, format!("{line}\n"));
        }
    })?;
    printed?;
    match report.summary() {
        Some(message) if report.errors() > 0 => Err(CliError::Input {
            file: format.to_string(),
            message,
        }),
        unconverted => Ok(unconverted),
    }
}

/// `spf dump FMT IN [-o OUT]`: writes the entries an instance of a format
/// stores as Matrix Market or FROSTT coordinates (`target`: by `--to` or
/// OUT's name; standard output without `-o`, Matrix Market for a matrix,
/// FROSTT otherwise).
pub fn dump(
    format: &str,
    input: &Path,
    output: Option<&Path>,
    to: Option<OutputKind>,
    allow_nonfinite: bool,
) -> Result<(), CliError> {
    let d = load_format(format)?;
    let stdout = if d.dense.len() == 2 {
        OutputKind::Mtx
    } else {
        OutputKind::Tns
    };
    let target = Target::new(output, to, stdout)?;
    if !matches!(target.kind, OutputKind::Mtx | OutputKind::Tns) {
        return Err(CliError::Usage(format!(
            "{}: spf dump writes coordinates (.mtx or .tns); `spf convert {format} {format}` \
             writes an instance",
            target.shown()
        )));
    }
    let d = engine::files::source_format(d, input);
    let inst = engine::files::read_instance(&d, input, allow_nonfinite)?;
    engine::files::write_coordinates(&d, &inst, &target)
}
