//! The `.npz` layouts of a program's source and destination, printed as
//! the C tables `driver_npz.c` reads and writes archives by
//! (`drv_npz_layout`).
//!
//! The layout is decided here, when the program is built, by the same
//! match `spf convert` makes ([`synth::npz::layout::layout_of`]): a format
//! with the shape of one of scipy's is read and written under scipy's keys
//! (its names renamed to the template's), every other in spf's generic
//! layout under its own names. So a program and `spf convert` agree on
//! which keys an archive of a format holds; the C only follows the table.

use std::fmt::Write as _;

use codegen::width::IndexKind;
use synth::npz::layout::{layout_of, Transform};
use synth::Descriptor;

use super::c_text::{c_str, c_str_list};

/// The C of `drv_npz_layout` `name` for `d`: its name lists, then the
/// table.
pub(crate) fn npz_layout(name: &str, d: &Descriptor) -> String {
    let layout = layout_of(d);
    // The descriptor's name of a template name.
    let own = |template: &str| -> String {
        layout
            .as_ref()
            .and_then(|(_, pairs)| pairs.iter().find(|(_, to)| to == template))
            .map_or_else(|| template.to_string(), |(from, _)| from.clone())
    };
    let (keys, arrays): (Vec<String>, Vec<String>) = match &layout {
        Some((l, _)) => l
            .template
            .ufs
            .iter()
            .map(|u| (u.name.clone(), own(&u.name)))
            .unzip(),
        None => d
            .ufs
            .iter()
            .map(|u| (u.name.clone(), u.name.clone()))
            .unzip(),
    };
    let positions: Vec<&str> = arrays
        .iter()
        .map(|a| match d.index_kind(a) {
            IndexKind::Position => "1",
            IndexKind::Coordinate => "0",
        })
        .collect();
    let (counts, count_keys): (Vec<String>, Vec<String>) = match &layout {
        Some((l, _)) => l
            .counts
            .iter()
            .map(|(s, a)| (own(s), a.to_string()))
            .unzip(),
        None => (Vec::new(), Vec::new()),
    };
    let dense = if layout.is_some() {
        d.dense.clone()
    } else {
        Vec::new()
    };
    let list = |items: &[String]| {
        let mut all = c_str_list(items);
        if !all.is_empty() {
            all.push_str(", ");
        }
        all.push_str("NULL");
        all
    };
    let mut out = String::new();
    for (field, items) in [
        ("dense", &dense),
        ("symbols", &d.symbols),
        ("arrays", &arrays),
        ("keys", &keys),
        ("counts", &counts),
        ("count_keys", &count_keys),
    ] {
        let _ = writeln!(
            out,
            "static const char *const {name}_{field}[] = {{{}}};",
            list(items)
        );
    }
    let _ = writeln!(
        out,
        "static const int {name}_positions[] = {{{}}};",
        if positions.is_empty() {
            "0".to_string()
        } else {
            positions.join(", ")
        }
    );
    let text = |s: Option<&str>| s.map_or_else(|| "NULL".to_string(), c_str);
    let (scipy, (block_r, block_c), dia, stacked) = match &layout {
        Some((l, _)) => (
            Some(l.format),
            l.block.unwrap_or((0, 0)),
            l.transform == Transform::DiaByColumn,
            l.stacked,
        ),
        None => (None, (0, 0), false, None),
    };
    let _ = writeln!(
        out,
        "static const drv_npz_layout {name} = {{\n    \
         .format = {},\n    .scipy = {},\n    .block_r = {block_r},\n    .block_c = {block_c},\n    \
         .dia = {},\n    .stacked = {},\n    .dense = {name}_dense,\n    .symbols = {name}_symbols,\n    \
         .arrays = {name}_arrays,\n    .keys = {name}_keys,\n    .positions = {name}_positions,\n    \
         .counts = {name}_counts,\n    .count_keys = {name}_count_keys,\n    .values = {},\n}};",
        c_str(&d.name),
        text(scipy),
        i32::from(dia),
        text(stacked),
        c_str(&d.data_name),
    );
    out
}
