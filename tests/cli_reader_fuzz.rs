//! The readers agree: mutated Matrix Market, FROSTT and JSON inputs through
//! the C readers and checks of programs `spf build` makes (compiled with
//! AddressSanitizer and UndefinedBehaviorSanitizer) and through
//! `spf convert` of the same pair, whose Rust readers define the contract.
//!
//! Each case is a valid file (random banners and shapes, comments, blank
//! lines, CRLF, odd separators, values in every spelling the readers take)
//! changed by a few mutations: bytes flipped, inserted or removed, the file
//! cut short, lines duplicated, removed or swapped, numbers replaced by
//! ones at the edges (0 and negative indices, the ends of `i64` and of the
//! double range, subnormals, `nan`, `inf`, Fortran exponents, malformed
//! numbers), and for JSON structural changes (a key removed, given twice,
//! renamed, a value of the wrong type, nested arrays, elements removed or
//! added). Both paths must refuse it (exit status 2 with a message) or
//! both accept it, and then store the same entries: the two results are
//! the same instance, whose entries (by the format-independent oracle) are
//! those spf's own reader reads from the input. A program must never crash
//! or draw a sanitizer's report.
//!
//! An input whose content is not of the kind its name says (a `.mtx` that
//! lost its banner, a `.tns` whose first byte became `{`) is read by both
//! as the kind its content is: programs and `spf convert` tell kinds by
//! content, whatever the name ([docs/cli.md](../docs/cli.md)), so such a
//! case is compared like any other, as that kind (an `.npz` archive by its
//! content too: both read archives).
//!
//! `SPF_FUZZ_CASES=N` runs `N` random cases of each kind instead of the
//! default few dozen; `SPF_FUZZ_SEED=S` starts from another seed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use spf::synth::descriptor::Descriptor;
use spf::synth::instance::{Instance, Values};
use spf::synth::oracle::{compare, coordinate_entries, entries};
use spf::synth::tensor_io::kind::{sniff, FileKind};

mod common;

use common::outcome::{computed, outcome, reason, run_program, Outcome, SANITIZE};
use common::{s, spf, text};

#[path = "../synth/tests/support/json_texts.rs"]
mod json_texts;
use json_texts::Rng;

/// The kinds of input, each read by one built program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    /// A Matrix Market file, through COO → CSR.
    Mtx,
    /// A FROSTT file, through COO3D → CSF3.
    Tns,
    /// A JSON instance of COO, through COO → CSR.
    CooJson,
    /// A JSON instance of CSR, through CSR → COO.
    CsrJson,
}

impl Input {
    const ALL: [Input; 4] = [Input::Mtx, Input::Tns, Input::CooJson, Input::CsrJson];

    fn pair(self) -> (&'static str, &'static str) {
        match self {
            Input::Mtx | Input::CooJson => ("COO", "CSR"),
            Input::Tns => ("COO3D", "CSF3"),
            Input::CsrJson => ("CSR", "COO"),
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Input::Mtx => "mtx",
            Input::Tns => "tns",
            Input::CooJson | Input::CsrJson => "json",
        }
    }

    /// The kind the case is written as (its content may become another).
    fn kind(self) -> FileKind {
        match self {
            Input::Mtx => FileKind::MatrixMarket,
            Input::Tns => FileKind::Frostt,
            Input::CooJson | Input::CsrJson => FileKind::Json,
        }
    }

    /// A valid input of this kind.
    fn valid(self, rng: &mut Rng) -> String {
        match self {
            Input::Mtx => mtx_text(rng),
            Input::Tns => tns_text(rng),
            Input::CooJson => instance_json(rng, false).print(rng),
            Input::CsrJson => instance_json(rng, true).print(rng),
        }
    }
}

/// A program of one pair, built once.
struct Program {
    src: &'static str,
    dst: &'static str,
    bin: PathBuf,
    d_src: Descriptor,
    d_dst: Descriptor,
}

fn build(src: &'static str, dst: &'static str, dir: &Path) -> Program {
    let bin = dir.join(format!("{src}-{dst}"));
    let built = spf(&["build", src, dst, "--cflags", SANITIZE, "-o", s(&bin)]);
    assert!(
        built.status.success(),
        "{src} -> {dst}: {}",
        text(&built.stderr)
    );
    let load = |f| spf::synth::builtin::load_format(f).expect("built-in");
    Program {
        src,
        dst,
        bin,
        d_src: load(src),
        d_dst: load(dst),
    }
}

// ----- draws ----------------------------------------------------------------

