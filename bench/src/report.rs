//! What a run writes: a table of ratios on standard output, and in the
//! output directory `results.json` (everything), `summary.md` (geometric
//! means), one CSV and one SVG chart per conversion.
//!
//! A ratio is a baseline's median over the generated converter's median,
//! both measured in the same run: above 1 the generated code is faster.
//! For memcpy it is the fraction of the memory-traffic bound the generated
//! code reaches (1 would be as fast as moving the bytes).

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::conversions::{Baseline, Conversion};
use crate::runner::{Outcome, Results, Row};

/// The geometric mean of a conversion's ratios against one baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryLine {
    /// The conversion.
    pub conversion: Conversion,
    /// The baseline.
    pub baseline: Baseline,
    /// Geometric mean of the ratios.
    pub geomean: f64,
    /// The smallest ratio and its matrix.
    pub min: (f64, String),
    /// The largest ratio.
    pub max: f64,
    /// Matrices with a ratio.
    pub count: usize,
}

/// The geometric mean of positive numbers (`None` for none).
pub fn geomean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|&x| x <= 0.0) {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// One line per (conversion, baseline) with at least one ratio.
pub fn summary(r: &Results) -> Vec<SummaryLine> {
    let mut out = Vec::new();
    for conv in Conversion::ALL {
        let rows: Vec<&Row> = r.rows.iter().filter(|x| x.conversion == conv).collect();
        for b in Baseline::ALL {
            let pairs: Vec<(f64, &str)> = rows
                .iter()
                .filter_map(|row| row.ratio(b).map(|x| (x, row.matrix.as_str())))
                .collect();
            let xs: Vec<f64> = pairs.iter().map(|p| p.0).collect();
            let Some(g) = geomean(&xs) else { continue };
            let min = pairs
                .iter()
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(x, m)| (*x, m.to_string()))
                .expect("a ratio");
            out.push(SummaryLine {
                conversion: conv,
                baseline: b,
                geomean: g,
                min,
                max: xs.iter().copied().fold(0.0, f64::max),
                count: xs.len(),
            });
        }
    }
    out
}

/// One of the performance targets: the geometric mean against a
/// baseline on some conversions, and optionally the worst matrix against
/// the hand-written C.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// What is compared.
    pub baseline: Baseline,
    /// The conversions it applies to.
    pub conversions: Vec<Conversion>,
    /// The smallest acceptable geometric mean.
    pub geomean: f64,
    /// The smallest acceptable ratio on any one matrix, if any.
    pub worst: Option<f64>,
}

/// The performance targets: at least as fast as the hand-written C on
/// every conversion (no matrix below 0.85);
/// 2x sprs and nalgebra-sparse on COO→CSR and CSR→CSC; scipy: 1.0x on
/// CSR→CSC, 1.5x on COO→CSR and COO→CSC, 10x on COO→DIA.
pub fn targets() -> Vec<Target> {
    let t = |baseline, conversions: Vec<Conversion>, geomean, worst| Target {
        baseline,
        conversions,
        geomean,
        worst,
    };
    use Conversion::*;
    vec![
        t(Baseline::C, Conversion::ALL.to_vec(), 1.0, Some(0.85)),
        t(Baseline::Sprs, vec![CooCsrUnsorted, CsrCsc], 2.0, None),
        t(Baseline::Nalgebra, vec![CooCsrUnsorted, CsrCsc], 2.0, None),
        t(Baseline::Scipy, vec![CsrCsc], 1.0, None),
        t(Baseline::Scipy, vec![CooCsrUnsorted, CooCsc], 1.5, None),
        t(Baseline::Scipy, vec![CooDia], 10.0, None),
    ]
}

/// Each target on each conversion it applies to and that was measured:
/// `(conversion, target, met, what was measured)`.
pub fn check_targets(lines: &[SummaryLine]) -> Vec<(Conversion, Target, bool, String)> {
    let mut out = Vec::new();
    for t in targets() {
        for &conv in &t.conversions {
            let Some(l) = lines
                .iter()
                .find(|l| l.conversion == conv && l.baseline == t.baseline)
            else {
                continue;
            };
            let mut met = l.geomean >= t.geomean;
            let mut measured = format!("geomean {:.2}", l.geomean);
            if let Some(w) = t.worst {
                met &= l.min.0 >= w;
                let _ = write!(measured, ", worst {:.2} ({})", l.min.0, l.min.1);
            }
            out.push((conv, t.clone(), met, measured));
        }
    }
    out
}

