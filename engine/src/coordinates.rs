//! The layout of a coordinate (COO) format: which symbols and arrays hold
//! the extents, the coordinates and the values.

use synth::established::CoordinateFormat;
use synth::Descriptor;

use crate::Error;

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
/// [`Error::Format`] when the descriptor does not have that shape.
pub fn coo_layout(d: &Descriptor) -> Result<CooLayout, Error> {
    use iegen::Set;
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
        return Err(Error::Format(format!(
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
        allow_nonfinite: false,
    })
}