impl Rng {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    /// `word` in a random case now and then (banner words are
    /// case-insensitive).
    fn cased(&mut self, word: &str) -> String {
        match self.below(6) {
            0 => word.to_ascii_uppercase(),
            1 => word
                .chars()
                .enumerate()
                .map(|(k, c)| {
                    if k % 2 == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect(),
            _ => word.to_string(),
        }
    }

    /// The text of a real in one of the spellings both readers take.
    fn real_text(&mut self) -> String {
        let x = self.value();
        match self.below(8) {
            0 => format!("{x:e}"),
            1 => format!("{x:E}"),
            2 => format!("{x:e}").replace('e', "D"),
            3 if x >= 0.0 => format!("+{x}"),
            4 => format!("{}", (self.below(2000) as f64 - 1000.0) / 8.0),
            5 => self
                .pick(&["1", "-2", "0", "-0", "3.", ".5", "-.25", "1e3", "7d-1"])
                .to_string(),
            _ => format!("{x}"),
        }
    }

    /// The text of an integer value of an `integer` Matrix Market file.
    fn int_text(&mut self) -> String {
        match self.below(6) {
            0 => self
                .pick(&[
                    "9007199254740993",
                    "-9223372036854775808",
                    "9223372036854775807",
                    "-0",
                    "+7",
                ])
                .to_string(),
            _ => format!("{}", self.below(21) as i64 - 10),
        }
    }

    /// A separator of fields: mostly one space.
    fn separator(&mut self) -> &'static str {
        self.pick::<&str>(&[" ", " ", " ", " ", "\t", "  ", " \t "])
    }
}

// ----- valid inputs ----------------------------------------------------------

/// A valid Matrix Market file: coordinate or array, real, integer or
/// pattern, general, symmetric or skew-symmetric, with comments and blank
/// lines, LF or CRLF line ends.
fn mtx_text(rng: &mut Rng) -> String {
    let array = rng.chance(5);
    let field = if array {
        *rng.pick(&["real", "integer", "double"])
    } else {
        *rng.pick(&["real", "real", "integer", "pattern", "double"])
    };
    let kind = if field == "pattern" {
        *rng.pick(&["general", "general", "symmetric"])
    } else {
        *rng.pick(&["general", "general", "symmetric", "skew-symmetric"])
    };
    let rows = rng.below(6) as i64;
    let cols = if kind == "general" {
        rng.below(6) as i64
    } else {
        rows
    };
    let value = |rng: &mut Rng| match field {
        "integer" => rng.int_text(),
        "pattern" => String::new(),
        _ => rng.real_text(),
    };
    let mut body: Vec<String> = Vec::new();
    if array {
        for j in 0..cols {
            let first = match kind {
                "general" => 0,
                "symmetric" => j,
                _ => j + 1,
            };
            for _ in first..rows {
                let v = if rng.chance(3) {
                    "0".to_string()
                } else {
                    value(rng)
                };
                body.push(v);
            }
        }
    } else {
        let n = if rows * cols == 0 { 0 } else { rng.below(9) };
        let mut given: Vec<(i64, i64)> = Vec::new();
        for _ in 0..n {
            let (mut i, mut j) = (rng.below(rows as u64) as i64, rng.below(cols as u64) as i64);
            if kind != "general" {
                (i, j) = (i.max(j), i.min(j));
                if kind == "skew-symmetric" && i == j {
                    continue;
                }
            }
            given.push((i, j));
            let sep = rng.separator();
            let v = value(rng);
            body.push(if v.is_empty() {
                format!("{}{sep}{}", i + 1, j + 1)
            } else {
                format!("{}{sep}{}{sep}{v}", i + 1, j + 1)
            });
        }
    }
    let banner = format!(
        "%%MatrixMarket {} {} {} {}",
        rng.cased("matrix"),
        rng.cased(if array { "array" } else { "coordinate" }),
        rng.cased(field),
        rng.cased(kind)
    );
    let mut lines = vec![banner];
    if rng.chance(2) {
        lines.push("% a comment".to_string());
    }
    if rng.chance(4) {
        lines.push(String::new());
    }
    lines.push(if array {
        format!("{rows} {cols}")
    } else {
        format!("{rows} {cols} {}", body.len())
    });
    for line in body {
        if rng.chance(8) {
            lines.push(if rng.chance(2) {
                "%".into()
            } else {
                "   ".into()
            });
        }
        lines.push(line);
    }
    join_lines(rng, &lines)
}

/// The lines joined by `\n` or `\r\n`, the last one ended or not.
fn join_lines(rng: &mut Rng, lines: &[String]) -> String {
    let end = if rng.chance(4) { "\r\n" } else { "\n" };
    let mut out = lines.join(end);
    if !rng.chance(5) {
        out.push_str(end);
    }
    out
}

/// A valid FROSTT file of three modes (at least one entry), with comments.
fn tns_text(rng: &mut Rng) -> String {
    let n = 1 + rng.below(8);
    let mut lines = Vec::new();
    if rng.chance(2) {
        lines.push("# a comment".to_string());
    }
    for _ in 0..n {
        let sep = rng.separator();
        let idx: Vec<String> = (0..3).map(|_| (1 + rng.below(4)).to_string()).collect();
        let mut line = format!("{}{sep}{}", idx.join(sep), rng.real_text());
        if rng.chance(6) {
            line.push_str(" # trailing");
        }
        if rng.chance(8) {
            lines.push(String::new());
        }
        lines.push(line);
    }
    join_lines(rng, &lines)
}

/// A JSON value whose numbers keep their text and whose objects may give
/// a key twice.
#[derive(Clone, Debug)]
enum J {
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
    Lit(&'static str),
}

impl J {
    fn num(n: impl std::fmt::Display) -> J {
        J::Num(n.to_string())
    }

    fn print(&self, rng: &mut Rng) -> String {
        let mut out = String::new();
        self.write(rng, &mut out);
        out
    }