fn outcome_json(o: &Outcome) -> Value {
    match o {
        Outcome::Time(s) => json!({
            "median_seconds": s.median,
            "min_seconds": s.min,
            "max_seconds": s.max,
            "runs": s.runs,
        }),
        Outcome::Wrong(e) => json!({ "wrong": e }),
        Outcome::Failed(e) => json!({ "error": e }),
    }
}

/// Everything as JSON.
pub fn to_json(r: &Results) -> Value {
    let rows: Vec<Value> = r
        .rows
        .iter()
        .map(|row| {
            let mut baselines = serde_json::Map::new();
            for (b, o) in &row.baselines {
                let mut v = outcome_json(o);
                if let (Some(ratio), Some(obj)) = (row.ratio(*b), v.as_object_mut()) {
                    obj.insert("ratio".into(), json!(ratio));
                }
                baselines.insert(b.name().into(), v);
            }
            json!({
                "conversion": row.conversion.slug(),
                "label": row.conversion.to_string(),
                "src": row.conversion.src(),
                "dst": row.conversion.dst(),
                "matrix": row.matrix,
                "dims": row.dims,
                "nnz": row.nnz,
                "input_bytes": row.input_bytes,
                "output_bytes": row.output_bytes,
                "spf": outcome_json(&row.spf),
                "baselines": baselines,
            })
        })
        .collect();
    let summary: Vec<Value> = summary(r)
        .iter()
        .map(|s| {
            json!({
                "conversion": s.conversion.slug(),
                "baseline": s.baseline.name(),
                "geomean_ratio": s.geomean,
                "min_ratio": s.min.0,
                "min_matrix": s.min.1,
                "max_ratio": s.max,
                "matrices": s.count,
            })
        })
        .collect();
    let skipped: Vec<Value> = r
        .skipped
        .iter()
        .map(|s| json!({"conversion": s.conversion.slug(), "matrix": s.matrix, "reason": s.reason}))
        .collect();
    json!({
        "ratio": "baseline median / spf median, measured in the same run (> 1: spf faster; memcpy: fraction of the traffic bound reached)",
        "scale": r.scale,
        "repeat": r.repeat,
        "min_time": r.min_time,
        "rounds": r.rounds,
        "seed": r.seed,
        "index_width": r.index_width.bits(),
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "notes": r.notes,
        "rows": rows,
        "skipped": skipped,
        "summary": summary,
    })
}

fn cell(row: &Row, b: Baseline) -> String {
    match row.baselines.iter().find(|(x, _)| *x == b) {
        None => "".into(),
        Some((_, Outcome::Wrong(_))) => "WRONG".into(),
        Some((_, Outcome::Failed(_))) => "fail".into(),
        Some((_, Outcome::Time(_))) => match row.ratio(b) {
            Some(x) => format!("{x:.2}"),
            None => "-".into(),
        },
    }
}

fn spf_cell(row: &Row) -> String {
    match &row.spf {
        Outcome::Time(s) => format!("{:.3}", s.median * 1e3),
        Outcome::Wrong(_) => "WRONG".into(),
        Outcome::Failed(_) => "fail".into(),
    }
}

