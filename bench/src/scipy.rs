//! scipy.sparse, what most users pick, when `python3` (or the interpreter
//! given with `--python`) can import numpy and scipy (installed with pip
//! when absent, [`detect_or_install`]); otherwise the benchmark skips it
//! with a note that says why. The script (`bench/scipy_baseline.py`)
//! builds the input matrix before its timer starts and times each
//! conversion call alone.
//!
//! Different work, said in the summary: scipy stores indices as int32 when
//! they fit (as spf does at `--index-width 32`), and its DIA
//! layout is column-indexed (`data[d, j]`), which is rearranged into spf's
//! row-major NR x ND layout outside the timed region for verification.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use synth::instance::{Instance, Values};

use crate::input::{compressed_instance, Compressed, Tensor};

/// The script, embedded so the benchmark runs from any directory.
pub const SCRIPT: &str = include_str!("../scipy_baseline.py");

/// The Python interpreter and the scipy version it has, or why not.
pub fn detect(python: &str) -> Result<String, String> {
    let out = Command::new(python)
        .args(["-c", "import numpy, scipy; print(scipy.__version__)"])
        .output()
        .map_err(|e| format!("{python} cannot be run: {e}"))?;
    if !out.status.success() {
        return Err(format!("{python} has no scipy (import failed)"));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// [`detect`], after installing scipy with `PYTHON -m pip install --user
/// scipy` when it is absent; the error says plainly why it cannot be had.
pub fn detect_or_install(python: &str) -> Result<String, String> {
    let absent = match detect(python) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let out = Command::new(python)
        .args(["-m", "pip", "install", "--user", "--quiet", "scipy"])
        .output()
        .map_err(|e| format!("{absent}, and pip cannot be run: {e}"))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.lines().last().unwrap_or("no message").trim();
        return Err(format!(
            "{absent}, and `{python} -m pip install --user scipy` failed: {why}"
        ));
    }
    detect(python).map_err(|e| format!("{e}, even after `pip install --user scipy`"))
}

/// A scipy input, written to a directory once and converted from there.
pub enum ScipyInput<'a> {
    /// COO entries.
    Coo(&'a Tensor),
    /// A CSR or CSC matrix.
    Compressed(&'a Compressed),
}

fn write_i64(path: &Path, v: &[i64]) -> Result<(), String> {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn write_f64(path: &Path, v: &[f64]) -> Result<(), String> {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_i64(path: &Path) -> Result<Vec<i64>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

fn read_f64(path: &Path) -> Result<Vec<f64>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// Converts `input` to `target` (`csr`, `csc` or `dia`) with scipy,
/// `repeat` times, in the scratch directory `dir`. Returns each run's
/// seconds and the last output as an spf instance.
pub fn convert(
    python: &str,
    dir: &Path,
    input: &ScipyInput<'_>,
    target: &str,
    repeat: usize,
) -> Result<(Vec<f64>, Instance), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (source, shape) = match input {
        ScipyInput::Coo(t) => {
            write_i64(&dir.join("row.bin"), &t.indices[0])?;
            write_i64(&dir.join("col.bin"), &t.indices[1])?;
            write_f64(&dir.join("val.bin"), &t.values)?;
            ("coo", [t.dims[0], t.dims[1]])
        }
        ScipyInput::Compressed(m) => {
            write_i64(&dir.join("ptr.bin"), &m.ptr)?;
            write_i64(&dir.join("idx.bin"), &m.idx)?;
            write_f64(&dir.join("val.bin"), &m.val)?;
            (if m.by_rows { "csr" } else { "csc" }, [m.nrows, m.ncols])
        }
    };
    let script = dir.join("scipy_baseline.py");
    std::fs::write(&script, SCRIPT).map_err(|e| format!("{}: {e}", script.display()))?;
    let job = serde_json::json!({
        "source": source,
        "target": target,
        "shape": shape,
        "repeat": repeat.max(1),
        "dir": dir,
    });
    let job_path = dir.join("job.json");
    std::fs::write(&job_path, job.to_string())
        .map_err(|e| format!("{}: {e}", job_path.display()))?;
    let out = Command::new(python)
        .arg(&script)
        .arg(&job_path)
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "scipy failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("scipy: unreadable report: {e}"))?;
    let times: Vec<f64> = report["times"]
        .as_array()
        .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
        .unwrap_or_default();
    if times.is_empty() {
        return Err("scipy: no times reported".into());
    }
    let (nr, nc) = (shape[0], shape[1]);
    let inst = if target == "dia" {
        let offsets = read_i64(&dir.join("out_offsets.bin"))?;
        let data = read_f64(&dir.join("out_data.bin"))?;
        let width = report["data_shape"][1].as_i64().unwrap_or(0);
        dia_instance(nr, nc, &offsets, &data, width)
    } else {
        compressed_instance(
            target == "csr",
            nr,
            nc,
            read_i64(&dir.join("out_indptr.bin"))?,
            read_i64(&dir.join("out_indices.bin"))?,
            read_f64(&dir.join("out_data.bin"))?,
        )
    };
    Ok((times, inst))
}

/// scipy's DIA (`data[d, j]` is the entry `(j - offsets[d], j)`, rows of
/// `width` columns) in spf's layout: offsets increasing, values NR x ND
/// row-major.
pub fn dia_instance(nr: i64, nc: i64, offsets: &[i64], data: &[f64], width: i64) -> Instance {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&d| offsets[d]);
    let nd = offsets.len();
    let mut a = vec![0.0; nr as usize * nd];
    for (d_out, &d) in order.iter().enumerate() {
        for j in 0..width.min(nc) {
            let i = j - offsets[d];
            if (0..nr).contains(&i) {
                a[i as usize * nd + d_out] = data[d * width as usize + j as usize];
            }
        }
    }
    Instance {
        format: "DIA".into(),
        symbols: BTreeMap::from([
            ("NR".to_string(), nr),
            ("NC".to_string(), nc),
            ("ND".to_string(), nd as i64),
        ]),
        arrays: BTreeMap::from([
            (
                "off".to_string(),
                Values::Int(order.iter().map(|&d| offsets[d]).collect()),
            ),
            ("A".to_string(), Values::Real(a.into())),
        ]),
        index_width: None,
        value_type: Default::default(),
    }
}