    fn write(&self, rng: &mut Rng, out: &mut String) {
        let ws = |rng: &mut Rng| *rng.pick(&["", "", "", " ", "\n", "\n  ", "\t", "\r\n"]);
        match self {
            J::Num(t) => out.push_str(t),
            J::Str(t) => out.push_str(&serde_json::to_string(t).expect("a string")),
            J::Lit(t) => out.push_str(t),
            J::Arr(items) => {
                out.push('[');
                for (k, x) in items.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    out.push_str(ws(rng));
                    x.write(rng, out);
                }
                out.push_str(ws(rng));
                out.push(']');
            }
            J::Obj(members) => {
                out.push('{');
                for (k, (key, x)) in members.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    out.push_str(ws(rng));
                    out.push_str(&serde_json::to_string(key).expect("a string"));
                    out.push_str(rng.pick::<&str>(&[":", ": ", " : "]));
                    x.write(rng, out);
                }
                out.push_str(ws(rng));
                out.push('}');
            }
        }
    }

    /// The paths (child positions from the root) of every node.
    fn paths(&self, at: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        out.push(at.clone());
        let children: Vec<&J> = match self {
            J::Arr(items) => items.iter().collect(),
            J::Obj(members) => members.iter().map(|m| &m.1).collect(),
            _ => Vec::new(),
        };
        for (k, c) in children.into_iter().enumerate() {
            at.push(k);
            c.paths(at, out);
            at.pop();
        }
    }

    fn at(&mut self, path: &[usize]) -> &mut J {
        match (self, path.split_first()) {
            (J::Arr(items), Some((&k, rest))) => items[k].at(rest),
            (J::Obj(members), Some((&k, rest))) => members[k].1.at(rest),
            (node, _) => node,
        }
    }
}

/// A valid JSON instance of COO, or of CSR, of a random small matrix
/// (members in a random order, now and then an `index_width`).
fn instance_json(rng: &mut Rng, csr: bool) -> J {
    let (rows, cols) = (rng.below(5) as i64, rng.below(5) as i64);
    let mut at: Vec<(i64, i64)> = Vec::new();
    for i in 0..rows {
        for j in 0..cols {
            if rng.chance(3) {
                at.push((i, j));
            }
        }
    }
    if !csr {
        for k in (1..at.len()).rev() {
            let other = rng.below(k as u64 + 1) as usize;
            at.swap(k, other);
        }
    }
    let values: Vec<J> = at
        .iter()
        .map(|_| {
            J::Num(if rng.chance(4) {
                rng.real_text()
                    .replace(['d', 'D'], "e")
                    .trim_start_matches('+')
                    .to_string()
            } else {
                format!("{:?}", rng.value())
            })
        })
        .map(|j| match j {
            // JSON has no `.5`, `3.` or `+1`.
            J::Num(t)
                if t.starts_with(['.', '-']) && t.trim_start_matches('-').starts_with('.') =>
            {
                J::num(0.5)
            }
            J::Num(t) if t.ends_with('.') => J::Num(format!("{t}0")),
            j => j,
        })
        .collect();
    let ints = |v: Vec<i64>| J::Arr(v.into_iter().map(J::num).collect());
    let cols_of = ints(at.iter().map(|e| e.1).collect());
    let mut arrays = vec![
        ("col".to_string(), cols_of),
        ("A".to_string(), J::Arr(values)),
    ];
    if csr {
        let mut rowptr = vec![0i64; rows as usize + 1];
        for &(i, _) in &at {
            rowptr[i as usize + 1] += 1;
        }
        for k in 0..rows as usize {
            rowptr[k + 1] += rowptr[k];
        }
        arrays.push(("rowptr".into(), ints(rowptr)));
    } else {
        arrays.push(("row".into(), ints(at.iter().map(|e| e.0).collect())));
    }
    let symbols = vec![
        ("NR".to_string(), J::num(rows)),
        ("NC".to_string(), J::num(cols)),
        ("NNZ".to_string(), J::num(at.len())),
    ];
    let mut top = vec![
        (
            "format".to_string(),
            J::Str(if csr { "CSR" } else { "COO" }.into()),
        ),
        ("symbols".to_string(), J::Obj(symbols)),
        ("arrays".to_string(), J::Obj(arrays)),
    ];
    match rng.below(8) {
        0 => top.push(("index_width".into(), J::num(64))),
        1 => top.push((
            "index_width".into(),
            J::Obj(vec![
                ("positions".into(), J::num(64)),
                ("coordinates".into(), J::num(32)),
            ]),
        )),
        _ => {}
    }
    for k in (1..top.len()).rev() {
        let other = rng.below(k as u64 + 1) as usize;
        top.swap(k, other);
    }
    J::Obj(top)
}

// ----- mutations ---------------------------------------------------------------

/// Numbers at the edges, and texts that are almost numbers.
const EDGE_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "+0",
    "1",
    "-1",
    "2",
    "00",
    "007",
    "-0.0",
    "0.0",
    "1.0",
    "3.",
    ".5",
    "-.5",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1e308",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1.7976931348623159e308",
    "1e309",
    "-1e309",
    "5e-324",
    "2.4703282292062328e-324",
    "2.4703282292062327e-324",
    "1e-400",
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "+inf",
    "Infinity",
    "infinity",
    "1D5",
    "1d-3",
    "1.5D+02",
    "1.e3",
    "1e",
    "1e+",
    "e5",
    "0x10",
    "1_0",
    "1,5",
    "+",
    "-",
    "--1",
    "1.5.5",
    "1E5",
    "2.5e-3",
    "1e2",
    "1E+2",
    "-1e-2",
    "4294967296",
    "2147483648",
    "-2147483649",
    "65536",
];