/// The per-matrix table printed at the end of a run.
pub fn table(r: &Results) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# ratios: baseline median / spf median in this run (> 1: spf faster); memcpy: fraction of the traffic bound"
    );
    let _ = writeln!(
        s,
        "{:<22} {:<17} {:>9} {:>10} {:>7} {:>7} {:>8} {:>7} {:>7}",
        "conversion", "matrix", "nnz", "spf ms", "c", "sprs", "nalgebra", "scipy", "memcpy"
    );
    for row in &r.rows {
        let _ = writeln!(
            s,
            "{:<22} {:<17} {:>9} {:>10} {:>7} {:>7} {:>8} {:>7} {:>7}",
            row.conversion.to_string(),
            row.matrix,
            row.nnz,
            spf_cell(row),
            cell(row, Baseline::C),
            cell(row, Baseline::Sprs),
            cell(row, Baseline::Nalgebra),
            cell(row, Baseline::Scipy),
            cell(row, Baseline::Memcpy),
        );
    }
    for row in &r.rows {
        let problems = std::iter::once(("spf".to_string(), &row.spf))
            .chain(row.baselines.iter().map(|(b, o)| (b.name().to_string(), o)));
        for (who, o) in problems {
            match o {
                Outcome::Wrong(e) => {
                    let _ = writeln!(s, "WRONG {who} {} {}: {e}", row.conversion, row.matrix);
                }
                Outcome::Failed(e) if !e.contains("not available") => {
                    let _ = writeln!(s, "failed {who} {} {}: {e}", row.conversion, row.matrix);
                }
                _ => {}
            }
        }
    }
    s
}

/// The geometric mean over the matrices of `baseline`'s time over the
/// hand-written C's on `conv`: how the C baseline itself fares against it.
pub fn c_against(r: &Results, conv: Conversion, baseline: Baseline) -> Option<f64> {
    let xs: Vec<f64> = r
        .rows
        .iter()
        .filter(|row| row.conversion == conv)
        .filter_map(|row| Some(row.ratio(baseline)? / row.ratio(Baseline::C)?))
        .collect();
    geomean(&xs)
}

/// The summary as a Markdown table: per conversion and baseline, the
/// geometric mean of the ratios, the smallest (with its matrix) and the
/// number of matrices.
pub fn summary_md(r: &Results) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# spf conversion benchmark: scale {}, median of at least {} runs per measurement \
         and of {} s at least (up to {} runs), {} rounds (the C timed in the converter's process, \
         the round fastest for both kept; the other baselines: the fastest round), seed {}, \
         {}-bit indices (the converters and the hand-written C)\n",
        r.scale,
        r.repeat,
        r.min_time,
        crate::runner::MAX_RUNS,
        r.rounds,
        r.seed,
        r.index_width.bits()
    );
    let _ = writeln!(
        s,
        "Ratio = baseline median / spf median, measured side by side in one run: \
         above 1 the generated code is faster. For memcpy the ratio is the fraction \
         of the traffic bound (read the input's bytes, write the output's) that the \
         generated code reaches.\n"
    );
    let _ = writeln!(
        s,
        "| conversion | baseline | geomean ratio | min (matrix) | max | matrices |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for l in summary(r) {
        let _ = writeln!(
            s,
            "| {} | {} | {:.2} | {:.2} ({}) | {:.2} | {} |",
            l.conversion, l.baseline, l.geomean, l.min.0, l.min.1, l.max, l.count
        );
    }
    let checked = check_targets(&summary(r));
    if !checked.is_empty() {
        let missed = checked.iter().filter(|c| !c.2).count();
        let _ = writeln!(
            s,
            "\nTargets: {} of {} met{}.\n",
            checked.len() - missed,
            checked.len(),
            if missed > 0 {
                "; MISSED where marked"
            } else {
                ""
            }
        );
        let _ = writeln!(
            s,
            "| conversion | against | target | measured | | the hand-written C against it |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for (conv, t, met, measured) in &checked {
            let target = match t.worst {
                Some(w) => format!("geomean >= {:.2}, every matrix >= {w:.2}", t.geomean),
                None => format!("geomean >= {:.2}", t.geomean),
            };
            let c_itself = match c_against(r, *conv, t.baseline) {
                Some(g) if t.baseline != Baseline::C => format!("{g:.2}"),
                _ => "".into(),
            };
            let _ = writeln!(
                s,
                "| {conv} | {} | {target} | {measured} | {} | {c_itself} |",
                t.baseline,
                if *met { "met" } else { "MISSED" }
            );
        }
        let _ = writeln!(
            s,
            "\nThe last column is the same ratio for the hand-written C baseline \
             (geometric mean of the library's time over the C's): a target of twice a \
             library is out of reach of the best known algorithm where the C itself \
             is near 1."
        );
    }
    let _ = writeln!(s, "\n{}", traffic_md(r));
    let _ = writeln!(
        s,
        "\nSame work: sprs, nalgebra-sparse and scipy return compressed rows \
         (columns) sorted, with duplicates summed; spf's CSR and CSC descriptors \
         demand sorted indices too, and COO's descriptor states that entries are \
         unique, so there is nothing to sum. SCOO→CSR is measured against the C \
         written for sorted input; COO→CSR from row-sorted input uses the COO \
         descriptor, which does not promise the order."
    );
    if !r.notes.is_empty() {
        let _ = writeln!(s, "\nNotes:\n");
        for n in &r.notes {
            let _ = writeln!(s, "- {n}");
        }
    }
    let wrong: Vec<String> = r
        .rows
        .iter()
        .flat_map(|row| {
            std::iter::once(("spf", &row.spf))
                .chain(row.baselines.iter().map(|(b, o)| (b.name(), o)))
                .filter_map(move |(who, o)| match o {
                    Outcome::Wrong(e) => Some(format!(
                        "- {who}, {} on {}: {e}",
                        row.conversion, row.matrix
                    )),
                    _ => None,
                })
        })
        .collect();
    if !wrong.is_empty() {
        let _ = writeln!(s, "\nWrong outputs (not timed):\n\n{}", wrong.join("\n"));
    }
    if !r.skipped.is_empty() {
        let _ = writeln!(s, "\nSkipped:\n");
        for k in &r.skipped {
            let _ = writeln!(s, "- {} on {}: {}", k.conversion, k.matrix, k.reason);
        }
    }
    s
}

/// Per conversion, on its largest matrix: the bytes it must move (read
/// the input's arrays, write the output's, at the run's index width) and
/// the fraction of the memory bandwidth it reaches (memcpy of those bytes
/// in the same run over spf's time).
fn traffic_md(r: &Results) -> String {
    let mut s = String::from(
        "Bytes moved and bandwidth (each conversion's largest matrix; bandwidth: a copy \
         of the same bytes timed in the same run, over spf's time):\n\n\
         | conversion | matrix | nnz | bytes read | bytes written | spf ms | fraction of bandwidth |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for conv in Conversion::ALL {
        let Some(row) = r
            .rows
            .iter()
            .filter(|x| x.conversion == conv && x.spf.median().is_some())
            .max_by_key(|x| x.input_bytes + x.output_bytes)
        else {
            continue;
        };
        let fraction = row
            .ratio(Baseline::Memcpy)
            .map_or("-".to_string(), |x| format!("{x:.2}"));
        let _ = writeln!(
            s,
            "| {conv} | {} | {} | {} | {} | {:.3} | {fraction} |",
            row.matrix,
            row.nnz,
            row.input_bytes,
            row.output_bytes,
            row.spf.median().unwrap_or(0.0) * 1e3
        );
    }
    s
}

/// One conversion's rows as CSV: matrix, nnz, bytes, spf's median, and
/// each baseline's median and ratio.
pub fn csv(r: &Results, conv: Conversion) -> String {
    let mut s = String::from("matrix,nnz,input_bytes,output_bytes,spf_seconds");
    for b in conv.baselines() {
        let _ = write!(s, ",{0}_seconds,{0}_ratio", b.name());
    }
    s.push('\n');
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.9e}"));
    for row in r.rows.iter().filter(|x| x.conversion == conv) {
        let _ = write!(
            s,
            "{},{},{},{},{}",
            row.matrix,
            row.nnz,
            row.input_bytes,
            row.output_bytes,
            opt(row.spf.median())
        );
        for b in conv.baselines() {
            let median = row
                .baselines
                .iter()
                .find(|(x, _)| *x == b)
                .and_then(|(_, o)| o.median());
            let ratio = row.ratio(b).map_or(String::new(), |v| format!("{v:.4}"));
            let _ = write!(s, ",{},{ratio}", opt(median));
        }
        s.push('\n');
    }
    s
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A bar chart in the style of the dissertation's Figure 4.8: for each
/// matrix, the speedup of the generated code over each baseline (bars on a
/// log scale, 1 marked), and the geometric mean as the last group. `None`
/// when the conversion has no ratio.
pub fn svg(r: &Results, conv: Conversion) -> Option<String> {
    let baselines: Vec<Baseline> = conv
        .baselines()
        .into_iter()
        .filter(|&b| b != Baseline::Memcpy)
        .filter(|&b| {
            r.rows
                .iter()
                .any(|x| x.conversion == conv && x.ratio(b).is_some())
        })
        .collect();
    let rows: Vec<&Row> = r.rows.iter().filter(|x| x.conversion == conv).collect();
    if baselines.is_empty() || rows.is_empty() {
        return None;
    }
    let mut groups: Vec<(String, Vec<Option<f64>>)> = rows
        .iter()
        .map(|row| {
            let v = baselines.iter().map(|&b| row.ratio(b)).collect();
            (row.matrix.clone(), v)
        })
        .collect();
    let means = baselines
        .iter()
        .map(|&b| {
            let xs: Vec<f64> = rows.iter().filter_map(|row| row.ratio(b)).collect();
            geomean(&xs)
        })
        .collect();
    groups.push(("geomean".into(), means));
    let all: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.1.iter().flatten().copied())
        .collect();
    let lo = all
        .iter()
        .copied()
        .fold(1.0, f64::min)
        .log2()
        .floor()
        .min(-1.0);
    let hi = all
        .iter()
        .copied()
        .fold(1.0, f64::max)
        .log2()
        .ceil()
        .max(1.0);
    let (left, top, plot_h, bar_w, gap) = (60.0, 40.0, 300.0, 10.0, 14.0);
    let group_w = bar_w * baselines.len() as f64 + gap;
    let width = left + group_w * groups.len() as f64 + 150.0;
    let height = top + plot_h + 120.0;
    let y = |ratio: f64| top + plot_h * (hi - ratio.log2()) / (hi - lo);
    let colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"];
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="20" font-size="14">{}: speedup of spf's generated code over each baseline (scale {}, log scale)</text>"#,
        escape(&conv.to_string()),
        r.scale
    );
    let mut e = lo as i64;
    while e <= hi as i64 {
        let v = 2f64.powi(e as i32);
        let yy = y(v);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" x2="{:.1}" y1="{yy:.1}" y2="{yy:.1}" stroke="{}" />"##,
            width - 150.0,
            if e == 0 { "#000" } else { "#ddd" }
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{v}x</text>"#,
            left - 5.0,
            yy + 4.0
        );
        e += 1;
    }
    let base = y(1.0);
    for (g, (name, values)) in groups.iter().enumerate() {
        let x0 = left + gap / 2.0 + g as f64 * group_w;
        for (k, v) in values.iter().enumerate() {
            let Some(v) = v else { continue };
            let yy = y(*v);
            let (y1, h) = if yy < base {
                (yy, base - yy)
            } else {
                (base, yy - base)
            };
            let _ = writeln!(
                s,
                r#"<rect x="{:.1}" y="{y1:.1}" width="{bar_w}" height="{h:.1}" fill="{}"><title>{}: {v:.2}x</title></rect>"#,
                x0 + k as f64 * bar_w,
                colors[k % colors.len()],
                escape(&format!("{name} vs {}", baselines[k]))
            );
        }
        let lx = x0 + group_w / 2.0 - gap / 2.0;
        let ly = top + plot_h + 10.0;
        let _ = writeln!(
            s,
            r#"<text x="{lx:.1}" y="{ly:.1}" transform="rotate(60 {lx:.1} {ly:.1})"{}>{}</text>"#,
            if name == "geomean" {
                r#" font-weight="bold""#
            } else {
                ""
            },
            escape(name)
        );
    }
    for (k, b) in baselines.iter().enumerate() {
        let lx = width - 140.0;
        let ly = top + 10.0 + 18.0 * k as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="{:.1}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{ly:.1}">vs {b}</text>"#,
            ly - 10.0,
            colors[k % colors.len()],
            lx + 18.0
        );
    }
    s.push_str("</svg>\n");
    Some(s)
}