/// Bytes a flip writes: separators, signs, digits, structure, and bytes
/// that are not ASCII (or not UTF-8).
const FLIP_BYTES: &[u8] = &[
    b'0', b'1', b'9', b' ', b'\t', b'\n', b'\r', 0x0B, 0x0C, 0x00, 0x80, 0xFF, 0xC3, 0xE2, b'-',
    b'+', b'.', b'e', b'D', b'%', b'#', b'{', b'}', b'[', b']', b',', b'"', b':', b'x',
];

/// Texts an insertion writes.
const INSERTS: &[&str] = &[
    " ",
    "\n",
    "% c\n",
    "# c\n",
    "1",
    "-",
    "e5",
    "\r",
    "\u{FEFF}",
    "é",
    "\t",
    "\x0C",
    "\0",
    "\n\n",
    "  1 1 1\n",
    "%%MatrixMarket",
    "{",
    "[1]",
    "null",
    ",",
];

/// The byte ranges of the number-like tokens of `text`.
fn number_tokens(text: &[u8]) -> Vec<(usize, usize)> {
    let numeric = |b: u8| b.is_ascii_digit() || b"+-.eEdD".contains(&b);
    let mut out = Vec::new();
    let mut k = 0;
    while k < text.len() {
        if text[k].is_ascii_digit()
            || ((text[k] == b'-' || text[k] == b'+')
                && text.get(k + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = k;
            while k < text.len() && numeric(text[k]) {
                k += 1;
            }
            out.push((start, k));
        } else {
            k += 1;
        }
    }
    out
}

/// The lines of `text`, each with its `\n`.
fn lines_of(text: &[u8]) -> Vec<Vec<u8>> {
    text.split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// One mutation of the bytes of a file.
fn mutate_bytes(rng: &mut Rng, text: &mut Vec<u8>) {
    let len = text.len() as u64;
    match rng.below(11) {
        0 if !text.is_empty() => {
            let k = rng.below(len) as usize;
            text[k] = *rng.pick(FLIP_BYTES);
        }
        1 if !text.is_empty() => {
            let k = rng.below(len) as usize;
            let n = (1 + rng.below(3) as usize).min(text.len() - k);
            text.drain(k..k + n);
        }
        2 => {
            let k = rng.below(len + 1) as usize;
            let insert = rng.pick(INSERTS).as_bytes().to_vec();
            text.splice(k..k, insert);
        }
        3 => text.truncate(rng.below(len + 1) as usize),
        4..=6 => {
            let tokens = number_tokens(text);
            if !tokens.is_empty() {
                let (a, b) = *rng.pick(&tokens);
                let new: Vec<u8> = if rng.chance(4) {
                    // The number one above or below.
                    let t = String::from_utf8_lossy(&text[a..b]).to_string();
                    match t.parse::<i64>() {
                        Ok(n) => n
                            .saturating_add(if rng.chance(2) { 1 } else { -1 })
                            .to_string()
                            .into_bytes(),
                        Err(_) => b"0".to_vec(),
                    }
                } else {
                    rng.pick(EDGE_NUMBERS).as_bytes().to_vec()
                };
                text.splice(a..b, new);
            }
        }
        7 | 8 => {
            let mut lines = lines_of(text);
            if !lines.is_empty() {
                let k = rng.below(lines.len() as u64) as usize;
                match rng.below(3) {
                    0 => {
                        let line = lines[k].clone();
                        lines.insert(k, line);
                    }
                    1 => {
                        lines.remove(k);
                    }
                    _ => {
                        let other = rng.below(lines.len() as u64) as usize;
                        lines.swap(k, other);
                    }
                }
                // A line that lost its place at the end gets its `\n`.
                let last = lines.len().saturating_sub(1);
                for line in &mut lines[..last] {
                    if !line.ends_with(b"\n") {
                        line.push(b'\n');
                    }
                }
                *text = lines.concat();
            }
        }
        9 => {
            // Every line end as CRLF, or every CRLF as LF.
            let s = String::from_utf8_lossy(text).to_string();
            *text = if s.contains("\r\n") {
                s.replace("\r\n", "\n")
            } else {
                s.replace('\n', "\r\n")
            }
            .into_bytes();
        }
        _ => {
            // Every single space as another separator (a vertical tab is
            // not one).
            let sep = *rng.pick(&["\t", "   ", "\x0C", "\x0B", "\r"]);
            let s = String::from_utf8_lossy(text).to_string();
            *text = s.replace(' ', sep).into_bytes();
        }
    }
}

/// One structural mutation of a JSON instance.
fn mutate_json(rng: &mut Rng, j: &mut J) {
    let mut paths = Vec::new();
    j.paths(&mut Vec::new(), &mut paths);
    let path = rng.pick(&paths).clone();
    let node = j.at(&path);
    match rng.below(9) {
        0 | 1 => {
            *node = rng
                .pick(&[
                    J::Str("x".into()),
                    J::Lit("null"),
                    J::Lit("true"),
                    J::Obj(Vec::new()),
                    J::Arr(Vec::new()),
                    J::Arr(vec![J::num(1)]),
                    J::Arr(vec![J::Arr(vec![J::num(1)])]),
                    J::Num("1.5".into()),
                    J::Num("-0".into()),
                    J::Num("1e2".into()),
                    J::Obj(vec![("NR".into(), J::num(1))]),
                ])
                .clone()
        }
        2 | 3 => {
            if let J::Num(t) = node {
                *t = rng.pick(EDGE_NUMBERS).to_string();
            } else if let J::Str(t) = node {
                *t = rng
                    .pick(&["coo", "csr", "COO3D", "", "CSR ", "C\u{f6}O"])
                    .to_string();
            }
        }
        4 | 5 => match node {
            J::Arr(items) if !items.is_empty() => {
                let k = rng.below(items.len() as u64) as usize;
                match rng.below(4) {
                    0 => {
                        items.remove(k);
                    }
                    1 => {
                        let x = items[k].clone();
                        items.insert(k, x);
                    }
                    2 => items.push(J::num(rng.below(6))),
                    _ => items[k] = J::Arr(vec![items[k].clone()]),
                }
            }
            J::Obj(members) if !members.is_empty() => {
                let k = rng.below(members.len() as u64) as usize;
                match rng.below(4) {
                    0 => {
                        members.remove(k);
                    }
                    1 => {
                        let m = members[k].clone();
                        members.push(m);
                    }
                    2 => {
                        let name = rng.pick(&[
                            "nr",
                            "Format",
                            "extra",
                            "NNZ",
                            "row",
                            "rowptr",
                            "A",
                            "index_width",
                            "B",
                        ]);
                        members[k].0 = name.to_string();
                    }
                    _ => members.push(("extra".into(), J::num(1))),
                }
            }
            _ => {}
        },
        6 => {
            // index_width of every kind.
            if let J::Obj(members) = j {
                members.retain(|m| m.0 != "index_width");
                let w = rng
                    .pick(&[
                        J::num(32),
                        J::num(64),
                        J::num(16),
                        J::Str("64".into()),
                        J::Obj(vec![("positions".into(), J::num(32))]),
                        J::Obj(vec![
                            ("positions".into(), J::num(32)),
                            ("coordinates".into(), J::num(32)),
                        ]),
                        J::Obj(vec![
                            ("positions".into(), J::num(32)),
                            ("positions".into(), J::num(64)),
                        ]),
                    ])
                    .clone();
                members.push(("index_width".into(), w));
            }
        }
        _ => {
            // A number of the instance replaced by a value next to it.
            if let J::Num(t) = node {
                if let Ok(n) = t.parse::<i64>() {
                    *t = n.saturating_add(rng.below(3) as i64 - 1).to_string();
                }
            }
        }
    }
}

/// A case: a valid input changed by up to three mutations (none now and
/// then), as bytes.
fn case(rng: &mut Rng, input: Input) -> Vec<u8> {
    let json = matches!(input, Input::CooJson | Input::CsrJson);
    let mutations = if rng.chance(8) { 0 } else { 1 + rng.below(3) };
    if json && rng.chance(2) {
        let mut j = instance_json(rng, input == Input::CsrJson);
        for _ in 0..mutations {
            mutate_json(rng, &mut j);
        }
        let mut bytes = j.print(rng).into_bytes();
        if rng.chance(4) {
            mutate_bytes(rng, &mut bytes);
        }
        return bytes;
    }
    let mut bytes = input.valid(rng).into_bytes();
    for _ in 0..mutations {
        mutate_bytes(rng, &mut bytes);
    }
    bytes
}

// ----- the check ----------------------------------------------------------------

/// The file's bytes, escaped, for a failure's message.
fn shown(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}

/// What a case came to when both paths agree.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Accepted,
    Refused,
    /// Not run: its extents would have the conversions allocate gigabytes
    /// (which the machine may give, and then run out of).
    Huge,
}

/// Extents (or a product of them) from 2^24 to 2^44: what a conversion
/// may allocate and touch, and so not run on a shared machine (below, it is
/// quick; above, no allocation succeeds and both paths refuse it as too
/// large, which the cases check).
fn huge(kind: FileKind, path: &Path) -> bool {
    let extents: Vec<i64> = if kind.is_coordinates() {
        match spf::synth::tensor_io::read_file(path, None) {
            Ok(c) => c.dims,
            Err(_) => return false,
        }
    } else {
        match Instance::from_json_bytes(&std::fs::read(path).expect("read")) {
            Ok(i) => i.symbols.values().copied().collect(),
            Err(_) => return false,
        }
    };
    let zone = |n: i128| ((1i128 << 24)..=(1i128 << 44)).contains(&n.abs());
    let product = extents
        .iter()
        .try_fold(1i128, |p, &e| p.checked_mul(i128::from(e)))
        .unwrap_or(i128::MAX);
    extents.iter().any(|&e| zone(i128::from(e))) || zone(product)
}

/// Runs `bytes` as an input of `input` through `program` and `spf
/// convert`; an error says how they disagree. Both read the file as the
/// kind its content is, which a mutation may have changed (the kind is
/// returned beside the verdict).
fn check(
    program: &Program,
    input: Input,
    name: &str,
    bytes: &[u8],
    dir: &Path,
) -> Result<(Verdict, FileKind), String> {
    let kind = sniff(bytes);
    let path = dir.join(format!("{name}.{}", input.extension()));
    std::fs::write(&path, bytes).expect("write");
    let what = format!("{name} ({:?} read as {kind:?}, {})", input, shown(bytes));
    let out = |tag: &str| dir.join(format!("{name}-{tag}.json"));
    let (p_prog, p_spf) = (out("program"), out("convert"));
    if kind != FileKind::Npz && huge(kind, &path) {
        let _ = std::fs::remove_file(&path);
        return Ok((Verdict::Huge, kind));
    }
    // Every other case runs both with `--allow-nonfinite`: both readers
    // then take `nan` and `inf`, and both refuse the JSON that cannot
    // carry them.
    let allow = name.ends_with(['1', '3', '5', '7', '9']);
    let flag: &[&str] = if allow { &["--allow-nonfinite"] } else { &[] };
    let program_out = run_program(
        &program.bin,
        &[flag, &[s(&path), "-o", s(&p_prog)]].concat(),
    );
    let by_program = outcome(&format!("the program on {what}"), &program_out, &p_prog);
    // Every kind by content is compared alike, an archive too (programs
    // read .npz as spf convert does).
    let verdict = {
        let args = [program.src, program.dst, s(&path), "-o", s(&p_spf)];
        let convert = spf(&[&["convert"], flag, &args[..]].concat());
        let by_spf = outcome(&format!("spf convert on {what}"), &convert, &p_spf);
        match (by_spf, by_program) {
            (Outcome::Refused(a), Outcome::Refused(b)) if json_refused(&a) != json_refused(&b) => {
                Err(format!(
                    "{what}: one read it and refused its JSON, the other refused it first:\n\
                 spf convert: {a}\nthe program: {b}"
                ))
            }
            (Outcome::Refused(a), Outcome::Refused(b)) => same_reason(kind, &path, bytes, &a, &b)
                .map(|()| Verdict::Refused)
                .map_err(|e| format!("{what}: {e}")),
            (Outcome::Converted(a), Outcome::Converted(b)) => {
                same_entries(program, kind, &path, &a, &b)
                    .map(|()| Verdict::Accepted)
                    .map_err(|e| format!("{what}: {e}"))
            }
            (Outcome::Converted(_), Outcome::Refused(e)) => Err(format!(
                "{what}: spf convert converts it, the program refuses: {}",
                reason(&e, &path)
            )),
            (Outcome::Refused(e), Outcome::Converted(_)) => Err(format!(
                "{what}: the program converts it, spf convert refuses: {}",
                reason(&e, &path)
            )),
        }
    };
    for p in [&path, &p_prog, &p_spf] {
        let _ = std::fs::remove_file(p);
    }
    verdict.map(|v| (v, kind))
}

/// Whether a refusal is of the JSON output (a value that is not finite):
/// the input was read and converted.
fn json_refused(message: &str) -> bool {
    message.contains("which JSON cannot carry")
}

/// Two refusals of a coordinate file by its reader (located at a line
/// and column of the file) give one message. (JSON is refused with other
/// words: the program checks while it parses, spf parses first; a NUL
/// byte ends a quoted field in the program's message.)
fn same_reason(
    kind: FileKind,
    path: &Path,
    bytes: &[u8],
    by_spf: &str,
    by_program: &str,
) -> Result<(), String> {
    let (a, b) = (reason(by_spf, path), reason(by_program, path));
    let located = |r: &str| r.starts_with(&format!("{}:", path.display()));
    if kind.is_coordinates() && located(a) && located(b) && !bytes.contains(&0) && a != b {
        return Err(format!("two refusals:\nspf convert: {a}\nthe program: {b}"));
    }
    Ok(())
}

/// spf's result with its values as doubles when it holds the int64 values
/// of a Matrix Market `integer` file and the program's holds doubles: a
/// built program reads such a file's values as float64 (as it reads every
/// value), so the two agree on the doubles nearest spf's integers.
fn as_the_program_holds(program: &Program, by_spf: &Instance, by_program: &Instance) -> Instance {
    let mut i = by_spf.clone();
    let name = &program.d_dst.data_name;
    if by_spf.value_type.is_integer() && !by_program.value_type.is_integer() {
        if let Some(v) = i.arrays.get(name).map(Values::to_reals) {
            i.arrays.insert(name.clone(), Values::Real(v.into()));
            i.value_type = by_program.value_type;
        }
    }
    i
}

/// Both results are one instance, whose entries are those spf's reader
/// reads from the input.
fn same_entries(
    program: &Program,
    kind: FileKind,
    path: &Path,
    by_spf: &Instance,
    by_program: &Instance,
) -> Result<(), String> {
    let by_spf = &as_the_program_holds(program, by_spf, by_program);
    if computed(by_spf) != computed(by_program) {
        return Err(format!(
            "the results differ:\nspf convert: {:?}\nthe program: {:?}",
            computed(by_spf),
            computed(by_program)
        ));
    }
    let want: BTreeMap<Vec<i64>, f64> = if kind.is_coordinates() {
        coordinate_entries(
            &spf::synth::tensor_io::read_file(path, None)
                .map_err(|e| format!("spf's reader refuses what spf convert took: {e}"))?,
        )
    } else {
        let bytes = std::fs::read(path).expect("read");
        let i = Instance::from_json_bytes(&bytes)
            .map_err(|e| format!("spf's reader refuses what spf convert took: {e}"))?;
        entries(&program.d_src, &i).map_err(|e| e.to_string())?
    };
    let got = entries(&program.d_dst, by_program).map_err(|e| e.to_string())?;
    compare(&want, &got).map_err(|e| format!("the entries differ from the input's: {e}"))
}

/// A `.mtx` that lost its banner (one of the fixed cases).
const BANNERLESS: &[u8] = b"2 2 1\n1 1 1.5\n";

/// Inputs at the edges of the two readers' contract (where a verdict,
/// the entries or a message are easily told apart), each with its kind.
const FIXED: &[(Input, &[u8])] = &[
    // A byte that is not UTF-8, in a comment: the programs read it.
    (
        Input::Mtx,
        b"%%MatrixMarket matrix coordinate real general\n% caf\xE9\n2 2 1\n1 1 1.5\n",
    ),
    (Input::Tns, b"1 1 1 2.5 # \xFF\n2 2 2 1\n"),
    (
        Input::Mtx,
        b"%%MatrixMarket matrix array real general\n1 1\n\xC3\x28\n",
    ),
    // A header's error before a byte of the body that is not UTF-8: spf
    // checks the header, reads it, then checks the rest.
    (
        Input::Mtx,
        b"%%MatrixMarket matrix coordinate real general\nx 2 1\n1 1 \xFF\n",
    ),
    // A `.mtx` that lost its banner: FROSTT by its content, read as such by
    // both (two 2-D entries; the test requires both to accept it).
    (Input::Mtx, BANNERLESS),
    // A zip signature and nothing after: an archive by its content, which
    // both refuse as damaged.
    (Input::Mtx, b"PK\x03\x04\x14\0\0\0\0\0"),
    // A banner after white space: FROSTT by its content, refused by both.
    (
        Input::Mtx,
        b"\t%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 2\n",
    ),
    // An allocation AddressSanitizer cannot make: a warning, then the
    // refusal as too large.
    (Input::Tns, b"3 18446744009551615 3 1.5\n"),
    // A NUL byte ends the text a C reader gave strtod: `1.5\0` read as 1.5.
    (
        Input::Mtx,
        b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.5\0\n",
    ),
    (Input::Tns, b"1 1 1 2\x005\n"),
    // An integer of 64 unsigned bits in an array: the programs read a real.
    (
        Input::CooJson,
        b"{\"format\": \"COO\", \"symbols\": {\"NR\": 1, \"NC\": 1, \"NNZ\": 1}, \
          \"arrays\": {\"row\": [0], \"col\": [0], \"A\": [9223372036854775808]}}",
    ),
    // A negative extent: the programs did not check it, and aborted.
    (
        Input::CooJson,
        b"{\"format\": \"COO\", \"symbols\": {\"NR\": 3, \"NC\": -9223372036854775808, \
          \"NNZ\": 0}, \"arrays\": {\"row\": [], \"col\": [], \"A\": []}}",
    ),
    (
        Input::CsrJson,
        b"{\"format\": \"CSR\", \"symbols\": {\"NR\": -1, \"NC\": 2, \"NNZ\": 0}, \
          \"arrays\": {\"rowptr\": [], \"col\": [], \"A\": []}}",
    ),
    // An index far below 0: the programs' range check left 64 bits.
    (
        Input::CsrJson,
        b"{\"format\": \"CSR\", \"symbols\": {\"NR\": 2, \"NC\": 4, \"NNZ\": 2}, \
          \"arrays\": {\"rowptr\": [0, 1, 2], \"col\": [-9223372036854775808, 1], \
          \"A\": [1.5, 2.5]}}",
    ),
    (
        Input::CooJson,
        b"{\"format\": \"COO\", \"symbols\": {\"NR\": 9223372036854775807, \"NC\": 2, \
          \"NNZ\": 1}, \"arrays\": {\"row\": [-4611686018427387904], \"col\": [1], \
          \"A\": [1.5]}}",
    ),
    // `-0` among reals is the integer 0, +0.0: spf read -0.0.
    (
        Input::CooJson,
        b"{\"format\": \"COO\", \"symbols\": {\"NR\": 1, \"NC\": 2, \"NNZ\": 2}, \
          \"arrays\": {\"row\": [0, 0], \"col\": [0, 1], \"A\": [2.5, -0]}}",
    ),
    // A symmetric file's duplicates summed beyond the range of a double:
    // spf's reader summed them to inf.
    (
        Input::Mtx,
        b"%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1e308\n2 1 1e308\n",
    ),
    // Extents the runtime's counting sort cannot count: the programs
    // aborted (spf convert refuses them).
    (Input::Tns, b"2 1 4 -2\n4 9223372036854775807 3 0e0\n"),
    (
        Input::CooJson,
        b"{\"format\": \"COO\", \"symbols\": {\"NR\": 1, \"NC\": 9223372036854775807, \
          \"NNZ\": 0}, \"arrays\": {\"row\": [], \"col\": [], \"A\": []}}",
    ),
    // An integer value beyond 32 bits in an instance that records 32-bit
    // indices: a value is not an index, but the programs refused it.
    (
        Input::CooJson,
        b"{\"format\": \"COO\", \"index_width\": {\"positions\": 64, \"coordinates\": 32}, \
          \"symbols\": {\"NR\": 2, \"NC\": 4, \"NNZ\": 1}, \
          \"arrays\": {\"row\": [1], \"col\": [1], \"A\": [4294967296]}}",
    ),
    // A skew-symmetric file's duplicates: spf sums them, then mirrors the
    // sum negated (-0.0); the programs summed the negated mirrors (+0.0).
    (
        Input::Mtx,
        b"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n2 1 0\n2 1 0\n2 1 -0E0\n",
    ),
    // A sum beyond the range of a double and a later error of the body:
    // spf's reader reads the whole body before it sums duplicates.
    (
        Input::Mtx,
        b"%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1e308\n2 1 1e308\n1 1 1\n",
    ),
    (
        Input::Mtx,
        b"%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1e308\n1 1 1e308\n1 2 x\n",
    ),
    (Input::Tns, b"1 1 1 1e308\n1 1 1 1e308\n1 1 x 1\n"),
    (
        Input::Mtx,
        b"%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n2 1 1\n1 2 1\n2 2 x\n",
    ),
    // An extent whose successor leaves 64 bits (CSR's rowptr has NR + 1
    // entries): the programs computed it in 64.
    (
        Input::CooJson,
        b"{\"format\": \"COO\", \"symbols\": {\"NR\": 9223372036854775807, \"NC\": 1, \
          \"NNZ\": 0}, \"arrays\": {\"row\": [], \"col\": [], \"A\": []}}",
    ),
    // A field longer than 255 bytes, quoted whole in the message.
    (
        Input::Tns,
        b"1 1 1 0.0000000000000000000000000000000000000000000000000000000000000000000000000000000\
          000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
          000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
          00000000000000000000x\n",
    ),
];

/// How many random cases of each kind, and the first seed.
fn budget() -> (usize, u64) {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    (
        var("SPF_FUZZ_CASES").map_or(60, |n| n as usize),
        var("SPF_FUZZ_SEED").unwrap_or(0xF0_22ED),
    )
}

#[test]
fn the_c_readers_of_built_programs_agree_with_spf_convert() {
    let dir = common::temp("cli-reader-fuzz", "agree");
    let pairs = [("COO", "CSR"), ("COO3D", "CSF3"), ("CSR", "COO")];
    let programs = common::on_every_processor(pairs.len(), |k| build(pairs[k].0, pairs[k].1, &dir));
    let program = |input: Input| {
        programs
            .iter()
            .find(|p| (p.src, p.dst) == input.pair())
            .expect("built")
    };
    let (n, seed) = budget();
    let mut cases: Vec<(Input, String, Vec<u8>)> = FIXED
        .iter()
        .enumerate()
        .map(|(k, (input, t))| (*input, format!("fixed{k}"), t.to_vec()))
        .collect();
    for (k, input) in Input::ALL.iter().enumerate() {
        let mut rng = Rng(seed + k as u64);
        for c in 0..n {
            cases.push((*input, format!("{input:?}{c}"), case(&mut rng, *input)));
        }
    }
    let results = common::on_every_processor(cases.len(), |k| {
        let (input, name, bytes) = &cases[k];
        // A crash, a sanitizer's report or a message missing fail the
        // case (`outcome` panics), not the run: every case is checked.
        let checked =
            std::panic::catch_unwind(|| check(program(*input), *input, name, bytes, &dir));
        checked.unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|m| m.to_string()));
            Err(message.unwrap_or_else(|| format!("{name}: a panic")))
        })
    });
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    let count = |v: Verdict| {
        results
            .iter()
            .filter(|r| r.as_ref().is_ok_and(|(w, _)| *w == v))
            .count()
    };
    // Cases a mutation made of another kind than their name (a `.mtx`
    // without its banner), compared as the kind their content is.
    let renamed = cases
        .iter()
        .zip(&results)
        .filter(|((input, _, _), r)| r.as_ref().is_ok_and(|(_, kind)| *kind != input.kind()))
        .count();
    common::report::line(&format!(
        "{} cases: {} accepted by both, {} refused by both, {} not run (extents of gigabytes); \
         {renamed} read by content as another kind than their name",
        results.len(),
        count(Verdict::Accepted),
        count(Verdict::Refused),
        count(Verdict::Huge)
    ));
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree:\n{}",
        failures.len(),
        results.len(),
        failures
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    // The fixed `.mtx` that lost its banner is read by both, as FROSTT.
    let bannerless = cases
        .iter()
        .position(|(_, _, bytes)| bytes.as_slice() == BANNERLESS)
        .expect("a fixed case");
    assert!(
        matches!(
            results[bannerless],
            Ok((Verdict::Accepted, FileKind::Frostt))
        ),
        "the .mtx without its banner: {:?}",
        results[bannerless]
    );
    common::report::counted(renamed, "cases read as another kind than their name", 2);
    let floor = results.len() / 6;
    common::report::counted(count(Verdict::Accepted), "cases accepted by both", floor);
    common::report::counted(count(Verdict::Refused), "cases refused by both", floor);
    let _ = std::fs::remove_dir_all(&dir);
}