/// Writes results.json, summary.md, and each conversion's CSV and SVG into
/// `dir`; returns the files written.
pub fn write_all(r: &Results, dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let mut put = |name: String, text: String| -> std::io::Result<()> {
        let path = dir.join(name);
        std::fs::write(&path, text)?;
        written.push(path);
        Ok(())
    };
    put(
        "results.json".into(),
        serde_json::to_string_pretty(&to_json(r)).expect("JSON") + "\n",
    )?;
    put("summary.md".into(), summary_md(r))?;
    for conv in Conversion::ALL {
        if !r.rows.iter().any(|x| x.conversion == conv) {
            continue;
        }
        put(format!("{}.csv", conv.slug()), csv(r, conv))?;
        if let Some(svg) = svg(r, conv) {
            put(format!("{}.svg", conv.slug()), svg)?;
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(conversion: Conversion, baseline: Baseline, geomean: f64, min: f64) -> SummaryLine {
        SummaryLine {
            conversion,
            baseline,
            geomean,
            min: (min, "m".into()),
            max: geomean,
            count: 1,
        }
    }

    #[test]
    fn the_c_baseline_is_compared_with_the_libraries_too() {
        let time = |median| {
            Outcome::Time(crate::timing::Summary {
                runs: 1,
                median,
                min: median,
                max: median,
            })
        };
        let row = |matrix: &str, spf, c, sprs| Row {
            conversion: Conversion::CsrCsc,
            matrix: matrix.into(),
            dims: vec![4, 4],
            nnz: 4,
            input_bytes: 0,
            output_bytes: 0,
            spf: time(spf),
            baselines: vec![(Baseline::C, time(c)), (Baseline::Sprs, time(sprs))],
        };
        let r = Results {
            scale: 1.0,
            repeat: 1,
            min_time: 0.0,
            rounds: 1,
            seed: 1,
            index_width: codegen::width::IndexWidth::W64,
            notes: Vec::new(),
            // sprs takes 1x and 4x the C's time: geometric mean 2.
            rows: vec![row("a", 1.0, 2.0, 2.0), row("b", 3.0, 1.0, 4.0)],
            skipped: Vec::new(),
        };
        let g = c_against(&r, Conversion::CsrCsc, Baseline::Sprs).unwrap();
        assert!((g - 2.0).abs() < 1e-12, "{g}");
        assert_eq!(c_against(&r, Conversion::CooCsc, Baseline::Sprs), None);
        assert!(summary_md(&r).contains("| 2.00 |"), "{}", summary_md(&r));
    }

    #[test]
    fn targets_are_met_or_missed_by_the_numbers() {
        let lines = vec![
            line(Conversion::CsrCsc, Baseline::C, 1.1, 0.9),
            line(Conversion::CooCsrUnsorted, Baseline::C, 1.2, 0.8),
            line(Conversion::CsrEll, Baseline::C, 0.9, 0.9),
            line(Conversion::CsrCsc, Baseline::Sprs, 2.5, 2.0),
            line(Conversion::CsrCsc, Baseline::Nalgebra, 1.9, 1.5),
        ];
        let checked = check_targets(&lines);
        let verdict = |conv, b| {
            checked
                .iter()
                .find(|(c, t, _, _)| *c == conv && t.baseline == b)
                .map(|x| x.2)
        };
        assert_eq!(verdict(Conversion::CsrCsc, Baseline::C), Some(true));
        // The geomean is fine but one matrix is below 0.85.
        assert_eq!(
            verdict(Conversion::CooCsrUnsorted, Baseline::C),
            Some(false)
        );
        assert_eq!(verdict(Conversion::CsrEll, Baseline::C), Some(false));
        assert_eq!(verdict(Conversion::CsrCsc, Baseline::Sprs), Some(true));
        assert_eq!(verdict(Conversion::CsrCsc, Baseline::Nalgebra), Some(false));
        // Nothing measured, nothing claimed.
        assert_eq!(verdict(Conversion::CooDia, Baseline::Scipy), None);
        assert_eq!(checked.len(), 5);
    }
}
